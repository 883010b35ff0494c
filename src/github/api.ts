import { randomBytes } from 'node:crypto'
import { getOctokit } from '@actions/github'
import { timeLimit, type Clock } from '../clock.js'
import {
  CHECK_SUMMARY_MAX_BYTES,
  CHECK_TITLE_MAX_BYTES,
  createMarkOf,
  cutUtf8,
  type CheckAnnotation,
  type CheckRunText
} from '../github-shapes.js'
import { logTail, TailBuffer, type LogTail } from './log-tail.js'
import {
  answerLost,
  GitHubRequestPolicy,
  isRateLimit,
  NotSentError,
  stopReason,
  type RouteOptions
} from './request-policy.js'
import { wellFormed } from './well-formed.js'

/** How long one request to GitHub may take (a retry or a rate-limit wait starts a new one). */
export const GITHUB_REQUEST_TIMEOUT_MS = 30_000

/**
 * GitHub's side of the network, each call ending after GITHUB_REQUEST_TIMEOUT_MS on the clock or
 * when `stop` aborts. Stopped, it fails as an AbortError, which the request policy does not retry.
 */
function timedFetch(
  fetch: typeof globalThis.fetch,
  clock: Clock,
  stop: AbortSignal | undefined
): typeof globalThis.fetch {
  return async (input, init) => {
    const limit = timeLimit(clock, GITHUB_REQUEST_TIMEOUT_MS, new Error('time limit'))
    const signals = [init?.signal, stop, limit.signal]
    try {
      // The whole answer within the limit: Octokit reads the body once fetch has resolved.
      const response = await fetch(input, {
        ...init,
        signal: AbortSignal.any(signals.filter(signal => !!signal))
      })
      const body = await response.arrayBuffer()
      const read = new Response(nullBodyStatus(response.status) ? null : body, response)
      return Object.defineProperty(read, 'url', { value: response.url })
    } catch (error) {
      // An AbortError: neither the request policy nor Octokit retries it.
      const lost = (message: string): Error => Object.assign(new Error(message), { name: 'AbortError' })
      if (stop?.aborted) throw lost(`GitHub did not answer in time (${stopReason(stop)})`)
      if (limit.signal.aborted)
        throw lost(`GitHub did not answer within ${GITHUB_REQUEST_TIMEOUT_MS / 1000} s`)
      throw error
    } finally {
      limit.clear()
    }
  }
}

/** What a stream read within its time limit kept: the answer's status and headers, its body's end. */
interface TailRead {
  status: number
  headers: Headers
  tail: TailBuffer
}

/**
 * Reads an answer's body as a stream, keeping only its end (TailBuffer), within
 * GITHUB_REQUEST_TIMEOUT_MS on the clock or until `stop` aborts: a job's log of any size, in
 * bounded memory. Sends what `init` holds and nothing more (no token unless `init` has one).
 */
async function readTail(
  fetch: typeof globalThis.fetch,
  clock: Clock,
  stop: AbortSignal | undefined,
  input: Parameters<typeof globalThis.fetch>[0],
  init: RequestInit
): Promise<TailRead> {
  const limit = timeLimit(clock, GITHUB_REQUEST_TIMEOUT_MS, new Error('time limit'))
  const signals = [init.signal ?? undefined, stop, limit.signal].filter(
    (signal): signal is AbortSignal => !!signal
  )
  try {
    const response = await fetch(input, { ...init, signal: AbortSignal.any(signals) })
    const tail = new TailBuffer()
    const reader = response.body?.getReader()
    for (let read = await reader?.read(); read && !read.done; read = await reader?.read())
      tail.push(read.value)
    return { status: response.status, headers: response.headers, tail }
  } catch (error) {
    const lost = (message: string): Error => Object.assign(new Error(message), { name: 'AbortError' })
    if (stop?.aborted) throw lost(`GitHub did not answer in time (${stopReason(stop)})`)
    if (limit.signal.aborted) throw lost(`the log was not read within ${GITHUB_REQUEST_TIMEOUT_MS / 1000} s`)
    throw error
  } finally {
    limit.clear()
  }
}

/** Statuses whose answer has no body (a Response built with one throws). */
function nullBodyStatus(status: number): boolean {
  return status === 101 || status === 204 || status === 205 || status === 304
}

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
  /** A review (event COMMENT) on `commitId`: its id. Sent once, as an annotation is. */
  createReview(
    pullNumber: number,
    review: { commitId: string; body: string; comments: NewReviewComment[] }
  ): Promise<number>
}

