import type { CheckAnnotation, CheckRunText } from '../github-shapes.js'
import type { LogTail } from './log-tail.js'

/**
 * What the action asks of GitHub, and the shapes of GitHub's answers as the action reads them: one
 * interface, which octokit-api.ts implements (tests run it against a fake GitHub on loopback).
 */

/** Who wrote a comment, a review or an issue: their login and account type (User, Bot…). */
export interface Author {
  login: string
  type: string
}

/** The pull request's branches; the head may be a fork's. */
export interface PullRequestInfo {
  head: string
  base: string
  /** owner/name of the head's repository ('' when GitHub no longer knows it, a deleted fork). */
  headRepository: string
  /** The head commit, as the event or the pull request gives it ('' when it does not). */
  headSha?: string
}

/** A comment of an issue, a pull request or a review thread, as far as the action reads it back. */
export interface CommentSummary {
  id: number
  body: string
  author: Author
  /** ISO 8601, as GitHub gives it: orders issue comments and review comments together. */
  createdAt?: string
  /** ISO 8601: when it was last edited (its creation when never): an approval written before it did not see what it shows. */
  updatedAt?: string
  /** A comment on the pull request's code: the first comment of its review thread. */
  reviewThread?: number
}

/** A failed job as read from GitHub: its failed steps by number and name. */
export interface FailedJob {
  id: number
  name: string
  /** failure, timed_out, cancelled… */
  conclusion: string
  failedSteps: Array<{ number: number; name: string; conclusion: string }>
}

export type Reaction = 'eyes' | 'rocket' | 'confused' | '+1'

/** An issue comment, a comment on a pull request's code, or the issue or pull request itself. */
export type ReactionTarget = { commentId: number } | { reviewCommentId: number } | { issueNumber: number }

export interface Permission {
  role: string
  permission: string
}

/** What a check run's write sends: its text, and where it points. */
export interface CheckRunWrite extends CheckRunText {
  detailsUrl?: string
  externalId?: string
}

/** A file of a pull request's diff: its path in the head, and its patch (GitHub leaves it out for a large or binary file). */
export interface PullRequestFile {
  filename: string
  patch?: string
}

/** A review of a pull request, as far as the action reads it back. */
export interface ReviewSummary {
  id: number
  body: string
  author: Author
  /** ISO 8601, as GitHub gives it; none while the review is pending. */
  submittedAt?: string
}

/** A text read alone: the issue's or pull request's body, an issue comment, a review comment, a review. */
export type TextSource =
  | { issueNumber: number }
  | { commentId: number }
  | { reviewCommentId: number }
  | { pullNumber: number; reviewId: number }

/** A text as GitHub renders it (full+json): its Markdown and its HTML, whose images carry signed addresses. */
export interface RenderedText {
  body: string
  /** `body_html`: a signed address in it is a credential for a short while, never shown. */
  html: string
  author: Author
  /** ISO 8601 (a review's: when it was submitted); '' when GitHub gives none. */
  createdAt: string
}

/** A comment of a new review, on lines of the diff's new side. */
export interface NewReviewComment {
  path: string
  body: string
  line: number
  side: 'RIGHT'
  start_line?: number
  start_side?: 'RIGHT'
}

