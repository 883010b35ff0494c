import { createHash } from 'node:crypto'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { close, listen } from '../../emulator/loopback-server.js'
import {
  DOCS,
  gitHubError,
  isObject,
  json,
  nodeId,
  notFound,
  positiveInteger,
  shown,
  timestamp,
  type Answer
} from './answers.js'
import { CHECK_RUN, CHECK_RUNS, CheckRuns } from './check-runs.js'
import type {
  AuthorAssociation,
  FakeCheckRun,
  FakeComment,
  FakeGitHubOptions,
  FakePullRequest,
  FakeReaction,
  FakeReviewComment,
  FakeUser,
  NewReviewComment,
  GitHubIssueComment,
  GitHubPermissionAnswer,
  GitHubLabel,
  GitHubPullRequest,
  GitHubReaction,
  GitHubReviewComment,
  GitHubRepositoryRef,
  GitHubUser,
  Permission,
  CustomRole,
  RecordedGitHubRequest,
  InvalidCheckRunRequest
} from './types.js'

// ---------------------------------------------------------------------------------------------
// Routes

type RouteName =
  | 'permission'
  | 'pull'
  | 'list-comments'
  | 'create-comment'
  | 'update-comment'
  | 'comment-reaction'
  | 'issue-reaction'
  | 'list-review-comments'
  | 'create-review-reply'
  | 'update-review-comment'
  | 'review-comment-reaction'
  | 'user'
  | 'create-check-run'
  | 'check-run'

interface Route {
  name: RouteName
  method: 'GET' | 'POST' | 'PATCH'
  pattern: RegExp
  /** What GitHub puts in the documentation_url of the endpoint's errors. */
  documentationUrl: string
}

function route(name: RouteName, method: Route['method'], template: string, page: string): Route {
  const source = template.replace(/\{(\w+)\}/g, (_, param: string) => `(?<${param}>[^/]+)`)
  return { name, method, pattern: new RegExp(`^${source}$`), documentationUrl: `${DOCS}/${page}` }
}

const ROUTES: Route[] = [
  route(
    'permission',
    'GET',
    '/repos/{owner}/{repo}/collaborators/{username}/permission',
    'collaborators/collaborators#get-repository-permissions-for-a-user'
  ),
  route('pull', 'GET', '/repos/{owner}/{repo}/pulls/{pull_number}', 'pulls/pulls#get-a-pull-request'),
  route(
    'list-comments',
    'GET',
    '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    'issues/comments#list-issue-comments'
  ),
  route(
    'create-comment',
    'POST',
    '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    'issues/comments#create-an-issue-comment'
  ),
  route(
    'update-comment',
    'PATCH',
    '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    'issues/comments#update-an-issue-comment'
  ),
  route(
    'comment-reaction',
    'POST',
    '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
    'reactions/reactions#create-reaction-for-an-issue-comment'
  ),
  route(
    'issue-reaction',
    'POST',
    '/repos/{owner}/{repo}/issues/{issue_number}/reactions',
    'reactions/reactions#create-reaction-for-an-issue'
  ),
  route(
    'list-review-comments',
    'GET',
    '/repos/{owner}/{repo}/pulls/{pull_number}/comments',
    'pulls/comments#list-review-comments-on-a-pull-request'
  ),
  route(
    'create-review-reply',
    'POST',
    '/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
    'pulls/comments#create-a-reply-for-a-review-comment'
  ),
  route(
    'update-review-comment',
    'PATCH',
    '/repos/{owner}/{repo}/pulls/comments/{comment_id}',
    'pulls/comments#update-a-review-comment-for-a-pull-request'
  ),
  route(
    'review-comment-reaction',
    'POST',
    '/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions',
    'reactions/reactions#create-reaction-for-a-pull-request-review-comment'
  ),
  route('user', 'GET', '/user', 'users/users#get-the-authenticated-user'),
  route('create-check-run', 'POST', CHECK_RUNS, 'checks/runs#create-a-check-run'),
  route('check-run', 'GET', CHECK_RUN, 'checks/runs#get-a-check-run'),
  route('check-run', 'PATCH', CHECK_RUN, 'checks/runs#update-a-check-run')
]

const REACTION_CONTENTS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'] as const

/** GitHub's limit on issue comment bodies, in characters (code points, as Rails counts them). */
const MAX_COMMENT_LENGTH = 65536

/** Weakest first: a permission includes every one before it. */
const PERMISSION_RANK: Permission[] = ['none', 'read', 'triage', 'write', 'maintain', 'admin']

/** The legacy `permission` field knows only admin, write, read and none. */
const LEGACY_PERMISSION: Record<Permission, GitHubPermissionAnswer['permission']> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none'
}

/** Real ids of well-known accounts; everyone else gets one from 1001 on, in order of appearance. */
const KNOWN_USER_IDS: Record<string, number> = { 'github-actions[bot]': 41898282, octocat: 583231 }

const SECONDARY_RATE_LIMIT_MESSAGE =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'
const SECONDARY_RATE_LIMIT_DOCS = `${DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits`

/** Primary rate limits per hour: a GitHub App installation's and an unauthenticated client's. */
const AUTHENTICATED_LIMIT = 5000
const ANONYMOUS_LIMIT = 60

const FIRST_COMMENT_ID = 2_100_000_001
const FIRST_REACTION_ID = 250_000_001
const REPOSITORY_ID = 700_000_001

// ---------------------------------------------------------------------------------------------
// Answers

/** A query parameter as GitHub reads it: the default when absent or not a positive integer. */
function queryInteger(text: string | undefined, fallback: number): number {
  const value = text === undefined || !/^\d+$/.test(text) ? Number.NaN : Number(text)
  return value >= 1 ? value : fallback
}