/** Looks for a create whose answer was lost, 1, 4 and 9 s after it, as many as a read's retries. */
const LOOKS_AFTER_A_LOST_ANSWER = 3

/** Pages of a commit's check runs read at most when one is looked for: 1,000 check runs. */
const MAX_CHECK_RUN_PAGES = 10

/** Pages of a workflow run's jobs read at most: a run has at most 256 jobs of a matrix, and a few more. */
export const MAX_JOB_PAGES = 5

/** The conclusions of a job (and of a step) that failed: the ones a CI fix looks at. */
const FAILED = new Set(['failure', 'timed_out'])

export interface OctokitConfig {
  token: string
  repository: string
  /** GITHUB_API_URL: GitHub Enterprise Server has its own. */
  apiUrl: string
  warn: (message: string) => void
  /**
   * Aborted when GitHub calls must end (the step's deadline, or soon after a cancellation): every
   * request, retry and rate-limit wait gives up then.
   */
  signal?: AbortSignal
  /** When `signal` aborts at the latest (epoch ms): a rate-limit wait that would end later is not made. */
  stopAt?: number
  /** Every wait (write spacing, rate limits, retries, time limits) is a sleep on it. */
  clock: Clock
  /** Why nothing new may be created any more (request-policy.ts: such a create is not sent). */
  stopped?: () => string | undefined
  /** Aborted when the job is cancelled: the writes that conclude go at once. */
  cancellation?: AbortSignal
  /** GitHub's side of the network (default: the platform's fetch). */
  fetch?: typeof globalThis.fetch
}

/**
 * @actions/github's client, its requests spaced, waited and retried by the request policy on the
 * action's clock (request-policy.ts), each bounded by the step's GitHub deadline.
 */
export class OctokitGitHubApi implements GitHubApi {
  private readonly octokit
  private readonly owner: string
  private readonly repo: string
  private readonly warn: (message: string) => void
  private readonly config: OctokitConfig
  /** Set once GitHub refused a check run for the token's permissions: no more are sent. */
  private checksRefused = false
  private checkWriteErrors = 0
  /** The create marks of comments whose create's answer was lost and that were not found since. */
  private readonly lostMarks = new Set<string>()

  constructor(config: OctokitConfig) {
    const [owner = '', repo = ''] = config.repository.split('/')
    this.owner = owner
    this.repo = repo
    this.warn = config.warn
    this.config = config
    this.octokit = getOctokit(config.token, {
      baseUrl: config.apiUrl,
      // Each attempt has its own time limit, and every one is aborted with the signal.
      request: { fetch: timedFetch(config.fetch ?? globalThis.fetch, config.clock, config.signal) }
    })
    const policy = new GitHubRequestPolicy(config)
    this.octokit.hook.wrap('request', (request, options) =>
      policy.send(async next => request(next as typeof options), options as unknown as RouteOptions)
    )
    // Every request's parameters (bodies included) well-formed, here at the boundary, whoever wrote them.
    this.octokit.hook.before('request', options => {
      const params = options as unknown as Record<string, unknown>
      for (const key of Object.keys(params))
        if (key !== 'request' && key !== 'headers') params[key] = wellFormed(params[key])
    })
  }

  private get repoParams(): { owner: string; repo: string } {
    return { owner: this.owner, repo: this.repo }
  }

  async permission(login: string): Promise<Permission> {
    let data: { permission: string; role_name?: string }
    try {
      ;({ data } = await this.octokit.rest.repos.getCollaboratorPermissionLevel({
        ...this.repoParams,
        username: login
      }))
    } catch (error) {
      // GitHub answers 404 for a login that is no collaborator (and for one that does not exist).
      if ((error as { status?: number }).status === 404) return { role: 'none', permission: 'none' }
      throw error
    }
    // role_name tells maintain and triage apart from write and read, or names a custom role.
    return {
      role: (data as { role_name?: string }).role_name || data.permission,
      permission: data.permission
    }
  }

  async pullRequestBranches(number: number): Promise<PullRequestInfo> {
    const { head, base, headRepository, headSha } = await this.pullRequest(number)
    return { head, base, headRepository, headSha }
  }

  async pullRequest(number: number): Promise<PullRequestInfo & { title: string; url: string }> {
    const { data } = await this.octokit.rest.pulls.get({ ...this.repoParams, pull_number: number })
    return {
      head: data.head.ref,
      base: data.base.ref,
      headRepository: data.head.repo?.full_name ?? '',
      headSha: data.head.sha,
      title: data.title,
      url: data.html_url
    }
  }

