import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { close, listen, systemServerClock, type ServerClock } from '../../emulator/loopback-server.js'
import type { Answer } from './answers.js'
import { Actions } from './actions.js'
import { CheckRuns } from './check-runs.js'
import { Comments } from './comments.js'
import { ANONYMOUS_LIMIT, AUTHENTICATED_LIMIT, Faults, PrimaryRateLimit, type LostAnswer } from './faults.js'
import { Reactions } from './reactions.js'
import { Repository } from './repository.js'
import { Reviews } from './reviews.js'
import { route } from './handlers.js'
import { parseBody, tokenOf, type ParsedBody } from './routes.js'
import { AnswerWriter, loseAnswer, withoutPrefix } from './wire.js'
import type {
  CustomRole,
  FakeCheckRun,
  FakeComment,
  FakeGitHubOptions,
  FakePullRequest,
  FakeWorkflowRun,
  InvalidQueryRequest,
  RecordedLogDownload,
  FakePullRequestFile,
  FakeReaction,
  FakeReview,
  FakeReviewComment,
  FakeUser,
  InvalidCheckRunRequest,
  NewReviewComment,
  Permission,
  RecordedGitHubRequest
} from './types.js'

/**
 * The part of GitHub's REST API the action uses, on a loopback port: collaborator permissions, pull
 * requests (with labels and assignees; repository.ts), issue comments and review comments with their
 * replies (paginated as GitHub paginates; comments.ts), reactions (reactions.ts), check runs with
 * their annotations (check-runs.ts), a pull request's files and reviews (reviews.ts), and workflow
 * runs' jobs and logs, served by a log storage on another host (actions.ts), on one repository,
 * with GitHub's status codes, error bodies and rate limit headers,
 * and injectable secondary rate limits, errors, hangs and holds (faults.ts). This file is the server:
 * it records each request and puts the faults first; then authentication, routing (routes.ts) and the
 * endpoint (handlers.ts); answers are written, or lost, as GitHub's are (wire.ts). State lives in memory for the life of the object.
 */
export class FakeGitHub {
  /** Every request, in order of arrival. */
  readonly requests: RecordedGitHubRequest[] = []

  private readonly token: string
  private readonly identityVisible: boolean
  private readonly pathPrefix: string
  private readonly repository: Repository
  private readonly issueComments: Comments
  private readonly reactionStore: Reactions
  private readonly checks: CheckRuns
  private readonly reviewStore: Reviews
  private checksPermission: NonNullable<FakeGitHubOptions['checks']>
  private actionsPermission: NonNullable<FakeGitHubOptions['actions']>
  private readonly actions: Actions
  private readonly logStorageHost: string
  private pullRequestsPermission: NonNullable<FakeGitHubOptions['pullRequests']>
  private readonly faults = new Faults()
  private readonly authenticatedLimit = new PrimaryRateLimit(AUTHENTICATED_LIMIT)
  private readonly anonymousLimit = new PrimaryRateLimit(ANONYMOUS_LIMIT)
  private readonly writer = new AnswerWriter()
  private readonly clock: ServerClock
  private server: Server | undefined
  private url: string | undefined

  constructor(options: FakeGitHubOptions = {}) {
    this.clock = options.clock ?? systemServerClock()
    this.token = options.token ?? 'github-token'
    if (!/^\S+$/.test(this.token)) throw new Error('The token must be a non-empty string without whitespace')
    this.identityVisible = options.identityVisible ?? false
    // '/api/v3/' and 'api/v3' both mean '/api/v3'; '/' means none.
    this.pathPrefix = (options.pathPrefix ?? '').replace(/^\/*/, '/').replace(/\/+$/, '')
    const actor = { ...(options.actor ?? { login: 'github-actions[bot]', type: 'Bot' as const }) }
    // Where GitHub's web pages are: github.com, or for Enterprise Server the API's own host.
    const web = (): string =>
      this.pathPrefix === '' ? 'https://github.com' : (this.url ?? 'http://localhost')
    this.repository = new Repository(
      options.owner ?? 'octo-org',
      options.repo ?? 'octo-repo',
      actor,
      web,
      () => this.clock.now()
    )
    for (const [login, permission] of Object.entries(options.permissions ?? {})) {
      this.setPermission(login, permission)
    }
    this.issueComments = new Comments(this.repository)
    this.reactionStore = new Reactions(this.repository, this.issueComments)
    this.pullRequestsPermission = options.pullRequests ?? 'write'
    this.reviewStore = new Reviews(this.repository, this.issueComments, () => this.pullRequestsPermission)
    this.checksPermission = options.checks ?? 'write'
    this.actionsPermission = options.actions ?? 'read'
    this.logStorageHost = options.logStorageHost ?? '127.0.0.2'
    this.actions = new Actions({
      permission: () => this.actionsPermission,
      repository: () => this.repository.fullName,
      web,
      clock: this.clock
    })
    this.checks = new CheckRuns({
      permission: () => this.checksPermission,
      hasCommit: sha => this.repository.hasCommit(sha),
      pullRequestsAt: (sha, api) => this.repository.pullRequestsAt(sha, api)
    })
  }

  /** Listens (default: any free port on 127.0.0.1) and resolves to the base URL, path prefix included. */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) throw new Error(`The fake GitHub is already listening on ${this.baseUrl}`)
    const { server, url } = await listen((request, response) => this.receive(request, response), port, host)
    this.server = server
    this.url = url
    await this.actions.start(this.logStorageHost)
    return this.baseUrl
  }

