import type { ServerClock } from '../../emulator/loopback-server.js'
/**
 * Types of the fake GitHub REST API: what tests seed and inspect (the Fake* types) and the options;
 * the wire shapes the fake answers with are in shapes.ts.
 */

// ---------------------------------------------------------------------------------------------
// What tests seed and inspect

/** A configured repository permission, as the collaborator permission endpoint's role_name says it. */
export type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'

/**
 * A custom repository role, as organizations define them: role_name is its own name, the legacy
 * `permission` and `user.permissions` are those of the base role it extends.
 */
export interface CustomRole {
  name: string
  base: Exclude<Permission, 'none'>
}

export interface FakeUser {
  login: string
  type: 'User' | 'Bot'
}

/** An issue (or pull request) comment, as the fake holds it. */
export interface FakeComment {
  id: number
  issueNumber: number
  body: string
  user: FakeUser
  created_at: string
  updated_at: string
  html_url: string
}

/** A review comment's fields that the fake stores and shows under the same names. */
export interface ReviewCommentBase {
  id: number
  pullNumber: number
  body: string
  user: FakeUser
  path: string
  /** The (last) line commented on; null for a comment on the whole file. */
  line: number | null
  side: 'LEFT' | 'RIGHT'
}

/** A comment on a pull request's code (a review comment), as the fake holds it. */
export interface FakeReviewComment extends ReviewCommentBase {
  start_line: number | null
  diff_hunk: string
  /** The thread's first comment, for a reply; GitHub keeps threads flat. */
  in_reply_to_id?: number
  created_at: string
  updated_at: string
  html_url: string
}

/** What a test seeds as a review comment: someone's comment on a line of the diff. */
export interface NewReviewComment {
  body: string
  user: FakeUser
  path?: string
  line?: number | null
  startLine?: number | null
  side?: 'LEFT' | 'RIGHT'
  diffHunk?: string
  /** Reply in the thread of this comment. */
  inReplyTo?: number
}

/** An issue as a test seeds it (a pull request is an issue too, with its own title and body). */
export interface FakeIssue {
  number: number
  title: string
  body: string
  user: FakeUser
}

/** A review someone submitted, as a test seeds it. */
export interface NewReview {
  body: string
  user: FakeUser
  state?: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED'
}

/** A reaction someone (the actor, through the API) put on a comment or on an issue. */
export interface FakeReaction {
  target: { commentId: number } | { reviewCommentId: number } | { issueNumber: number }
  content: string
  user: FakeUser
}

export interface FakePullRequest {
  number: number
  title: string
  body: string
  /** Head branch name. */
  head: string
  /** Base branch name. */
  base: string
  /** Who opened it; default `{ login: 'octocat', type: 'User' }`. */
  user?: FakeUser
  /** The head repository's full name (another one for a fork); default the fake's repository. */
  headRepository?: string
  /** The head commit (40 hex digits); default one derived from the head repository and branch. */
  headSha?: string
  /** The files its diff changes, as GET /pulls/{n}/files lists them; default none. */
  files?: FakePullRequestFile[]
}

/** A file of a pull request's diff: its path in the head, and its unified diff (absent for a binary or huge file). */
export interface FakePullRequestFile {
  filename: string
  status?: 'added' | 'removed' | 'modified' | 'renamed'
  patch?: string
}

/** A review of a pull request, as the fake holds it. */
export interface FakeReview {
  id: number
  pullNumber: number
  user: FakeUser
  body: string
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'PENDING'
  commit_id: string
  submitted_at: string | null
  /** The ids of the review comments it made, in order. */
  comments: number[]
}

/** A check run's annotation as the fake holds it (the fields of the request that added it). */
export interface FakeAnnotation {
  path: string
  start_line: number
  end_line: number
  annotation_level: 'notice' | 'warning' | 'failure'
  title?: string
  message: string
  start_column?: number
  end_column?: number
  raw_details?: string
}

/** A job of a workflow run, as a test seeds it. */
export interface FakeJob {
  /** Default: the next of the fake's job ids. */
  id?: number
  name: string
  conclusion:
    'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required' | null
  /** Its steps, numbered from 1 in order unless they say otherwise. */
  steps?: Array<{ name: string; conclusion: string | null; number?: number }>
  /** Its log as the runner wrote it; null: GitHub no longer has it (410). */
  log?: string | Uint8Array | null
  /** The run's attempt it belongs to; default the run's. */
  runAttempt?: number
}