/** A path segment percent-decoded; a broken escape stays as it came. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

type ParsedBody = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'invalid'; text: string }

function parseBody(text: string): ParsedBody {
  if (text.trim() === '') return { kind: 'none' }
  try {
    const value = JSON.parse(text) as unknown
    // A string escaping half of a surrogate pair (`"\ud800"`) is no Unicode: a strict parser refuses it.
    return holdsLoneSurrogate(value) ? { kind: 'invalid', text } : { kind: 'json', value }
  } catch {
    return { kind: 'invalid', text }
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

function holdsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value)
  if (value === null || typeof value !== 'object') return false
  return Object.entries(value).some(([key, item]) => LONE_SURROGATE.test(key) || holdsLoneSurrogate(item))
}

/** The token of `token X` or `Bearer X` (either scheme in any case), or undefined. */
function tokenOf(authorization: string | undefined): string | undefined {
  return /^(?:token|bearer)\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1]
}

// ---------------------------------------------------------------------------------------------
// Rate limits and injected faults

/** GitHub's primary rate limit headers for one bucket. Counted, never enforced. */
class PrimaryRateLimit {
  private used = 0
  /** Epoch seconds at which the hour window ends. */
  private reset = 0

  constructor(private readonly limit: number) {}

  /** Counts a request and returns the headers of its answer. */
  count(now: number): Record<string, string> {
    if (now >= this.reset * 1000) {
      this.used = 0
      this.reset = Math.ceil(now / 1000) + 3600
    }
    this.used++
    return {
      'x-ratelimit-limit': String(this.limit),
      'x-ratelimit-remaining': String(Math.max(0, this.limit - this.used)),
      'x-ratelimit-reset': String(this.reset),
      'x-ratelimit-used': String(this.used),
      'x-ratelimit-resource': 'core'
    }
  }
}

interface InjectedFault {
  hitsLeft: number
  pathPattern: RegExp | undefined
  answer: () => Answer
}

function checkTimes(times: number): void {
  if (!Number.isInteger(times) || times < 1) throw new Error(`times must be an integer >= 1, got ${times}`)
}

// ---------------------------------------------------------------------------------------------
// Stored state

interface StoredComment {
  id: number
  issueNumber: number
  body: string
  user: FakeUser
  createdAt: number
  updatedAt: number
}

interface StoredReviewComment {
  id: number
  pullNumber: number
  body: string
  user: FakeUser
  path: string
  line: number | null
  startLine: number | null
  side: 'LEFT' | 'RIGHT'
  diffHunk: string
  inReplyTo?: number
  createdAt: number
  updatedAt: number
}

interface StoredReaction {
  id: number
  target: FakeReaction['target']
  content: string
  user: FakeUser
  createdAt: number
}

interface StoredPullRequest extends FakePullRequest {
  createdAt: number
}

/** One routed request as the handlers see it. */
interface Call {
  route: Route
  params: Record<string, string>
  query: Record<string, string>
  body: unknown
  /** The API's base URL as the client reached it (Host header and path prefix). */
  api: string
  /** The request path without the prefix, for Link headers. */
  path: string
  now: number
}

// ---------------------------------------------------------------------------------------------
// The fake

/**
 * The part of GitHub's REST API the action uses, on a loopback port: collaborator permissions, pull
 * requests (with labels and assignees), issue comments and review comments with their replies
 * (paginated as GitHub paginates), reactions, and check runs (check-runs.ts) on one repository, with
 * GitHub's status codes, error bodies and rate limit headers, and injectable secondary rate limits
 * and server errors. State lives in memory for the life of the object.
 */
export class FakeGitHub {
  /** Every request, in order of arrival. */
  readonly requests: RecordedGitHubRequest[] = []

  private readonly owner: string
  private readonly repo: string
  private readonly token: string
  private readonly actor: FakeUser
  private readonly identityVisible: boolean
  private readonly pathPrefix: string

  /** Lower-cased login -> the login as configured, its (base) permission and its role's name. */
  private readonly permissions = new Map<string, { login: string; permission: Permission; role: string }>()
  /** Lower-cased login -> the user as first seen, and its id. */
  private readonly users = new Map<string, { user: FakeUser; id: number }>()
  private readonly commentsById = new Map<number, StoredComment>()
  private readonly reviewCommentsById = new Map<number, StoredReviewComment>()
  /** Issue or pull request number -> its labels and its assignees' logins, in the order added. */
  private readonly labelsByNumber = new Map<number, string[]>()
  private readonly assigneesByNumber = new Map<number, string[]>()
  private readonly storedReactions: StoredReaction[] = []
  private readonly pullRequests = new Map<number, StoredPullRequest>()
  /** Commits the repository has besides its pull requests' heads and bases (lower-case shas). */
  private readonly commits = new Set<string>()
  private readonly checks: CheckRuns
  private checksPermission: NonNullable<FakeGitHubOptions['checks']>
  private readonly faults: InjectedFault[] = []
  private readonly hangs: Array<{
    hitsLeft: number
    pathPattern?: RegExp
    method?: string
    /** A hold: answered as usual once this resolves (a hang never is). */
    released?: Promise<void>
  }> = []
  private readonly authenticatedLimit = new PrimaryRateLimit(AUTHENTICATED_LIMIT)
  private readonly anonymousLimit = new PrimaryRateLimit(ANONYMOUS_LIMIT)
  private nextCommentId = FIRST_COMMENT_ID
  private nextReactionId = FIRST_REACTION_ID
  private nextUserId = 1001
  private requestCount = 0
  private server: Server | undefined
  private url: string | undefined