  /** Closes the server and the log storage, and every open connection, keep-alive ones included. */
  async stop(): Promise<void> {
    const server = this.server
    if (!server) return
    this.server = undefined
    await Promise.all([close(server), this.actions.stop()])
  }

  /** What GITHUB_API_URL would be: e.g. http://127.0.0.1:PORT, or http://127.0.0.1:PORT/api/v3. */
  get baseUrl(): string {
    if (!this.url) throw new Error('The fake GitHub is not started: call start() first')
    return this.url + this.pathPrefix
  }

  // -- the repository as people change it, and what it holds

  /** The comments on an issue or pull request, in creation order. */
  comments(issueNumber: number): FakeComment[] {
    return this.issueComments.comments(issueNumber)
  }

  /** The comments on a pull request's code, in creation order. */
  reviewComments(pullNumber: number): FakeReviewComment[] {
    return this.issueComments.reviewComments(pullNumber)
  }

  /**
   * A comment someone wrote (now) on a line of a pull request's diff, or a reply in a thread. Ids
   * come from the issue comments' sequence, so ids of both kinds grow with time.
   */
  addReviewComment(pullNumber: number, comment: NewReviewComment): FakeReviewComment {
    return this.issueComments.addReviewComment(pullNumber, comment)
  }

  /** Edits a review comment as its author would through the web interface. */
  editReviewComment(id: number, body: string): FakeReviewComment {
    return this.issueComments.editReviewComment(id, body)
  }

  /** Adds a label to an issue or pull request, as someone would through the web interface. */
  addLabel(number: number, name: string): void {
    this.repository.addLabel(number, name)
  }

  labels(number: number): string[] {
    return this.repository.labels(number)
  }

  /** Assigns an issue or pull request to `login`, as someone would through the web interface. */
  assign(number: number, login: string): void {
    this.repository.assign(number, login)
  }

  assignees(number: number): string[] {
    return this.repository.assignees(number)
  }

  /** Every reaction made through the API, in order. */
  get reactions(): FakeReaction[] {
    return this.reactionStore.list()
  }

  /** A comment someone wrote (now), as if through the web interface. */
  addComment(issueNumber: number, body: string, user: FakeUser): FakeComment {
    return this.issueComments.addComment(issueNumber, body, user)
  }

  /** Edits a comment as its author would through the web interface. */
  editComment(id: number, body: string): FakeComment {
    return this.issueComments.editComment(id, body)
  }

  /** The check runs written through the API, in creation order. */
  checkRuns(): FakeCheckRun[] {
    return this.checks.list()
  }

  /** Check-run requests whose body GitHub's REST description refuses (each was answered 422). */
  get invalidCheckRunRequests(): InvalidCheckRunRequest[] {
    return [...this.checks.invalid]
  }

  /** The reviews of a pull request made through the API, in creation order. */
  reviews(pullNumber: number): FakeReview[] {
    return this.reviewStore.list(pullNumber)
  }

  /** Review requests whose body GitHub's REST description refuses (each was answered 422). */
  get invalidReviewRequests(): InvalidCheckRunRequest[] {
    return [...this.reviewStore.invalid]
  }

  /** The token's `pull-requests` permission for files and reviews from now on, as `permissions:` would set it. */
  setPullRequestsPermission(permission: NonNullable<FakeGitHubOptions['pullRequests']>): void {
    this.pullRequestsPermission = permission
  }

  /** The files of a pull request's diff from now on, with their patches (a push to its branch, say). */
  setPullRequestFiles(number: number, files: FakePullRequestFile[]): void {
    this.repository.setPullRequestFiles(number, files)
  }

  /** The token's `checks` permission from now on, as a workflow's `permissions:` would set it. */
  setChecksPermission(permission: NonNullable<FakeGitHubOptions['checks']>): void {
    this.checksPermission = permission
  }

  /** A completed workflow run with its jobs and their logs, for a CI fix to read. */
  addWorkflowRun(run: FakeWorkflowRun): void {
    this.actions.addWorkflowRun(run)
  }

  /** The token's `actions` permission from now on, as a workflow's `permissions:` would set it. */
  setActionsPermission(permission: NonNullable<FakeGitHubOptions['actions']>): void {
    this.actionsPermission = permission
  }