  async failedJobs(runId: number): Promise<{ jobs: FailedJob[]; failedCount: number }> {
    let pages = 0
    const all = await this.octokit.paginate(
      this.octokit.rest.actions.listJobsForWorkflowRun,
      { ...this.repoParams, run_id: runId, filter: 'latest', per_page: 100 },
      (response, done) => {
        if (++pages >= MAX_JOB_PAGES) done()
        return response.data
      }
    )
    const failed = all.filter(job => FAILED.has(job.conclusion ?? ''))
    const jobs = failed.map(job => ({
      id: job.id,
      name: job.name,
      conclusion: job.conclusion ?? '',
      failedSteps: (job.steps ?? [])
        .filter(step => FAILED.has(step.conclusion ?? ''))
        .map(step => ({ number: step.number, name: step.name, conclusion: step.conclusion ?? '' }))
    }))
    return { jobs, failedCount: failed.length }
  }

  async jobLogTail(jobId: number): Promise<LogTail> {
    const { clock, signal, apiUrl } = this.config
    const fetch = this.config.fetch ?? globalThis.fetch
    // GitHub's answer itself (a redirect, or the log when a server serves it at once) read as a stream too.
    let direct: TailBuffer | undefined
    const answer = await this.octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
      ...this.repoParams,
      job_id: jobId,
      request: {
        redirect: 'manual',
        fetch: async (input: string, init: RequestInit) => {
          const read = await readTail(fetch, clock, signal, input, init)
          direct = read.tail
          return new Response(nullBodyStatus(read.status) ? null : read.tail.bytes(), {
            status: read.status,
            headers: withoutLength(read.headers)
          })
        }
      }
    })
    if (answer.status < 300 || answer.status >= 400) {
      const tail = direct ?? new TailBuffer()
      return logTail(tail.bytes(), tail.total)
    }
    // Said apart: an empty Location would resolve to the API's own address, which is no log.
    const location = (answer.headers as Record<string, string | undefined>).location?.trim()
    if (!location)
      throw new Error(`GitHub answered ${answer.status} without a Location header: no log address to follow`)
    // The address itself is never shown: it is signed for this read.
    const storage = URL.canParse(location, apiUrl) ? new URL(location, apiUrl) : undefined
    if (!storage || !/^https?:$/.test(storage.protocol))
      throw new Error(
        `GitHub answered ${answer.status} with a Location that is no http(s) address: no log address to follow`
      )
    // Another host, signed for this read: the token is not sent there (nothing but the address is).
    const read = await readTail(fetch, clock, signal, storage.href, { method: 'GET', redirect: 'follow' })
    if (read.status !== 200) throw new Error(`the log's storage answered ${read.status}`)
    return logTail(read.tail.bytes(), read.tail.total)
  }

  async listComments(issueNumber: number): Promise<CommentSummary[]> {
    const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, {
      ...this.repoParams,
      issue_number: issueNumber,
      per_page: 100
    })
    return comments.map(comment => ({
      id: comment.id,
      body: comment.body ?? '',
      author: { login: comment.user?.login ?? '', type: comment.user?.type ?? '' } satisfies Author,
      createdAt: comment.created_at
    }))
  }

  async listReviewComments(pullNumber: number): Promise<CommentSummary[]> {
    const comments = await this.octokit.paginate(this.octokit.rest.pulls.listReviewComments, {
      ...this.repoParams,
      pull_number: pullNumber,
      per_page: 100
    })
    return comments.map(comment => ({
      id: comment.id,
      body: comment.body ?? '',
      author: { login: comment.user?.login ?? '', type: comment.user?.type ?? '' } satisfies Author,
      createdAt: comment.created_at,
      reviewThread: comment.in_reply_to_id ?? comment.id
    }))
  }

  async createReviewReply(pullNumber: number, threadId: number, body: string): Promise<number> {
    const send = async (): Promise<number> =>
      (
        await this.octokit.rest.pulls.createReplyForReviewComment({
          ...this.repoParams,
          pull_number: pullNumber,
          comment_id: threadId,
          body
        })
      ).data.id
    return this.createOnce(send, body, async () =>
      (await this.listReviewComments(pullNumber)).filter(comment => comment.reviewThread === threadId)
    )
  }

  async updateReviewComment(commentId: number, body: string): Promise<void> {
    await this.octokit.rest.pulls.updateReviewComment({ ...this.repoParams, comment_id: commentId, body })
  }

  async createComment(issueNumber: number, body: string): Promise<number> {
    const send = async (): Promise<number> =>
      (await this.octokit.rest.issues.createComment({ ...this.repoParams, issue_number: issueNumber, body }))
        .data.id
    return this.createOnce(send, body, () => this.listComments(issueNumber))
  }

  /**
   * A comment sent once blind: its answer lost, it is looked for in `comments` (oldest first) by the
   * create mark of `body`; found, it is ours (nobody could know the mark before our comment showed
   * it), else it is sent again. Without a mark it is never sent again; with one whose create was
   * left unknown before (the step writes the comment again later), it is looked for before anything.
   */
  private async createOnce(
    send: () => Promise<number>,
    body: string,
    comments: () => Promise<CommentSummary[]>
  ): Promise<number> {
    const mark = createMarkOf(body)
    if (mark === undefined) return send()
    const find = async (): Promise<number | undefined> =>
      (await comments()).find(comment => createMarkOf(comment.body) === mark)?.id
    // A create of this mark lost before, and not found since: looked for first, never sent blind.
    const lostBefore = this.lostMarks.has(mark) ? await find() : undefined
    if (lostBefore !== undefined) return lostBefore
    try {
      const id = await this.sentOnce(send, find)
      this.lostMarks.delete(mark)
      return id
    } catch (error) {
      if (answerLost(error)) this.lostMarks.add(mark)
      throw error
    }
  }

  /**
   * Sends a create; when its answer is lost (answerLost), waits 1, 4, then 9 s (GitHub may still be
   * doing it), looks for it with `find` and takes it when there, sends it again only when `find`
   * says it is not. A look that fails looks again after the next wait; the failure stands at the
   * end, and when the calls are stopped.
   */
  private async sentOnce(
    send: () => Promise<number>,
    find: () => Promise<number | undefined>
  ): Promise<number> {
    const { clock, signal } = this.config
    let failure: unknown
    for (let attempt = 0; attempt <= LOOKS_AFTER_A_LOST_ANSWER; attempt++) {
      if (attempt > 0) {
        await clock.sleep(attempt ** 2 * 1000, signal).catch(() => Promise.reject(failure))
        const found = await find().then(
          id => ({ id }),
          () => undefined
        )
        if (found === undefined) continue
        if (found.id !== undefined) return found.id
      }
      try {
        return await send()
      } catch (error) {
        if (!answerLost(error) || signal?.aborted) throw error
        failure = error
      }
    }
    throw failure
  }

  async updateComment(commentId: number, body: string): Promise<void> {
    await this.octokit.rest.issues.updateComment({ ...this.repoParams, comment_id: commentId, body })
  }

  async react(target: ReactionTarget, content: Reaction): Promise<void> {
    if ('reviewCommentId' in target) {
      await this.octokit.rest.reactions.createForPullRequestReviewComment({
        ...this.repoParams,
        comment_id: target.reviewCommentId,
        content
      })
    } else if ('commentId' in target) {
      await this.octokit.rest.reactions.createForIssueComment({
        ...this.repoParams,
        comment_id: target.commentId,
        content
      })
    } else {
      await this.octokit.rest.reactions.createForIssue({
        ...this.repoParams,
        issue_number: target.issueNumber,
        content
      })
    }
  }

  async identity(): Promise<string | undefined> {
    try {
      return (await this.octokit.rest.users.getAuthenticated()).data.login
    } catch {
      return undefined
    }
  }

  async createCheckRun(name: string, headSha: string, check: CheckRunWrite): Promise<number | undefined> {
    if (this.checksRefused) return undefined
    // Ours alone, whoever else writes check runs of that name on that commit (a re-run, another step).
    const externalId = `codegen-${randomBytes(16).toString('hex')}`
    const send = async (): Promise<number> =>
      (
        await this.octokit.rest.checks.create({
          ...this.repoParams,
          name,
          head_sha: headSha,
          ...checkFields({ ...check, externalId })
        })
      ).data.id
    try {
      return await this.sentOnce(send, () => this.findCheckRun(name, headSha, externalId))
    } catch (error) {
      this.checkWriteError('create', name, error)
      return undefined
    }
  }

  /** The id of the check run `name` on `headSha` whose external_id is `externalId`, if there is one. */
  private async findCheckRun(name: string, headSha: string, externalId: string): Promise<number | undefined> {
    const pages = this.octokit.paginate.iterator(this.octokit.rest.checks.listForRef, {
      ...this.repoParams,
      ref: headSha,
      check_name: name,
      filter: 'all',
      per_page: 100
    })
    let read = 0
    for await (const { data } of pages) {
      const found = data.find(run => run.external_id === externalId)
      if (found) return found.id
      if (++read >= MAX_CHECK_RUN_PAGES) throw new Error('too many check runs to look through')
    }
    return undefined
  }

  async updateCheckRun(id: number, check: CheckRunWrite): Promise<boolean> {
    if (this.checksRefused) return false
    try {
      await this.octokit.rest.checks.update({ ...this.repoParams, check_run_id: id, ...checkFields(check) })
      return true
    } catch (error) {
      this.checkWriteError('update', `${id}`, error)
      return false
    }
  }

  async annotateCheckRun(
    id: number,
    text: Pick<CheckRunText, 'title' | 'summary'>,
    annotations: CheckAnnotation[]
  ): Promise<boolean> {
    if (this.checksRefused) return false
    try {
      await this.octokit.rest.checks.update({
        ...this.repoParams,
        check_run_id: id,
        output: {
          title: cutUtf8(text.title, CHECK_TITLE_MAX_BYTES),
          summary: cutUtf8(text.summary, CHECK_SUMMARY_MAX_BYTES),
          annotations
        }
      })
      return true
    } catch (error) {
      this.checkWriteError('annotate', `${id}`, error)
      return false
    }
  }

  async pullRequestFiles(pullNumber: number, each: (file: PullRequestFile) => boolean): Promise<void> {
    const pages = this.octokit.paginate.iterator(this.octokit.rest.pulls.listFiles, {
      ...this.repoParams,
      pull_number: pullNumber,
      per_page: 100
    })
    for await (const { data } of pages)
      for (const file of data)
        if (
          each({ filename: file.filename, ...(typeof file.patch === 'string' ? { patch: file.patch } : {}) })
        )
          return
  }

  async listReviews(pullNumber: number): Promise<ReviewSummary[]> {
    const reviews = await this.octokit.paginate(this.octokit.rest.pulls.listReviews, {
      ...this.repoParams,
      pull_number: pullNumber,
      per_page: 100
    })
    return reviews.map(review => ({
      id: review.id,
      body: review.body ?? '',
      author: { login: review.user?.login ?? '', type: review.user?.type ?? '' } satisfies Author
    }))
  }

  async createReview(
    pullNumber: number,
    review: { commitId: string; body: string; comments: NewReviewComment[] }
  ): Promise<number> {
    const { data } = await this.octokit.rest.pulls.createReview({
      ...this.repoParams,
      pull_number: pullNumber,
      commit_id: review.commitId,
      body: review.body,
      // A bot comments, never approves.
      event: 'COMMENT',
      ...(review.comments.length > 0 ? { comments: review.comments } : {})
    })
    return data.id
  }

  /** One warning for a missing permission (and no more writes), a few for other failures. */
  private checkWriteError(verb: 'create' | 'update' | 'annotate', which: string, error: unknown): void {
    // Not created because the step stopped first: nothing failed.
    if (error instanceof NotSentError) return
    const { status, message } = error as { status?: number; message?: string }
    const text = message ?? String(error)
    // A rate limit left after its retries is no missing permission.
    if (status === 403 && !isRateLimit(error)) {
      this.checksRefused = true
      this.warn(
        `Could not ${verb} the check run ${which}: GitHub answered 403 (${text}). The token needs the \`checks: write\` permission: add the line \`checks: write\` under the job's \`permissions:\` (or set \`check-run: false\`). The run goes on without a check.`
      )
    } else if (this.checkWriteErrors++ < 3) {
      this.warn(`Could not ${verb} the check run ${which}: ${text}`)
    }
  }
}

/** An answer's headers without those of the body as it came (its length, its encoding): the body is its end now. */
function withoutLength(headers: Headers): Headers {
  const kept = new Headers(headers)
  kept.delete('content-length')
  kept.delete('content-encoding')
  return kept
}

/** A check run's fields as the Checks API names them, within GitHub's bytes (the rendering keeps to them). */
function checkFields(check: CheckRunWrite): {
  status: CheckRunWrite['status']
  conclusion?: NonNullable<CheckRunWrite['conclusion']>
  details_url?: string
  external_id?: string
  output: { title: string; summary: string }
} {
  return {
    status: check.status,
    ...(check.conclusion ? { conclusion: check.conclusion } : {}),
    ...(check.detailsUrl ? { details_url: check.detailsUrl } : {}),
    ...(check.externalId ? { external_id: check.externalId } : {}),
    output: {
      title: cutUtf8(check.title, CHECK_TITLE_MAX_BYTES),
      summary: cutUtf8(check.summary, CHECK_SUMMARY_MAX_BYTES)
    }
  }
}