  constructor(options: FakeGitHubOptions = {}) {
    this.owner = options.owner ?? 'octo-org'
    this.repo = options.repo ?? 'octo-repo'
    this.token = options.token ?? 'github-token'
    if (!/^\S+$/.test(this.token)) throw new Error('The token must be a non-empty string without whitespace')
    this.actor = { ...(options.actor ?? { login: 'github-actions[bot]', type: 'Bot' }) }
    this.identityVisible = options.identityVisible ?? false
    // '/api/v3/' and 'api/v3' both mean '/api/v3'; '/' means none.
    const prefix = (options.pathPrefix ?? '').replace(/^\/*/, '/').replace(/\/+$/, '')
    this.pathPrefix = prefix
    for (const [login, permission] of Object.entries(options.permissions ?? {})) {
      this.setPermission(login, permission)
    }
    this.knownUser(this.actor)
    this.checksPermission = options.checks ?? 'write'
    this.checks = new CheckRuns({
      permission: () => this.checksPermission,
      hasCommit: sha => this.commits.has(sha) || this.pullRequestShas().has(sha),
      pullRequestsAt: (sha, api) => this.pullRequestsAt(sha, api)
    })
  }

  /** Listens (default: any free port on 127.0.0.1) and resolves to the base URL, path prefix included. */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) throw new Error(`The fake GitHub is already listening on ${this.baseUrl}`)
    const { server, url } = await listen((request, response) => this.receive(request, response), port, host)
    this.server = server
    this.url = url
    return this.baseUrl
  }

  /** Closes the server and every open connection, keep-alive ones included. */
  async stop(): Promise<void> {
    const server = this.server
    if (!server) return
    this.server = undefined
    await close(server)
  }

  /** What GITHUB_API_URL would be: e.g. http://127.0.0.1:PORT, or http://127.0.0.1:PORT/api/v3. */
  get baseUrl(): string {
    if (!this.url) throw new Error('The fake GitHub is not started: call start() first')
    return this.url + this.pathPrefix
  }

  /** The comments on an issue or pull request, in creation order. */
  comments(issueNumber: number): FakeComment[] {
    return [...this.commentsById.values()]
      .filter(comment => comment.issueNumber === issueNumber)
      .map(comment => this.commentView(comment))
  }

  /** The comments on a pull request's code, in creation order. */
  reviewComments(pullNumber: number): FakeReviewComment[] {
    return [...this.reviewCommentsById.values()]
      .filter(comment => comment.pullNumber === pullNumber)
      .map(comment => this.reviewCommentView(comment))
  }

  /**
   * A comment someone wrote (now) on a line of a pull request's diff, or a reply in a thread. Ids
   * come from the issue comments' sequence, so ids of both kinds grow with time.
   */
  addReviewComment(pullNumber: number, comment: NewReviewComment): FakeReviewComment {
    const root = comment.inReplyTo === undefined ? undefined : this.reviewCommentsById.get(comment.inReplyTo)
    if (comment.inReplyTo !== undefined && (!root || root.pullNumber !== pullNumber))
      throw new Error(`No review comment ${comment.inReplyTo} on pull request ${pullNumber}`)
    const line = comment.line === undefined ? 12 : comment.line
    const stored = this.storeReviewComment(
      {
        pullNumber,
        body: comment.body,
        user: comment.user,
        path: root?.path ?? comment.path ?? 'src/parser.ts',
        line: root?.line ?? line,
        startLine: root?.startLine ?? comment.startLine ?? null,
        side: root?.side ?? comment.side ?? 'RIGHT',
        diffHunk:
          root?.diffHunk ?? comment.diffHunk ?? '@@ -10,3 +10,3 @@\n const a = 1\n-const b = 2\n+const b = 3',
        inReplyTo: root ? (root.inReplyTo ?? root.id) : undefined
      },
      Date.now()
    )
    return this.reviewCommentView(stored)
  }

  /** Edits a review comment as its author would through the web interface. */
  editReviewComment(id: number, body: string): FakeReviewComment {
    const comment = this.reviewCommentsById.get(id)
    if (!comment) throw new Error(`No review comment ${id}`)
    comment.body = body
    comment.updatedAt = Date.now()
    return this.reviewCommentView(comment)
  }

  /** Adds a label to an issue or pull request, as someone would through the web interface. */
  addLabel(number: number, name: string): void {
    const labels = this.labelsByNumber.get(number) ?? []
    if (!labels.some(label => label.toLowerCase() === name.toLowerCase())) labels.push(name)
    this.labelsByNumber.set(number, labels)
  }

  labels(number: number): string[] {
    return [...(this.labelsByNumber.get(number) ?? [])]
  }

  /** Assigns an issue or pull request to `login`, as someone would through the web interface. */
  assign(number: number, login: string): void {
    const assignees = this.assigneesByNumber.get(number) ?? []
    if (!assignees.some(known => known.toLowerCase() === login.toLowerCase())) assignees.push(login)
    this.assigneesByNumber.set(number, assignees)
  }

  assignees(number: number): string[] {
    return [...(this.assigneesByNumber.get(number) ?? [])]
  }

  /** Every reaction made through the API, in order. */
  get reactions(): FakeReaction[] {
    return this.storedReactions.map(reaction => ({
      target: { ...reaction.target },
      content: reaction.content,
      user: { ...reaction.user }
    }))
  }

  /** A comment someone wrote (now), as if through the web interface. */
  addComment(issueNumber: number, body: string, user: FakeUser): FakeComment {
    return this.commentView(this.storeComment(issueNumber, body, user, Date.now()))
  }

  /** Edits a comment as its author would through the web interface. */
  editComment(id: number, body: string): FakeComment {
    const comment = this.commentsById.get(id)
    if (!comment) throw new Error(`No comment ${id}`)
    comment.body = body
    comment.updatedAt = Date.now()
    return this.commentView(comment)
  }

  /** The check runs written through the API, in creation order. */
  checkRuns(): FakeCheckRun[] {
    return this.checks.list()
  }

  /** Check-run requests whose body GitHub's REST description refuses (each was answered 422). */
  get invalidCheckRunRequests(): InvalidCheckRunRequest[] {
    return [...this.checks.invalid]
  }

  /** The token's `checks` permission from now on, as a workflow's `permissions:` would set it. */
  setChecksPermission(permission: NonNullable<FakeGitHubOptions['checks']>): void {
    this.checksPermission = permission
  }

  /** A commit the repository has (a push, say), so that check runs can be created on it. */
  addCommit(sha: string): void {
    this.commits.add(sha.toLowerCase())
  }

  /** The head commit of a pull request the fake has. */
  headSha(number: number): string {
    const pr = this.pullRequests.get(number)
    if (!pr) throw new Error(`No pull request ${number}`)
    return this.headShaOf(pr)
  }

