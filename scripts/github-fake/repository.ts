import { createHash } from 'node:crypto'
import {
  gitHubError,
  json,
  nodeId,
  notFound,
  positiveInteger,
  timestamp,
  userAddresses,
  type Answer
} from './answers.js'
import type { Call } from './routes.js'
import type { CustomRole, FakePullRequest, FakePullRequestFile, FakeUser, Permission } from './types.js'
import type {
  AuthorAssociation,
  GitHubLabel,
  GitHubPermissionAnswer,
  GitHubPullRequest,
  GitHubRepositoryRef,
  GitHubUser
} from './shapes.js'

/**
 * The one repository the fake serves and the people around it: collaborators' permissions, pull
 * requests with their labels, assignees and commits, the users the fake has seen; and the wire
 * shapes of users, labels and repositories every endpoint embeds.
 */

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

const REPOSITORY_ID = 700_000_001

interface StoredPullRequest extends FakePullRequest {
  createdAt: number
}

export class Repository {
  /** Lower-cased login -> the login as configured, its (base) permission and its role's name. */
  private readonly permissions = new Map<string, { login: string; permission: Permission; role: string }>()
  /** Lower-cased login -> the user as first seen, and its id. */
  private readonly users = new Map<string, { user: FakeUser; id: number }>()
  /** Issue or pull request number -> its labels and its assignees' logins, in the order added. */
  private readonly labelsByNumber = new Map<number, string[]>()
  private readonly assigneesByNumber = new Map<number, string[]>()
  private readonly pullRequests = new Map<number, StoredPullRequest>()
  /** Commits the repository has besides its pull requests' heads and bases (lower-case shas). */
  private readonly commits = new Set<string>()
  private nextUserId = 1001
  /** `org/slug` (lower case) -> lower-cased login -> its membership's state. */
  private readonly teams = new Map<string, Map<string, 'active' | 'pending'>>()
  /** The token may not read the organization's teams (GitHub's 403). */
  teamsUnreadable = false

  constructor(
    readonly owner: string,
    readonly repo: string,
    /** Who the token acts as. */
    readonly actor: FakeUser,
    /** Where GitHub's web pages are: github.com, or for Enterprise Server the API's own host. */
    readonly webBase: () => string,
    /** The fake's clock: what is written is dated by it. */
    readonly now: () => number
  ) {
    this.knownUser(actor)
  }

  get fullName(): string {
    return `${this.owner}/${this.repo}`
  }

  /** Owner and repository names are case-insensitive on GitHub. */
  isOurs(owner: string, repo: string | undefined): boolean {
    return owner.toLowerCase() === this.owner.toLowerCase() && repo?.toLowerCase() === this.repo.toLowerCase()
  }

  setPermission(login: string, role: Permission | CustomRole): void {
    const permission = typeof role === 'string' ? role : role.base
    if (!PERMISSION_RANK.includes(permission)) throw new Error(`Unknown permission ${String(permission)}`)
    const name = typeof role === 'string' ? role : role.name
    this.permissions.set(login.toLowerCase(), { login, permission, role: name })
  }

  /** A team of `org` and its members (a team GitHub does not know, or a login not in it, answers 404). */
  setTeam(org: string, slug: string, members: Record<string, 'active' | 'pending'>): void {
    const byLogin = new Map(Object.entries(members).map(([login, state]) => [login.toLowerCase(), state]))
    this.teams.set(`${org}/${slug}`.toLowerCase(), byLogin)
  }

  /** GET /orgs/{org}/teams/{team_slug}/memberships/{username}: 200 with role and state, 404 for no membership. */
  getTeamMembership(call: Call): Answer {
    const { org = '', team_slug: slug = '', username = '' } = call.params
    if (this.teamsUnreadable)
      return gitHubError(403, 'Resource not accessible by integration', call.route.documentationUrl)
    const state = this.teams.get(`${org}/${slug}`.toLowerCase())?.get(username.toLowerCase())
    if (!state) return notFound(call.route.documentationUrl)
    return json({
      url: `${call.api}/organizations/1/team/1/memberships/${encodeURIComponent(username)}`,
      role: 'member',
      state
    })
  }

  /** Adds the pull request, or replaces the one with its number. */
  addPullRequest(pr: FakePullRequest): void {
    const user = { ...(pr.user ?? { login: 'octocat', type: 'User' }) }
    this.knownUser(user)
    this.pullRequests.set(pr.number, { ...pr, user, createdAt: this.now() })
  }

  hasPullRequest(number: number): boolean {
    return this.pullRequests.has(number)
  }

  /** The files of a pull request's diff, as it was given them; undefined for no such pull request. */
  pullRequestFiles(number: number): FakePullRequestFile[] | undefined {
    return (
      this.pullRequests.get(number)?.files?.map(file => ({ ...file })) ??
      (this.pullRequests.has(number) ? [] : undefined)
    )
  }

