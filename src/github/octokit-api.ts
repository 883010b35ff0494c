import { createMarkOf, type CheckAnnotation, type CheckRunText } from '../github-shapes.js'
import type {
  Author,
  CheckRunWrite,
  CommentSummary,
  FailedJob,
  GitHubApi,
  NewReviewComment,
  Permission,
  PullRequestFile,
  PullRequestInfo,
  Reaction,
  ReactionTarget,
  RenderedText,
  ReviewSummary,
  TextSource
} from './api.js'
import { CheckRunWrites } from './check-runs.js'
import { logTail, TailBuffer, type LogTail } from './log-tail.js'
import {
  nullBodyStatus,
  policedOctokit,
  readTail,
  createdOnce,
  withoutLength,
  type Octokit,
  type OctokitConfig,
  type RepoParams
} from './octokit.js'
import { answerLost } from './request-policy.js'

/** The media type whose answers carry a text's HTML (`body_html`) beside its Markdown. */
const FULL_JSON = 'application/vnd.github.full+json'

/** Pages of a workflow run's jobs read at most: a run has at most 256 jobs of a matrix, and a few more. */
export const MAX_JOB_PAGES = 5

/** The conclusions of a job (and of a step) that failed: the ones a CI fix looks at. */
const FAILED = new Set(['failure', 'timed_out'])

/**
 * GitHubApi on @actions/github's client (octokit.ts: its requests spaced, waited and retried by the
 * request policy on the action's clock, each bounded by the step's GitHub deadline). The calls of
 * issues, pull requests, comments, reactions and a workflow run's failed jobs are here; the check
 * run's writes in check-runs.ts.
 */
export class OctokitGitHubApi implements GitHubApi {
  private readonly octokit: Octokit
  private readonly repoParams: RepoParams
  private readonly config: OctokitConfig
  private readonly checks: CheckRunWrites
  /** The create marks of comments whose create's answer was lost and that were not found since. */
  private readonly lostMarks = new Set<string>()

  constructor(config: OctokitConfig) {
    const [owner = '', repo = ''] = config.repository.split('/')
    this.repoParams = { owner, repo }
    this.config = config
    this.octokit = policedOctokit(config)
    this.checks = new CheckRunWrites(this.octokit, this.repoParams, config)
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
    return comments.map(commentSummary)
  }

  async listReviewComments(pullNumber: number): Promise<CommentSummary[]> {
    const comments = await this.octokit.paginate(this.octokit.rest.pulls.listReviewComments, {
      ...this.repoParams,
      pull_number: pullNumber,
      per_page: 100
    })
    return comments.map(comment => ({
      ...commentSummary(comment),
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
    return this.commentCreatedOnce(send, body, async () =>
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
    return this.commentCreatedOnce(send, body, () => this.listComments(issueNumber))
  }

  /**
   * A comment sent once blind: its answer lost, it is looked for in `comments` (oldest first) by the
   * create mark of `body`; found, it is ours (nobody could know the mark before our comment showed
   * it), else it is sent again. Without a mark it is never sent again; with one whose create was
   * left unknown before (the step writes the comment again later), it is looked for before anything.
   */
  private async commentCreatedOnce(
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
      const id = await createdOnce(send, find, this.config)
      this.lostMarks.delete(mark)
      return id
    } catch (error) {
      if (answerLost(error)) this.lostMarks.add(mark)
      throw error
    }
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

  async teamMember(org: string, slug: string, login: string): Promise<boolean> {
    try {
      const { data } = await this.octokit.rest.teams.getMembershipForUserInOrg({
        org,
        team_slug: slug,
        username: login
      })
      return data.state === 'active'
    } catch (error) {
      if ((error as { status?: number }).status === 404) return false
      throw error
    }
  }

  async identity(): Promise<string | undefined> {
    try {
      return (await this.octokit.rest.users.getAuthenticated()).data.login
    } catch {
      return undefined
    }
  }

  createCheckRun(name: string, headSha: string, check: CheckRunWrite): Promise<number | undefined> {
    return this.checks.createCheckRun(name, headSha, check)
  }

  findLostCheckRun(name: string, headSha: string): Promise<number | undefined> {
    return this.checks.findLostCheckRun(name, headSha)
  }

  updateCheckRun(id: number, check: CheckRunWrite): Promise<boolean> {
    return this.checks.updateCheckRun(id, check)
  }

  annotateCheckRun(
    id: number,
    text: Pick<CheckRunText, 'title' | 'summary'>,
    annotations: CheckAnnotation[]
  ): Promise<boolean> {
    return this.checks.annotateCheckRun(id, text, annotations)
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

  async renderedText(source: TextSource): Promise<RenderedText> {
    const params = { ...this.repoParams, headers: { accept: FULL_JSON } }
    const { data } = await ('issueNumber' in source
      ? this.octokit.rest.issues.get({ ...params, issue_number: source.issueNumber })
      : 'commentId' in source
        ? this.octokit.rest.issues.getComment({ ...params, comment_id: source.commentId })
        : 'reviewCommentId' in source
          ? this.octokit.rest.pulls.getReviewComment({ ...params, comment_id: source.reviewCommentId })
          : this.octokit.rest.pulls.getReview({
              ...params,
              pull_number: source.pullNumber,
              review_id: source.reviewId
            }))
    const text = data as {
      body?: string | null
      body_html?: string
      user?: { login?: string; type?: string } | null
      created_at?: string
      submitted_at?: string
    }
    return {
      body: typeof text.body === 'string' ? text.body : '',
      html: typeof text.body_html === 'string' ? text.body_html : '',
      author: { login: text.user?.login ?? '', type: text.user?.type ?? '' },
      createdAt: text.created_at ?? text.submitted_at ?? ''
    }
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
      author: { login: review.user?.login ?? '', type: review.user?.type ?? '' } satisfies Author,
      ...(review.submitted_at ? { submittedAt: review.submitted_at } : {})
    }))
  }

  async createReview(
    pullNumber: number,
    review: { commitId: string; body: string; comments: NewReviewComment[] },
    find: () => Promise<number | undefined>
  ): Promise<number> {
    const send = async (): Promise<number> =>
      (
        await this.octokit.rest.pulls.createReview({
          ...this.repoParams,
          pull_number: pullNumber,
          commit_id: review.commitId,
          body: review.body,
          // A bot comments, never approves.
          event: 'COMMENT',
          ...(review.comments.length > 0 ? { comments: review.comments } : {})
        })
      ).data.id
    return createdOnce(send, find, this.config)
  }
}

/** An issue comment or a review comment as the action reads it: its text, author and times. */
function commentSummary(comment: {
  id: number
  body?: string | null
  user: { login: string; type: string } | null
  created_at: string
  updated_at: string
}): CommentSummary {
  return {
    id: comment.id,
    body: comment.body ?? '',
    author: { login: comment.user?.login ?? '', type: comment.user?.type ?? '' },
    createdAt: comment.created_at,
    updatedAt: comment.updated_at
  }
}