  /** Adds the pull request, or replaces the one with its number. */
  addPullRequest(pr: FakePullRequest): void {
    const user = { ...(pr.user ?? { login: 'octocat', type: 'User' }) }
    this.knownUser(user)
    this.pullRequests.set(pr.number, { ...pr, user, createdAt: Date.now() })
  }

  setPermission(login: string, role: Permission | CustomRole): void {
    const permission = typeof role === 'string' ? role : role.base
    if (!PERMISSION_RANK.includes(permission)) throw new Error(`Unknown permission ${String(permission)}`)
    const name = typeof role === 'string' ? role : role.name
    this.permissions.set(login.toLowerCase(), { login, permission, role: name })
  }

  /**
   * The next `times` requests (matching `pathPattern`, tested against the path without prefix and
   * query, when given) get GitHub's secondary rate limit answer: 403 with retry-after.
   */
  injectSecondaryRateLimit(times: number, pathPattern?: RegExp, retryAfterSeconds = 1): void {
    checkTimes(times)
    if (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 0) {
      throw new Error(`retryAfterSeconds must be an integer >= 0, got ${retryAfterSeconds}`)
    }
    this.faults.push({
      hitsLeft: times,
      pathPattern,
      answer: () => ({
        ...gitHubError(403, SECONDARY_RATE_LIMIT_MESSAGE, SECONDARY_RATE_LIMIT_DOCS),
        headers: { 'retry-after': String(retryAfterSeconds) }
      })
    })
  }

  /** The next `times` matching requests get a transient server error (`{"message":"Server Error"}`). */
  injectServerError(times: number, pathPattern?: RegExp, status = 500): void {
    checkTimes(times)
    if (!Number.isInteger(status) || status < 500 || status > 599) {
      throw new Error(`A server error status is 500-599, got ${status}`)
    }
    this.faults.push({
      hitsLeft: times,
      pathPattern,
      answer: () => json({ message: 'Server Error' }, status)
    })
  }

  /**
   * The next `times` matching requests get a client error as GitHub words it (404 Not Found by
   * default), e.g. a token that cannot see the resource. Clients do not retry these.
   */
  injectClientError(times: number, pathPattern?: RegExp, status = 404, message = 'Not Found'): void {
    checkTimes(times)
    if (!Number.isInteger(status) || status < 400 || status > 499) {
      throw new Error(`A client error status is 400-499, got ${status}`)
    }
    this.faults.push({ hitsLeft: times, pathPattern, answer: () => gitHubError(status, message) })
  }

  /**
   * Hostile: the next `times` matching requests (path as for the other faults, and method when
   * given) are never answered; the connection stays open until the fake stops.
   */
  injectHang(times: number, pathPattern?: RegExp, method?: string): void {
    checkTimes(times)
    this.hangs.push({ hitsLeft: times, pathPattern, method })
  }

  /**
   * Slow: the next `times` matching requests (as for injectHang) are answered as usual, but only once
   * `release()` is called; `answeredAt` on their records tells when.
   */
  injectHold(times: number, pathPattern?: RegExp, method?: string): { release: () => void } {
    checkTimes(times)
    let release = (): void => undefined
    const released = new Promise<void>(resolve => (release = resolve))
    this.hangs.push({ hitsLeft: times, pathPattern, method, released })
    return { release }
  }

  // -- HTTP plumbing

  private receive(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://github.fake')
    const query: Record<string, string> = {}
    for (const [name, value] of url.searchParams) query[name] = value
    const { path, insidePrefix } = this.withoutPrefix(url.pathname)
    const record: RecordedGitHubRequest = {
      at: Date.now(),
      method: request.method ?? 'GET',
      path,
      query,
      body: undefined,
      authorization: request.headers.authorization,
      status: 0
    }
    this.requests.push(record)
    const hang = this.hangs.find(
      candidate =>
        candidate.hitsLeft > 0 &&
        (!candidate.method || candidate.method === record.method) &&
        (!candidate.pathPattern || path.search(candidate.pathPattern) >= 0)
    )
    if (hang) hang.hitsLeft--
    if (hang && !hang.released) {
      request.resume()
      return
    }

    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('error', () => undefined)
    request.on('end', () => {
      const body = parseBody(Buffer.concat(chunks).toString('utf8'))
      record.body = body.kind === 'json' ? body.value : body.kind === 'invalid' ? body.text : undefined
      const authenticated = tokenOf(record.authorization) === this.token
      const host = request.headers.host ?? new URL(this.url ?? 'http://127.0.0.1').host
      const answer = this.answer(
        record,
        insidePrefix,
        body,
        authenticated,
        `http://${host}${this.pathPrefix}`
      )
      const limit = authenticated ? this.authenticatedLimit : this.anonymousLimit
      void (hang?.released ?? Promise.resolve()).then(() => {
        record.status = answer.status
        record.answeredAt = Date.now()
        this.write(response, answer, limit.count(record.at))
      })
    })
  }

  /** The path as routed (the prefix taken off), and whether it was under the prefix at all. */
  private withoutPrefix(pathname: string): { path: string; insidePrefix: boolean } {
    if (this.pathPrefix === '') return { path: pathname, insidePrefix: true }
    if (pathname === this.pathPrefix) return { path: '/', insidePrefix: true }
    if (pathname.startsWith(`${this.pathPrefix}/`)) {
      return { path: pathname.slice(this.pathPrefix.length), insidePrefix: true }
    }
    return { path: pathname, insidePrefix: false }
  }

