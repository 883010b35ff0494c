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
  ReviewSummary
} from './api.js'
import { CheckRunWrites } from './check-runs.js'
import { JobLogs } from './job-logs.js'
import type { LogTail } from './log-tail.js'
import { policedOctokit, sentOnce, type Octokit, type OctokitConfig, type RepoParams } from './octokit.js'
import { answerLost } from './request-policy.js'

/**
 * GitHubApi on @actions/github's client (octokit.ts: its requests spaced, waited and retried by the
 * request policy on the action's clock, each bounded by the step's GitHub deadline). The calls of
 * issues, pull requests, comments and reactions are here; the check run's writes in check-runs.ts,
 * the failed jobs and their logs in job-logs.ts.
 */
export class OctokitGitHubApi implements GitHubApi {
  private readonly octokit: Octokit
  private readonly repoParams: RepoParams
  private readonly config: OctokitConfig
  private readonly checks: CheckRunWrites
  private readonly jobs: JobLogs
  /** The create marks of comments whose create's answer was lost and that were not found since. */
  private readonly lostMarks = new Set<string>()

  constructor(config: OctokitConfig) {
    const [owner = '', repo = ''] = config.repository.split('/')
    this.repoParams = { owner, repo }
    this.config = config
    this.octokit = policedOctokit(config)
    this.checks = new CheckRunWrites(this.octokit, this.repoParams, config)
    this.jobs = new JobLogs(this.octokit, this.repoParams, config)
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

  failedJobs(runId: number): Promise<{ jobs: FailedJob[]; failedCount: number }> {
    return this.jobs.failedJobs(runId)
  }

  jobLogTail(jobId: number): Promise<LogTail> {
    return this.jobs.jobLogTail(jobId)
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
      const id = await sentOnce(send, find, this.config)
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
}