/** GitHub's API as the comment workflow uses it. Tests run the action against a fake GitHub on loopback. */
export interface GitHubApi {
  /**
   * The commenter's role (admin, maintain, write, triage, read, none, or a custom role's name) and
   * the legacy permission (admin, write, read or none; maintain reads as write there).
   */
  permission(login: string): Promise<Permission>
  pullRequestBranches(number: number): Promise<PullRequestInfo>
  /** The pull request's title and address, with its branches. */
  pullRequest(number: number): Promise<PullRequestInfo & { title: string; url: string }>
  /**
   * The failed (or timed out) jobs of the workflow run's latest attempt with their failed steps,
   * read page by page (at most MAX_JOB_PAGES of 100 jobs), and how many jobs failed in all.
   */
  failedJobs(runId: number): Promise<{ jobs: FailedJob[]; failedCount: number }>
  /**
   * The end of a job's log: GitHub answers with a redirect to the log's storage on another host,
   * which is read without the token, as a stream of which only the end is kept (log-tail.ts).
   */
  jobLogTail(jobId: number): Promise<LogTail>
  listComments(issueNumber: number): Promise<CommentSummary[]>
  /**
   * A comment: its id. Its answer lost, it is looked for by the create mark its body's first line
   * holds (`createMarkerLine`) and sent again only when it is not there; without one, never again.
   */
  createComment(issueNumber: number, body: string): Promise<number>
  updateComment(commentId: number, body: string): Promise<void>
  /** The comments on a pull request's code, each with its review thread (`reviewThread`). */
  listReviewComments(pullNumber: number): Promise<CommentSummary[]>
  /** A reply in the review thread whose first comment is `threadId`; sent once as a comment is. */
  createReviewReply(pullNumber: number, threadId: number, body: string): Promise<number>
  updateReviewComment(commentId: number, body: string): Promise<void>
  react(target: ReactionTarget, content: Reaction): Promise<void>
  /**
   * Whether `login` is an active member of the team `org/slug` (GET /orgs/{org}/teams/{team_slug}/memberships/{username}):
   * GitHub answers 404 for no membership, a pending one reads as none; a 404 also comes for a team
   * the token cannot see, so it is never taken as more than "not a member". Any other failure
   * (403: the token may not read the organization's teams) is thrown: the membership is unknown.
   */
  teamMember(org: string, slug: string, login: string): Promise<boolean>
  /** The login the token acts as, when GitHub tells (a GITHUB_TOKEN cannot ask). */
  identity(): Promise<string | undefined>
  /**
   * A check run named `name` on the commit `headSha`: its id, or undefined when it could not be
   * written. Never throws: a failure is a warning, and a token without `checks: write` is said once,
   * after which no check run write is sent. Its create carries an `external_id` of its own, random,
   * in place of `check.externalId` (the run id goes with the updates): an answer lost, the check run
   * is looked for by it, its name and commit, and sent again only when it is not there.
   */
  createCheckRun(name: string, headSha: string, check: CheckRunWrite): Promise<number | undefined>
  /**
   * The check run `name` on `headSha` whose create's answer was lost and that no look could find
   * (GitHub could not be read then): looked for once more, by its create's own `external_id`, so
   * that it is concluded all the same; undefined when there is none or it is still not found.
   */
  findLostCheckRun(name: string, headSha: string): Promise<number | undefined>
  /** Rewrites the check run; false when it could not (a warning, as for createCheckRun). */
  updateCheckRun(id: number, check: CheckRunWrite): Promise<boolean>
  /**
   * Adds at most 50 annotations to the check run (GitHub appends those of every write), its title and
   * summary written again as they are. Sent once: a failure whose effect is unknown is not retried,
   * since a second write could append them twice. False when it failed (a warning).
   */
  annotateCheckRun(
    id: number,
    text: Pick<CheckRunText, 'title' | 'summary'>,
    annotations: CheckAnnotation[]
  ): Promise<boolean>
  /**
   * The pull request's files, a page at a time, each handed to `each` in order; reading stops once
   * `each` returns true (every file wanted was seen).
   */
  pullRequestFiles(pullNumber: number, each: (file: PullRequestFile) => boolean): Promise<void>
  listReviews(pullNumber: number): Promise<ReviewSummary[]>
  /** One text with its HTML (`Accept: application/vnd.github.full+json`), for the images in it. */
  renderedText(source: TextSource): Promise<RenderedText>
  /**
   * A review (event COMMENT) on `commitId`: its id. Its answer lost, it is looked for with `find`
   * (the caller knows its own review) and sent again only when no look found it, as a comment is.
   */
  createReview(
    pullNumber: number,
    review: { commitId: string; body: string; comments: NewReviewComment[] },
    find: () => Promise<number | undefined>
  ): Promise<number>
}