  /** Faults first (they stand for GitHub's front end), then authentication, routing and the endpoint. */
  private answer(
    record: RecordedGitHubRequest,
    insidePrefix: boolean,
    body: ParsedBody,
    authenticated: boolean,
    api: string
  ): Answer {
    const fault = this.takeFault(record.path)
    if (fault) return fault
    if (!authenticated) {
      return record.authorization === undefined
        ? gitHubError(401, 'Requires authentication')
        : gitHubError(401, 'Bad credentials')
    }
    if (!insidePrefix) return notFound()

    const match = this.match(record.method, record.path)
    if (!match) return notFound()
    const { route: found, params } = match
    if (params.owner !== undefined && !this.isOurRepository(params.owner, params.repo)) {
      return notFound(found.documentationUrl)
    }
    if (found.method !== 'GET' && body.kind === 'invalid') {
      return gitHubError(400, 'Problems parsing JSON', found.documentationUrl)
    }
    const value = body.kind === 'json' ? body.value : undefined
    return this.handle({
      route: found,
      params,
      query: record.query,
      body: value,
      api,
      path: record.path,
      now: record.at
    })
  }

  private takeFault(path: string): Answer | undefined {
    const fault = this.faults.find(
      candidate =>
        candidate.hitsLeft > 0 && (!candidate.pathPattern || path.search(candidate.pathPattern) >= 0)
    )
    if (!fault) return undefined
    fault.hitsLeft--
    return fault.answer()
  }

