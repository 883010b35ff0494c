import { randomBytes } from 'node:crypto'
import type { AgentRun, LogEntry } from '../api/types.js'
import type { CarriedFrom, RunReport } from '../model.js'
import type { Clock } from '../clock.js'
import type { GitHubApi } from '../github/api.js'
import { NotSentError } from '../github/request-policy.js'
import { LiveReporter } from './live-reporter.js'
import { renderTrackingComment, type TrackingState } from './tracking-text.js'
import type { ReviewThread } from '../thread/tracking.js'

/** At most one edit of the tracking comment this often (GitHub's content-creation limits are strict). */
export const COMMENT_EDIT_INTERVAL_MS = 5_000

export interface TrackingCommentOptions {
  github: GitHubApi
  /** An issue's (or pull request's) number, or a review thread on a pull request's code. */
  place: number | ReviewThread
  /** The thread's earlier tracking comment to take over; none posts a new one. */
  commentId?: number
  state: Omit<TrackingState, 'updatedAt'>
  clock: Clock
  /** GitHub's failures, reported as warnings: they never change the run's outcome. */
  warn: (message: string) => void
  /** The least time between two edits. */
  minIntervalMs?: number
}

/**
 * The one comment on the thread that follows the run: created (or taken over) at the start, edited
 * as the run goes, throttled, and written once more on every ending. GitHub failures are reported as
 * warnings; they never change the run's outcome.
 */
export class TrackingComment extends LiveReporter<Omit<TrackingState, 'updatedAt'>> {
  private failures = 0

  private readonly github: GitHubApi
  private readonly place: number | ReviewThread
  private commentId: number | undefined
  /** The create's own mark: a comment GitHub made but whose answer it lost is found by it (octokit-api.ts). */
  private readonly createMark = randomBytes(16).toString('hex')
  private readonly clock: Clock
  private readonly warn: (message: string) => void

  constructor(options: TrackingCommentOptions) {
    super(
      options.state,
      options.clock,
      options.minIntervalMs ?? COMMENT_EDIT_INTERVAL_MS,
      options.warn,
      'Tracking comment'
    )
    this.github = options.github
    this.place = options.place
    this.commentId = options.commentId
    this.clock = options.clock
    this.warn = options.warn
  }

  /** Posts (or takes over) the comment before the run starts, so even a failed create is reported. */
  async open(): Promise<void> {
    await this.writes.flush()
  }

  override started(
    run: AgentRun,
    mode?: RunReport['mode'],
    carriedFrom?: CarriedFrom,
    fixAttempt?: number
  ): void {
    if (carriedFrom) this.state.carriedFrom = carriedFrom
    if (this.state.ciFix && fixAttempt !== undefined) this.state.ciFix.attempt = fixAttempt
    super.started(run, mode)
  }

  override newEntries(entries: LogEntry[]): void {
    const last = entries[entries.length - 1]
    if (last) this.state.latestEntry = last
    super.newEntries(entries)
  }

  override repairAsked(reason: string, attempt: number, retries: number): void {
    this.state.repair = { reason, attempt, retries }
    this.writes.touch(true)
  }

  /** Writes the ending, whatever it is, and waits for it. */
  async finish(report: RunReport): Promise<void> {
    this.state.report = report
    await this.writes.flush()
  }

  private create(body: string): Promise<number> {
    const place = this.place
    return typeof place === 'number'
      ? this.github.createComment(place, body)
      : this.github.createReviewReply(place.pullNumber, place.threadId, body)
  }

  private update(commentId: number, body: string): Promise<void> {
    return typeof this.place === 'number'
      ? this.github.updateComment(commentId, body)
      : this.github.updateReviewComment(commentId, body)
  }

  protected async write(): Promise<void> {
    const render = (): string =>
      renderTrackingComment({
        ...this.state,
        commentId: this.commentId,
        createMark: this.createMark,
        updatedAt: this.clock.now()
      })
    try {
      if (this.commentId === undefined) {
        this.commentId = await this.create(render())
        // The marker is signed for its comment: a comment made with a run already known gets it now.
        if (this.state.runId !== undefined || this.state.report?.run)
          await this.update(this.commentId, render())
      } else await this.update(this.commentId, render())
    } catch (error) {
      // Not created because the step stopped first: nothing failed, and there is nothing to say.
      if (error instanceof NotSentError) return
      if (this.failures++ < 3) this.warn(`Could not write the tracking comment: ${(error as Error).message}`)
    }
  }
}
