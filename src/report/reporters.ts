import type { AgentRun, LogEntry } from '../api/types.js'
import type { RunEvents, RunReport } from '../model.js'
import { redactDeep } from '../redact.js'

/**
 * Everything that shows the run: the console mirror, the job summary and outputs, the tracking
 * comment (and whatever joins them). Each receives the same events as the run goes and the same
 * report at its end.
 */
export interface Reporter extends RunEvents {
  /** Writes the ending. */
  finish(report: RunReport): Promise<void>
  /**
   * Writes to GitHub (a comment, a check): its ending goes after the runner's own (outputs and
   * summary first: a cancelled job is killed seconds after it is told to stop, and GitHub may hold
   * a write for longer than that), and a cancelled job waits for it only so long.
   */
  readonly remote?: boolean
}

/** Every secret in every form replaced by ***, in any value (texts, runs, entries, reports). */
export type Redact = <T>(value: T) => T

/** One redactor for the step, built once from its secrets. */
export function redactor(secrets: readonly string[]): Redact {
  const list = secrets.filter(Boolean)
  return value => redactDeep(value, list)
}

/**
 * The reporters as one: what the service sends may echo the token, so every event and the report
 * are redacted once, here, on their way in.
 */
export class Reporters implements RunEvents {
  constructor(
    private readonly list: Reporter[],
    private readonly redact: Redact,
    /** Resolves when a cancelled job can wait no longer for GitHub; never when it is not cancelled. */
    private readonly afterCancelled: () => Promise<void>
  ) {}

  started(run: AgentRun, mode: RunReport['mode']): void {
    const seen = this.redact(run)
    this.list.forEach(reporter => reporter.started(seen, mode))
  }
  newEntries(entries: LogEntry[], firstIndex: number): void {
    const seen = this.redact(entries)
    this.list.forEach(reporter => reporter.newEntries(seen, firstIndex))
  }
  statusChanged(from: string | null, to: string | null): void {
    const [was, is] = [this.redact(from), this.redact(to)]
    this.list.forEach(reporter => reporter.statusChanged(was, is))
  }
  heartbeat(elapsedMs: number, status: string | null, entriesSeen: number): void {
    const seen = this.redact(status)
    this.list.forEach(reporter => reporter.heartbeat(elapsedMs, seen, entriesSeen))
  }
  warning(message: string): void {
    const seen = this.redact(message)
    this.list.forEach(reporter => reporter.warning(seen))
  }
  repairAsked(reason: string, attempt: number, retries: number): void {
    const seen = this.redact(reason)
    this.list.forEach(reporter => reporter.repairAsked(seen, attempt, retries))
  }

  /** Hands the report to every reporter, the runner's first; returns it as they saw it. */
  async finish(report: RunReport): Promise<RunReport> {
    const seen = this.redact(report)
    for (const reporter of this.list.filter(one => !one.remote)) await reporter.finish(seen)
    const remote = this.list.filter(one => one.remote)
    if (remote.length > 0)
      await Promise.race([Promise.all(remote.map(reporter => reporter.finish(seen))), this.afterCancelled()])
    return seen
  }
}