  private match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    for (const candidate of ROUTES) {
      if (candidate.method !== method) continue
      const found = candidate.pattern.exec(path)
      if (!found) continue
      const params = Object.fromEntries(
        Object.entries(found.groups ?? {}).map(([name, value]) => [name, decodePathSegment(value)])
      )
      return { route: candidate, params }
    }
    return undefined
  }

  /** Owner and repository names are case-insensitive on GitHub. */
  private isOurRepository(owner: string, repo: string | undefined): boolean {
    return owner.toLowerCase() === this.owner.toLowerCase() && repo?.toLowerCase() === this.repo.toLowerCase()
  }

  private write(response: ServerResponse, answer: Answer, rateLimitHeaders: Record<string, string>): void {
    // A client that gave up (or a stopped fake) has no socket left to answer on.
    if (response.destroyed || response.socket?.destroyed) return
    const body = Buffer.from(JSON.stringify(answer.value))
    this.requestCount++
    response.writeHead(answer.status, {
      ...answer.headers,
      ...rateLimitHeaders,
      'x-github-api-version-selected': '2022-11-28',
      'x-github-media-type': 'github.v3; format=json',
      'x-github-request-id': `FAKE:${this.requestCount.toString(16).toUpperCase().padStart(6, '0')}`,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(body.length)
    })
    response.end(body)
  }

  // -- GitHub

  private handle(call: Call): Answer {
    switch (call.route.name) {
      case 'permission':
        return this.getPermission(call)
      case 'pull':
        return this.getPullRequest(call)
      case 'list-comments':
        return this.listComments(call)
      case 'create-comment':
        return this.createComment(call)
      case 'update-comment':
        return this.updateComment(call)
      case 'comment-reaction':
      case 'issue-reaction':
      case 'review-comment-reaction':
        return this.createReaction(call)
      case 'list-review-comments':
        return this.listReviewComments(call)
      case 'create-review-reply':
        return this.createReviewReply(call)
      case 'update-review-comment':
        return this.updateReviewComment(call)
      case 'create-check-run':
      case 'check-run':
        return this.checks.handle({
          method: call.route.method,
          path: call.path,
          id: call.params.check_run_id,
          body: call.body,
          api: call.api,
          web: this.webBase(),
          repository: `${this.owner}/${this.repo}`,
          documentationUrl: call.route.documentationUrl,
          now: call.now
        })
      case 'user':
        return this.identityVisible
          ? json({ ...this.wireUser(this.actor, call.api), name: null, email: null })
          : gitHubError(403, 'Resource not accessible by integration', call.route.documentationUrl)
    }
  }

  private getPermission(call: Call): Answer {
    const username = call.params.username ?? ''
    const configured = this.permissions.get(username.toLowerCase())
    const permission = configured?.permission ?? 'none'
    const role = configured?.role ?? permission
    const known = this.users.get(username.toLowerCase())?.user
    const user = known ?? { login: configured?.login ?? username, type: 'User' as const }
    const rank = PERMISSION_RANK.indexOf(permission)
    const has = (level: Permission): boolean => rank >= PERMISSION_RANK.indexOf(level)
    const answer: GitHubPermissionAnswer = {
      permission: LEGACY_PERMISSION[permission],
      role_name: role,
      user: {
        ...this.wireUser(user, call.api),
        permissions: {
          admin: has('admin'),
          maintain: has('maintain'),
          push: has('write'),
          triage: has('triage'),
          pull: has('read')
        },
        role_name: role
      }
    }
    return json(answer)
  }

  private getPullRequest(call: Call): Answer {
    const number = positiveInteger(call.params.pull_number)
    const pr = number === undefined ? undefined : this.pullRequests.get(number)
    if (!pr) return notFound(call.route.documentationUrl)
    const user = pr.user ?? { login: 'octocat', type: 'User' }
    const ours = `${this.owner}/${this.repo}`
    const headRepository = pr.headRepository ?? ours
    const [headOwner = this.owner] = headRepository.split('/')
    const answer: GitHubPullRequest = {
      url: `${call.api}/repos/${ours}/pulls/${pr.number}`,
      id: 1_900_000_000 + pr.number,
      node_id: nodeId('PullRequest', 1_900_000_000 + pr.number),
      html_url: `${this.webBase()}/${ours}/pull/${pr.number}`,
      issue_url: `${call.api}/repos/${ours}/issues/${pr.number}`,
      number: pr.number,
      state: 'open',
      locked: false,
      title: pr.title,
      user: this.wireUser(user, call.api),
      body: pr.body,
      created_at: timestamp(pr.createdAt),
      updated_at: timestamp(pr.createdAt),
      draft: false,
      merged: false,
      head: {
        label: `${headOwner}:${pr.head}`,
        ref: pr.head,
        sha: this.headShaOf(pr),
        user: this.wireUser({ login: headOwner, type: 'User' }, call.api),
        repo: this.repositoryRef(headRepository, call.api)
      },
      base: {
        label: `${this.owner}:${pr.base}`,
        ref: pr.base,
        sha: this.shaOf(ours, pr.base),
        user: this.wireUser({ login: this.owner, type: 'User' }, call.api),
        repo: this.repositoryRef(ours, call.api)
      },
      labels: this.labels(pr.number).map(name => this.wireLabel(name, call.api)),
      assignees: this.assignees(pr.number).map(login => this.wireUser(this.userNamed(login), call.api)),
      author_association: this.association(user.login)
    }
    return json(answer)
  }

  private listReviewComments(call: Call): Answer {
    const pullNumber = positiveInteger(call.params.pull_number)
    if (pullNumber === undefined || !this.pullRequests.has(pullNumber))
      return notFound(call.route.documentationUrl)
    const perPage = Math.min(queryInteger(call.query.per_page, 30), 100)
    const page = queryInteger(call.query.page, 1)
    const all = [...this.reviewCommentsById.values()].filter(comment => comment.pullNumber === pullNumber)
    const items = all
      .slice((page - 1) * perPage, page * perPage)
      .map(comment => this.wireReviewComment(comment, call.api))
    const link = linkHeader(call.api + call.path, call.query, page, Math.ceil(all.length / perPage))
    return json(items, 200, link ? { link } : undefined)
  }

  /** A reply joins the thread of the comment it answers (GitHub keeps threads flat). */
  private createReviewReply(call: Call): Answer {
    const pullNumber = positiveInteger(call.params.pull_number)
    const id = positiveInteger(call.params.comment_id)
    const answered = id === undefined ? undefined : this.reviewCommentsById.get(id)
    if (!answered || answered.pullNumber !== pullNumber) return notFound(call.route.documentationUrl)
    const body = this.commentBody(call, 'PullRequestReviewComment')
    if (typeof body !== 'string') return body
    const comment = this.storeReviewComment(
      {
        pullNumber: answered.pullNumber,
        body,
        user: this.actor,
        path: answered.path,
        line: answered.line,
        startLine: answered.startLine,
        side: answered.side,
        diffHunk: answered.diffHunk,
        inReplyTo: answered.inReplyTo ?? answered.id
      },
      call.now
    )
    return json(this.wireReviewComment(comment, call.api), 201)
  }

  private updateReviewComment(call: Call): Answer {
    const id = positiveInteger(call.params.comment_id)
    const schemaError = this.commentSchemaError(call)
    if (schemaError) return schemaError
    const comment = id === undefined ? undefined : this.reviewCommentsById.get(id)
    if (!comment) return notFound(call.route.documentationUrl)
    if (comment.user.login.toLowerCase() !== this.actor.login.toLowerCase()) {
      return gitHubError(403, 'Resource not accessible by integration', call.route.documentationUrl)
    }
    const body = this.commentBody(call, 'PullRequestReviewComment')
    if (typeof body !== 'string') return body
    comment.body = body
    comment.updatedAt = call.now
    return json(this.wireReviewComment(comment, call.api))
  }

  private listComments(call: Call): Answer {
    const issueNumber = positiveInteger(call.params.issue_number)
    if (issueNumber === undefined) return notFound(call.route.documentationUrl)
    const perPage = Math.min(queryInteger(call.query.per_page, 30), 100)
    const page = queryInteger(call.query.page, 1)
    const since = call.query.since === undefined ? Number.NaN : Date.parse(call.query.since)
    const all = [...this.commentsById.values()].filter(
      comment => comment.issueNumber === issueNumber && !(comment.updatedAt < since)
    )
    const items = all
      .slice((page - 1) * perPage, page * perPage)
      .map(comment => this.wireComment(comment, call.api))
    const lastPage = Math.ceil(all.length / perPage)
    const link = linkHeader(call.api + call.path, call.query, page, lastPage)
    return json(items, 200, link ? { link } : undefined)
  }

  private createComment(call: Call): Answer {
    const issueNumber = positiveInteger(call.params.issue_number)
    if (issueNumber === undefined) return notFound(call.route.documentationUrl)
    const body = this.commentBody(call)
    if (typeof body !== 'string') return body
    const comment = this.storeComment(issueNumber, body, this.actor, call.now)
    return json(this.wireComment(comment, call.api), 201)
  }

  private updateComment(call: Call): Answer {
    const id = positiveInteger(call.params.comment_id)
    const schemaError = this.commentSchemaError(call)
    if (schemaError) return schemaError
    const comment = id === undefined ? undefined : this.commentsById.get(id)
    if (!comment) return notFound(call.route.documentationUrl)
    if (comment.user.login.toLowerCase() !== this.actor.login.toLowerCase()) {
      return gitHubError(403, 'Resource not accessible by integration', call.route.documentationUrl)
    }
    const body = this.commentBody(call)
    if (typeof body !== 'string') return body
    comment.body = body
    comment.updatedAt = call.now
    return json(this.wireComment(comment, call.api))
  }

  /** The request-schema check of `{body}`: GitHub's "Invalid request" answers. */
  private commentSchemaError(call: Call): Answer | undefined {
    return this.schemaError(call, 'body', value =>
      typeof value === 'string' ? undefined : 'is not a string'
    )
  }

  /** The comment text, or the 422 GitHub gives for it: the schema check, then the model's validations. */
  private commentBody(call: Call, resource = 'IssueComment'): string | Answer {
    const schemaError = this.commentSchemaError(call)
    if (schemaError) return schemaError
    const body = (call.body as { body: string }).body
    if (body.trim() === '') {
      return gitHubError(422, 'Validation Failed', call.route.documentationUrl, [
        { resource, code: 'missing_field', field: 'body' }
      ])
    }
    if ([...body].length > MAX_COMMENT_LENGTH) {
      return gitHubError(422, 'Validation Failed', call.route.documentationUrl, [
        {
          resource,
          code: 'custom',
          field: 'body',
          message: `body is too long (maximum is ${MAX_COMMENT_LENGTH} characters)`
        }
      ])
    }
    return body
  }

  /** GitHub's JSON schema errors: the body must be an object with `field`, which `problem` accepts. */
  private schemaError(
    call: Call,
    field: string,
    problem: (value: unknown) => string | undefined
  ): Answer | undefined {
    const invalid = (detail: string): Answer =>
      gitHubError(422, `Invalid request.\n\n${detail}`, call.route.documentationUrl)
    if (!isObject(call.body)) return invalid(`For 'links/0/schema', ${shown(call.body)} is not an object.`)
    if (!(field in call.body)) return invalid(`"${field}" wasn't supplied.`)
    const value = call.body[field]
    const issue = problem(value)
    return issue ? invalid(`For 'properties/${field}', ${shown(value)} ${issue}.`) : undefined
  }

  private createReaction(call: Call): Answer {
    const members = REACTION_CONTENTS.map(content => `"${content}"`).join(', ')
    const schemaError = this.schemaError(call, 'content', value =>
      REACTION_CONTENTS.some(content => content === value) ? undefined : `is not a member of [${members}]`
    )
    if (schemaError) return schemaError
    // Any positive issue number is an issue: the fake keeps no list of issues.
    const target: FakeReaction['target'] =
      call.route.name === 'comment-reaction'
        ? { commentId: positiveInteger(call.params.comment_id) ?? 0 }
        : call.route.name === 'review-comment-reaction'
          ? { reviewCommentId: positiveInteger(call.params.comment_id) ?? 0 }
          : { issueNumber: positiveInteger(call.params.issue_number) ?? 0 }
    const exists =
      'commentId' in target
        ? this.commentsById.has(target.commentId)
        : 'reviewCommentId' in target
          ? this.reviewCommentsById.has(target.reviewCommentId)
          : target.issueNumber !== 0
    if (!exists) return notFound(call.route.documentationUrl)
    const content = (call.body as { content: string }).content
    const sameTarget = (other: FakeReaction['target']): boolean =>
      JSON.stringify(other) === JSON.stringify(target)
    // The same person reacting the same way again gets the existing reaction back, with 200.
    const existing = this.storedReactions.find(
      reaction =>
        reaction.content === content &&
        reaction.user.login.toLowerCase() === this.actor.login.toLowerCase() &&
        sameTarget(reaction.target)
    )
    if (existing) return json(this.wireReaction(existing, call.api))
    const reaction: StoredReaction = {
      id: this.nextReactionId++,
      target,
      content,
      user: { ...this.actor },
      createdAt: call.now
    }
    this.storedReactions.push(reaction)
    return json(this.wireReaction(reaction, call.api), 201)
  }

  // -- state and wire shapes

  private storeComment(issueNumber: number, body: string, user: FakeUser, now: number): StoredComment {
    const author = { ...user }
    this.knownUser(author)
    const comment: StoredComment = {
      id: this.nextCommentId++,
      issueNumber,
      body,
      user: author,
      createdAt: now,
      updatedAt: now
    }
    this.commentsById.set(comment.id, comment)
    return comment
  }

  private storeReviewComment(
    fields: Omit<StoredReviewComment, 'id' | 'createdAt' | 'updatedAt'>,
    now: number
  ): StoredReviewComment {
    const user = { ...fields.user }
    this.knownUser(user)
    const comment: StoredReviewComment = {
      ...fields,
      user,
      id: this.nextCommentId++,
      createdAt: now,
      updatedAt: now
    }
    this.reviewCommentsById.set(comment.id, comment)
    return comment
  }

  /** A branch's commit: derived from the repository and branch, so every test sees the same one. */
  private shaOf(repository: string, branch: string): string {
    return createHash('sha1').update(`${repository}:${branch}`).digest('hex')
  }

  private headShaOf(pr: FakePullRequest): string {
    return pr.headSha?.toLowerCase() ?? this.shaOf(pr.headRepository ?? `${this.owner}/${this.repo}`, pr.head)
  }

  private pullRequestShas(): Set<string> {
    const ours = `${this.owner}/${this.repo}`
    return new Set(
      [...this.pullRequests.values()].flatMap(pr => [this.headShaOf(pr), this.shaOf(ours, pr.base)])
    )
  }

  /** The repository's own pull requests whose head is `sha`, as a check run lists them. */
  private pullRequestsAt(sha: string, api: string): Array<Record<string, unknown>> {
    const ours = `${this.owner}/${this.repo}`
    const ref = (name: string, refSha: string): Record<string, unknown> => ({
      ref: name,
      sha: refSha,
      repo: { id: REPOSITORY_ID, url: `${api}/repos/${ours}`, name: this.repo }
    })
    return [...this.pullRequests.values()]
      .filter(
        pr => (pr.headRepository ?? ours).toLowerCase() === ours.toLowerCase() && this.headShaOf(pr) === sha
      )
      .map(pr => ({
        id: 1_900_000_000 + pr.number,
        number: pr.number,
        url: `${api}/repos/${ours}/pulls/${pr.number}`,
        head: ref(pr.head, sha),
        base: ref(pr.base, this.shaOf(ours, pr.base))
      }))
  }

  /** A known user by login, or a person of that name. */
  private userNamed(login: string): FakeUser {
    return this.users.get(login.toLowerCase())?.user ?? { login, type: 'User' }
  }

  /** Remembers a user (the first spelling of a login wins) and gives it an id. */
  private knownUser(user: FakeUser): number {
    const key = user.login.toLowerCase()
    const known = this.users.get(key)
    if (known) return known.id
    const id = KNOWN_USER_IDS[key] ?? this.nextUserId++
    this.users.set(key, { user: { ...user }, id })
    return id
  }

  /** Where GitHub's web pages are: github.com, or for Enterprise Server the API's own host. */
  private webBase(): string {
    if (this.pathPrefix === '') return 'https://github.com'
    return this.url ?? 'http://localhost'
  }

  private commentView(comment: StoredComment): FakeComment {
    const kind = this.pullRequests.has(comment.issueNumber) ? 'pull' : 'issues'
    return {
      id: comment.id,
      issueNumber: comment.issueNumber,
      body: comment.body,
      user: { ...comment.user },
      created_at: timestamp(comment.createdAt),
      updated_at: timestamp(comment.updatedAt),
      html_url: `${this.webBase()}/${this.owner}/${this.repo}/${kind}/${comment.issueNumber}#issuecomment-${comment.id}`
    }
  }

  private wireComment(comment: StoredComment, api: string): GitHubIssueComment {
    const view = this.commentView(comment)
    const repository = `${api}/repos/${this.owner}/${this.repo}`
    return {
      id: view.id,
      node_id: nodeId('IssueComment', view.id),
      url: `${repository}/issues/comments/${view.id}`,
      html_url: view.html_url,
      issue_url: `${repository}/issues/${view.issueNumber}`,
      body: view.body,
      user: this.wireUser(view.user, api),
      created_at: view.created_at,
      updated_at: view.updated_at,
      author_association: this.association(view.user.login)
    }
  }

  private reviewCommentView(comment: StoredReviewComment): FakeReviewComment {
    return {
      id: comment.id,
      pullNumber: comment.pullNumber,
      body: comment.body,
      user: { ...comment.user },
      path: comment.path,
      line: comment.line,
      start_line: comment.startLine,
      side: comment.side,
      diff_hunk: comment.diffHunk,
      ...(comment.inReplyTo !== undefined ? { in_reply_to_id: comment.inReplyTo } : {}),
      created_at: timestamp(comment.createdAt),
      updated_at: timestamp(comment.updatedAt),
      html_url: `${this.webBase()}/${this.owner}/${this.repo}/pull/${comment.pullNumber}#discussion_r${comment.id}`
    }
  }

  private wireReviewComment(comment: StoredReviewComment, api: string): GitHubReviewComment {
    const view = this.reviewCommentView(comment)
    const repository = `${api}/repos/${this.owner}/${this.repo}`
    const pr = this.pullRequests.get(comment.pullNumber)
    const sha = pr ? this.headShaOf(pr) : this.shaOf(`${this.owner}/${this.repo}`, '')
    return {
      id: view.id,
      node_id: nodeId('PullRequestReviewComment', view.id),
      url: `${repository}/pulls/comments/${view.id}`,
      html_url: view.html_url,
      pull_request_url: `${repository}/pulls/${view.pullNumber}`,
      pull_request_review_id: 3_000_000_000 + view.id,
      diff_hunk: view.diff_hunk,
      path: view.path,
      commit_id: sha,
      original_commit_id: sha,
      line: view.line,
      original_line: view.line,
      start_line: view.start_line,
      original_start_line: view.start_line,
      side: view.side,
      start_side: view.start_line === null ? null : view.side,
      subject_type: view.line === null ? 'file' : 'line',
      ...(view.in_reply_to_id !== undefined ? { in_reply_to_id: view.in_reply_to_id } : {}),
      body: view.body,
      user: this.wireUser(view.user, api),
      created_at: view.created_at,
      updated_at: view.updated_at,
      author_association: this.association(view.user.login)
    }
  }

  private wireLabel(name: string, api: string): GitHubLabel {
    const id =
      600_000_000 + [...name].reduce((sum, char) => (sum * 31 + char.codePointAt(0)!) % 100_000_000, 7)
    return {
      id,
      node_id: nodeId('Label', id),
      url: `${api}/repos/${this.owner}/${this.repo}/labels/${encodeURIComponent(name)}`,
      name,
      color: 'ededed',
      default: false,
      description: null
    }
  }

  private wireReaction(reaction: StoredReaction, api: string): GitHubReaction {
    return {
      id: reaction.id,
      node_id: nodeId('Reaction', reaction.id),
      user: this.wireUser(reaction.user, api),
      content: reaction.content,
      created_at: timestamp(reaction.createdAt)
    }
  }

  private wireUser(user: FakeUser, api: string): GitHubUser {
    const id = this.knownUser(user)
    const web = this.webBase()
    return {
      login: user.login,
      id,
      node_id: nodeId(user.type, id),
      avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
      gravatar_id: '',
      url: `${api}/users/${encodeURIComponent(user.login)}`,
      html_url:
        user.type === 'Bot' ? `${web}/apps/${user.login.replace(/\[bot\]$/, '')}` : `${web}/${user.login}`,
      type: user.type,
      site_admin: false
    }
  }

  private repositoryRef(fullName: string, api: string): GitHubRepositoryRef {
    const [owner = '', name = ''] = fullName.split('/')
    const id =
      fullName.toLowerCase() === `${this.owner}/${this.repo}`.toLowerCase()
        ? REPOSITORY_ID
        : REPOSITORY_ID + 1
    return {
      id,
      node_id: nodeId('Repository', id),
      name,
      full_name: fullName,
      private: false,
      owner: this.wireUser({ login: owner, type: 'User' }, api),
      html_url: `${this.webBase()}/${fullName}`,
      url: `${api}/repos/${fullName}`,
      fork: id !== REPOSITORY_ID
    }
  }

  /** The repository owner is OWNER; anyone with a permission COLLABORATOR (org membership is not modelled). */
  private association(login: string): AuthorAssociation {
    if (login.toLowerCase() === this.owner.toLowerCase()) return 'OWNER'
    return (this.permissions.get(login.toLowerCase())?.permission ?? 'none') === 'none'
      ? 'NONE'
      : 'COLLABORATOR'
  }
}

/** GitHub's Link header: prev, next, last, first, whichever apply, with absolute URLs. */
function linkHeader(
  url: string,
  query: Record<string, string>,
  page: number,
  lastPage: number
): string | undefined {
  const link = (target: number, rel: string): string => {
    const params = new URLSearchParams({ ...query, page: String(target) })
    return `<${url}?${params.toString()}>; rel="${rel}"`
  }
  const links: string[] = []
  if (page > 1) links.push(link(page - 1, 'prev'))
  if (page < lastPage) links.push(link(page + 1, 'next'), link(lastPage, 'last'))
  if (page > 1) links.push(link(1, 'first'))
  return links.length > 0 ? links.join(', ') : undefined
}
