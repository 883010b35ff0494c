import type { AgentRun, LogEntry } from '../api/types.js'
import { CancelledError } from '../api/errors.js'
import type { Clock } from '../clock.js'
import type { CarriedFrom, RunReport } from '../model.js'
import type { Reporter } from './reporters.js'

/** What a run's live view on GitHub shows of it as it goes: its id, page, status and entries seen. */
export interface LiveState {
  runId?: number
  webUrl?: string | null
  status?: string | null
  entriesSeen: number
}

/**
 * A reporter that shows the run's latest state on GitHub (the tracking comment, the check run): each
 * event updates `state` and marks it out of date, and `write` sends it, throttled (ThrottledWrites).
 * The run's id lands at once: its page is linked, and a follow-up resumes through it.
 */
export abstract class LiveReporter<S extends LiveState> implements Reporter {
  readonly remote = true
  protected readonly writes: ThrottledWrites

  constructor(
    protected readonly state: S,
    clock: Clock,
    minIntervalMs: number,
    /** A failure of the writes' own machinery, said with `name` (GitHub's failures are `write`'s). */
    failed: (message: string) => void,
    name: string
  ) {
    this.writes = new ThrottledWrites(
      () => this.write(),
      clock,
      minIntervalMs,
      error => failed(`${name}: ${error.message}`)
    )
  }

  /** Writes the current state to GitHub. */
  protected abstract write(): Promise<void>

  abstract finish(report: RunReport): Promise<void>

  started(run: AgentRun, _mode?: RunReport['mode'], _carriedFrom?: CarriedFrom, _fixAttempt?: number): void {
    this.state.runId = run.id
    this.state.webUrl = run.web_url
    this.state.status = run.status
    this.writes.touch(true)
  }

  newEntries(entries: LogEntry[]): void {
    this.state.entriesSeen += entries.length
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

  repairAsked(_reason: string, _attempt: number, _retries: number): void {
    this.writes.touch()
  }
}

/**
 * The writes of one thing on GitHub that shows the latest state (the tracking comment, the check
 * run): one at a time, in order, and at most one every `minIntervalMs`, counted from the end of the
 * previous write. Marking it out of date many times while a write waits costs one write.
 */
export class ThrottledWrites {
  private lastWrite = Number.NEGATIVE_INFINITY
  private writing: Promise<void> = Promise.resolve()
  private pendingWait?: AbortController
  private dirty = false

  constructor(
    /** Writes the current state; its failures go to `failed`. */
    private readonly write: () => Promise<void>,
    private readonly clock: Clock,
    private readonly minIntervalMs: number,
    private readonly failed: (error: Error) => void
  ) {}

  /** Marks the state out of date: one write is queued, `now` or once the interval has passed. */
  touch(now = false): void {
    this.dirty = true
    if (this.pendingWait) return
    const wait = new AbortController()
    this.pendingWait = wait
    void this.enqueue(async () => {
      const delay = now ? 0 : Math.max(0, this.lastWrite + this.minIntervalMs - this.clock.now())
      try {
        await this.clock.sleep(delay, wait.signal)
      } catch (error) {
        if (error instanceof CancelledError) return
        throw error
      } finally {
        this.pendingWait = undefined
      }
      if (this.dirty) await this.writeNow()
    })
  }

  /** Writes now, behind the write in flight (a waiting one is dropped: this one carries its state). */
  async flush(): Promise<void> {
    this.pendingWait?.abort()
    await this.writing
    await this.enqueue(() => this.writeNow())
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    this.writing = this.writing.then(task).catch((error: Error) => this.failed(error))
    return this.writing
  }

  private async writeNow(): Promise<void> {
    this.dirty = false
    try {
      await this.write()
    } finally {
      // Counted from the end of the write: the client may itself have held the request for a while.
      this.lastWrite = this.clock.now()
    }
  }
}