  /** Every request the log storage received (on its own host), with its Authorization header. */
  get logDownloads(): RecordedLogDownload[] {
    return [...this.actions.downloads]
  }

  /** The log storage's address (another host than baseUrl's). */
  get logStorageUrl(): string {
    return this.actions.storageUrl
  }

  /** Requests whose query GitHub's REST description refuses (each was answered 422). */
  get invalidQueryRequests(): InvalidQueryRequest[] {
    return [...this.actions.invalid]
  }

  /** A commit the repository has (a push, say), so that check runs can be created on it. */
  addCommit(sha: string): void {
    this.repository.addCommit(sha)
  }

  /** The head commit of a pull request the fake has. */
  headSha(number: number): string {
    return this.repository.headSha(number)
  }

  /** Adds the pull request, or replaces the one with its number. */
  addPullRequest(pr: FakePullRequest): void {
    this.repository.addPullRequest(pr)
  }

  /** Plain pull requests: number N is "Change N", from feature/N into main. */
  addPullRequests(...numbers: number[]): void {
    for (const number of numbers)
      this.addPullRequest({
        number,
        title: `Change ${number}`,
        body: '',
        head: `feature/${number}`,
        base: 'main'
      })
  }

  /** A team of `org` and its members' states, as GitHub's team membership endpoint answers them. */
  setTeam(org: string, slug: string, members: Record<string, 'active' | 'pending'>): void {
    this.repository.setTeam(org, slug, members)
  }

  /** Whether the token may read the organization's teams (false: GitHub's 403 on every membership read). */
  setTeamsReadable(readable: boolean): void {
    this.repository.teamsUnreadable = !readable
  }

  setPermission(login: string, role: Permission | CustomRole): void {
    this.repository.setPermission(login, role)
  }

  // -- faults (faults.ts says what each does)

  injectSecondaryRateLimit(times: number, pathPattern?: RegExp, retryAfterSeconds = 1): void {
    this.faults.injectSecondaryRateLimit(times, pathPattern, retryAfterSeconds)
  }

  injectServerError(times: number, pathPattern?: RegExp, status = 500, method?: string): void {
    this.faults.injectServerError(times, pathPattern, status, method)
  }

  injectClientError(times: number, pathPattern?: RegExp, status = 404, message = 'Not Found'): void {
    this.faults.injectClientError(times, pathPattern, status, message)
  }

  injectRedirect(times: number, pathPattern?: RegExp, location?: string): void {
    this.faults.injectRedirect(times, pathPattern, location)
  }

  injectHang(times: number, pathPattern?: RegExp, method?: string): void {
    this.faults.injectHang(times, pathPattern, method)
  }

  injectHold(times: number, pathPattern?: RegExp, method?: string): { release: () => void } {
    return this.faults.injectHold(times, pathPattern, method)
  }

  injectLostAnswer(times: number, how: LostAnswer, pathPattern?: RegExp, method?: string): void {
    this.faults.injectLostAnswer(times, how, pathPattern, method)
  }

  // -- HTTP plumbing

  private receive(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://github.fake')
    const query: Record<string, string> = {}
    for (const [name, value] of url.searchParams) query[name] = value
    const { path, insidePrefix } = withoutPrefix(this.pathPrefix, url.pathname)
    const record: RecordedGitHubRequest = {
      at: this.clock.now(),
      method: request.method ?? 'GET',
      path,
      query,
      body: undefined,
      authorization: request.headers.authorization,
      status: 0
    }
    this.requests.push(record)
    const hang = this.faults.takeHang(record.method, path)
    if (hang && !hang.released) {
      request.resume()
      // Never answered: held until the client gives up (or the fake stops).
      void this.clock.hold(request, new Promise(resolve => response.once('close', resolve)))
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
      const released = hang?.released ? this.clock.hold(request, hang.released) : Promise.resolve()
      const lost = this.faults.takeLoss(record.method, path)
      void released.then(() => {
        if (lost)
          return loseAnswer(this.clock, this.writer, lost, record, { request, response, answer }, () =>
            limit.count(record.at)
          )
        record.status = answer.status
        record.answeredAt = this.clock.now()
        this.writer.write(response, answer, limit.count(record.at))
      })
    })
  }

  /** Faults first (they stand for GitHub's front end), then authentication, routing and the endpoint. */
  private answer(
    record: RecordedGitHubRequest,
    insidePrefix: boolean,
    body: ParsedBody,
    authenticated: boolean,
    api: string
  ): Answer {
    const fault = this.faults.takeFault(record.method, record.path)
    if (fault) return fault
    const stores = {
      repository: this.repository,
      comments: this.issueComments,
      reactions: this.reactionStore,
      checks: this.checks,
      reviews: this.reviewStore,
      actions: this.actions,
      identityVisible: this.identityVisible
    }
    return route(stores, { record, insidePrefix, body, authenticated, api })
  }
}