/** A completed workflow run, as a test seeds it. */
export interface FakeWorkflowRun {
  id: number
  /** The workflow's name. */
  name: string
  headBranch: string
  headSha: string
  /** Its latest attempt (default 1): `filter=latest` lists that attempt's jobs. */
  runAttempt?: number
  jobs: FakeJob[]
}

/** A request whose query GitHub's REST description refuses (answered 422). */
export interface InvalidQueryRequest {
  method: string
  path: string
  query: Record<string, string>
  problems: string[]
}

/** A request the log storage received. */
export interface RecordedLogDownload {
  at: number
  method: string
  /** The Host header: the storage's own, not GitHub's. */
  host: string
  path: string
  authorization: string | undefined
  status: number
}

/** A check run as the fake holds it, with GitHub's field names. */
export interface FakeCheckRun {
  id: number
  name: string
  head_sha: string
  status: 'queued' | 'in_progress' | 'completed'
  conclusion: CheckConclusion | null
  details_url: string | null
  external_id: string | null
  started_at: string | null
  completed_at: string | null
  output: { title: string | null; summary: string | null; text: string | null }
  /** Its annotations, every write's appended to those before (as GitHub does). */
  annotations: FakeAnnotation[]
  /** How many times it was written (its creation included). */
  writes: number
}

export type CheckConclusion =
  'action_required' | 'cancelled' | 'failure' | 'neutral' | 'success' | 'skipped' | 'stale' | 'timed_out'

/** A check-run request whose body GitHub's REST description refuses (answered 422). */
export interface InvalidCheckRunRequest {
  method: string
  path: string
  body: unknown
  problems: string[]
}

export interface RecordedGitHubRequest {
  /** The clock's now at arrival. */
  at: number
  method: string
  /** The path without the query string and without the options' pathPrefix. */
  path: string
  /** Query parameters (the last value of a repeated one). */
  query: Record<string, string>
  /** The JSON body, or its raw text when it is not JSON; undefined when there is none. */
  body: unknown
  authorization: string | undefined
  /** The Accept header: `application/vnd.github.full+json` asks for a text's HTML too. */
  accept?: string
  status: number
  /** The clock's now when it was answered; undefined while it is not. */
  answeredAt?: number
  /** The work was done and its answer lost (injectLostAnswer): `status` is what the client got. */
  applied?: true
}

export interface FakeGitHubOptions {
  /** Default 'octo-org'. */
  owner?: string
  /** Default 'octo-repo'. */
  repo?: string
  /**
   * The one token accepted (default 'github-token'), as `Authorization: token X` or `Bearer X`;
   * anything else is 401.
   */
  token?: string
  /** login -> permission on the repository; everyone else has 'none'. */
  permissions?: Record<string, Permission | CustomRole>
  /** Who the token acts as; default `{ login: 'github-actions[bot]', type: 'Bot' }`. */
  actor?: FakeUser
  /** Whether GET /user answers the actor; default false, a 403 as for a GITHUB_TOKEN. */
  identityVisible?: boolean
  /** Default ''; '/api/v3' looks like GitHub Enterprise Server. */
  pathPrefix?: string
  /**
   * The token's `checks` permission (a workflow's `permissions:`): default 'write'. Without write,
   * creating or updating a check run is 403; without read, reading one is too.
   */
  checks?: 'write' | 'read' | 'none'
  /**
   * The token's `actions` permission: default 'read'. Without it, a workflow run's jobs and a job's
   * log are 403.
   */
  actions?: 'read' | 'none'
  /** The host the log storage listens on, another name than GitHub's own: default 127.0.0.2. */
  logStorageHost?: string
  /**
   * The token's `pull-requests` permission for a pull request's files and reviews: default 'write'.
   * Without write, creating a review is 403; without read, listing files and reviews is too.
   */
  pullRequests?: 'write' | 'read' | 'none'
  /**
   * Where the signed addresses of the attachments in a text's HTML (full+json's body_html) point:
   * default GitHub's https://private-user-images.githubusercontent.com; 'self' the fake's own origin,
   * which serves them (`texts.addImage`), as GitHub Enterprise Server does. Each carries `jwt=` the
   * fake's imageToken.
   */
  imageOrigin?: string
  /**
   * Its time: when comments and requests are dated, and the waits of hangs and holds; default the
   * system's. A test shares its virtual clock with the action (emulator/loopback-server.ts).
   */
  clock?: ServerClock
}