  /** Replaces the files of a pull request's diff (a push to its branch, say). */
  setPullRequestFiles(number: number, files: FakePullRequestFile[]): void {
    const pr = this.pullRequests.get(number)
    if (!pr) throw new Error(`No pull request ${number}`)
    pr.files = files.map(file => ({ ...file }))
  }

  /** The head commit of a pull request the fake has. */
  headSha(number: number): string {
    const pr = this.pullRequests.get(number)
    if (!pr) throw new Error(`No pull request ${number}`)
    return this.headShaOf(pr)
  }

  /** The head commit of pull request `number`, or of no branch when there is none. */
  headShaOr(number: number): string {
    const pr = this.pullRequests.get(number)
    return pr ? this.headShaOf(pr) : this.shaOf(this.fullName, '')
  }

  addCommit(sha: string): void {
    this.commits.add(sha.toLowerCase())
  }

  /** Whether the repository has this commit: one added, or a pull request's head or base. */
  hasCommit(sha: string): boolean {
    if (this.commits.has(sha)) return true
    return [...this.pullRequests.values()].some(
      pr => this.headShaOf(pr) === sha || this.shaOf(this.fullName, pr.base) === sha
    )
  }

  addLabel(number: number, name: string): void {
    addOnce(this.labelsByNumber, number, name)
  }

  labels(number: number): string[] {
    return [...(this.labelsByNumber.get(number) ?? [])]
  }

  assign(number: number, login: string): void {
    addOnce(this.assigneesByNumber, number, login)
  }

  assignees(number: number): string[] {
    return [...(this.assigneesByNumber.get(number) ?? [])]
  }

  /** Remembers a user (the first spelling of a login wins) and gives it an id. */
  knownUser(user: FakeUser): number {
    const key = user.login.toLowerCase()
    const known = this.users.get(key)
    if (known) return known.id
    const id = KNOWN_USER_IDS[key] ?? this.nextUserId++
    this.users.set(key, { user: { ...user }, id })
    return id
  }

  /** The repository's own pull requests whose head is `sha`, as a check run lists them. */
  pullRequestsAt(sha: string, api: string): Array<Record<string, unknown>> {
    const ours = this.fullName
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

  getPermission(call: Call): Answer {
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

  getPullRequest(call: Call): Answer {
    const number = positiveInteger(call.params.pull_number)
    const pr = number === undefined ? undefined : this.pullRequests.get(number)
    if (!pr) return notFound(call.route.documentationUrl)
    const user = pr.user ?? { login: 'octocat', type: 'User' }
    const ours = this.fullName
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

  /** A user with every address GitHub's simple-user has (a review's answer is held to it whole). */
  simpleUser(user: FakeUser, api: string): Record<string, unknown> {
    const wire = this.wireUser(user, api)
    return { ...wire, ...userAddresses(wire.url) }
  }

  wireUser(user: FakeUser, api: string): GitHubUser {
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

  /** The repository owner is OWNER; anyone with a permission COLLABORATOR (org membership is not modelled). */
  association(login: string): AuthorAssociation {
    if (login.toLowerCase() === this.owner.toLowerCase()) return 'OWNER'
    return (this.permissions.get(login.toLowerCase())?.permission ?? 'none') === 'none'
      ? 'NONE'
      : 'COLLABORATOR'
  }

  /** A branch's commit: derived from the repository and branch, so every test sees the same one. */
  private shaOf(repository: string, branch: string): string {
    return createHash('sha1').update(`${repository}:${branch}`).digest('hex')
  }

  private headShaOf(pr: FakePullRequest): string {
    return pr.headSha?.toLowerCase() ?? this.shaOf(pr.headRepository ?? this.fullName, pr.head)
  }

  /** A known user by login, or a person of that name. */
  private userNamed(login: string): FakeUser {
    return this.users.get(login.toLowerCase())?.user ?? { login, type: 'User' }
  }

  private wireLabel(name: string, api: string): GitHubLabel {
    const id =
      600_000_000 + [...name].reduce((sum, char) => (sum * 31 + char.codePointAt(0)!) % 100_000_000, 7)
    return {
      id,
      node_id: nodeId('Label', id),
      url: `${api}/repos/${this.fullName}/labels/${encodeURIComponent(name)}`,
      name,
      color: 'ededed',
      default: false,
      description: null
    }
  }

  private repositoryRef(fullName: string, api: string): GitHubRepositoryRef {
    const [owner = '', name = ''] = fullName.split('/')
    const id = fullName.toLowerCase() === this.fullName.toLowerCase() ? REPOSITORY_ID : REPOSITORY_ID + 1
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
}

/** Adds `value` to the list of `number` unless there in any case (GitHub's labels and logins ignore it). */
function addOnce(lists: Map<number, string[]>, number: number, value: string): void {
  const list = lists.get(number) ?? []
  if (!list.some(known => known.toLowerCase() === value.toLowerCase())) list.push(value)
  lists.set(number, list)
}
