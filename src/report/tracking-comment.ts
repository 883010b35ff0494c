import { randomBytes } from 'node:crypto'
import type { AgentRun, LogEntry } from '../api/types.js'
import type { CarriedFrom, RunReport } from '../model.js'
import type { Reporter } from './reporters.js'
import type { Clock } from '../clock.js'
import type { GitHubApi } from '../github/api.js'
import { NotSentError } from '../github/request-policy.js'
import { ThrottledWrites } from './throttled-writes.js'
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
export class TrackingComment implements Reporter {
  readonly remote = true
  private failures = 0
  private readonly writes: ThrottledWrites

  private readonly github: GitHubApi
  private readonly place: number | ReviewThread
  private commentId: number | undefined
  /** The create's own mark: a comment GitHub made but whose answer it lost is found by it (api.ts). */
  private readonly createMark = randomBytes(16).toString('hex')
  private readonly state: Omit<TrackingState, 'updatedAt'>
  private readonly clock: Clock
  private readonly warn: (message: string) => void

  constructor(options: TrackingCommentOptions) {
    this.github = options.github
    this.place = options.place
    this.commentId = options.commentId
    this.state = options.state
    this.clock = options.clock
    this.warn = options.warn
    this.writes = new ThrottledWrites(
      () => this.write(),
      options.clock,
      options.minIntervalMs ?? COMMENT_EDIT_INTERVAL_MS,
      error => this.warn(`Tracking comment: ${error.message}`)
    )
  }

  /** Posts (or takes over) the comment before the run starts, so even a failed create is reported. */
  async open(): Promise<void> {
    await this.writes.flush()
  }

  started(run: AgentRun, _mode?: RunReport['mode'], carriedFrom?: CarriedFrom, fixAttempt?: number): void {
    this.state.runId = run.id
    if (carriedFrom) this.state.carriedFrom = carriedFrom
    if (this.state.ciFix && fixAttempt !== undefined) this.state.ciFix.attempt = fixAttempt
    this.state.webUrl = run.web_url
    this.state.status = run.status
    // The marker with the run id must land at once: the next comment resumes through it.
    this.writes.touch(true)
  }

  newEntries(entries: LogEntry[]): void {
    this.state.entriesSeen += entries.length
    const last = entries[entries.length - 1]
    if (last) this.state.latestEntry = last
    this.writes.touch()
  }

  statusChanged(_from: string | null, to: string | null): void {
    this.state.status = to
    this.writes.touch()
  }

  heartbeat(): void {
    this.writes.touch()
  }

  warning(): void {}

  repairAsked(reason: string, attempt: number, retries: number): void {
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

  private async write(): Promise<void> {
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
