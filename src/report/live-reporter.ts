import type { AgentRun, LogEntry } from '../api/types.js'
import type { Clock } from '../clock.js'
import type { CarriedFrom, RunReport } from '../model.js'
import type { Reporter } from './reporters.js'
import { ThrottledWrites } from './throttled-writes.js'

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
