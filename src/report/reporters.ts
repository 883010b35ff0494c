import type { AgentRun, LogEntry } from '../api/types.js'
import { reportOf, type CarriedFrom, type RunEvents, type RunReport } from '../model.js'
import { redactDeep } from '../redact.js'

/**
 * Everything that shows the run: the console mirror, the outputs, the job summary, the check run,
 * the tracking comment (and whatever joins them). Each receives the same events as the run goes
 * (those it has a method for) and the same report at its end.
 */
export interface Reporter extends Partial<RunEvents> {
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

  started(run: AgentRun, mode: RunReport['mode'], carriedFrom?: CarriedFrom, fixAttempt?: number): void {
    const seen = this.redact(run)
    const from = carriedFrom && this.redact(carriedFrom)
    this.list.forEach(reporter => reporter.started?.(seen, mode, from, fixAttempt))
  }
  newEntries(entries: LogEntry[], firstIndex: number): void {
    const seen = this.redact(entries)
    this.list.forEach(reporter => reporter.newEntries?.(seen, firstIndex))
  }
  statusChanged(from: string | null, to: string | null): void {
    const [was, is] = [this.redact(from), this.redact(to)]
    this.list.forEach(reporter => reporter.statusChanged?.(was, is))
  }
  heartbeat(elapsedMs: number, status: string | null, entriesSeen: number): void {
    const seen = this.redact(status)
    this.list.forEach(reporter => reporter.heartbeat?.(elapsedMs, seen, entriesSeen))
  }
  warning(message: string): void {
    const seen = this.redact(message)
    this.list.forEach(reporter => reporter.warning?.(seen))
  }
  repairAsked(reason: string, attempt: number, retries: number): void {
    const seen = this.redact(reason)
    this.list.forEach(reporter => reporter.repairAsked?.(seen, attempt, retries))
  }

  /**
   * Hands the report to every reporter, the runner's first; returns it as they saw it. A reporter
   * that throws (a renderer's bug) keeps no other from writing: it is handed the plain report of
   * the error instead, which is then the step's.
   */
  async finish(report: RunReport): Promise<RunReport> {
    let seen = this.redact(report)
    for (const reporter of this.list.filter(one => !one.remote)) seen = await finishOrFallBack(reporter, seen)
    const remote = this.list.filter(one => one.remote)
    if (remote.length > 0) {
      const written = Promise.all(remote.map(reporter => finishOrFallBack(reporter, seen)))
      const ended = await Promise.race([written, this.afterCancelled()])
      seen = (ended ?? []).find(one => one !== seen) ?? seen
    }
    return seen
  }
}

/** The reporter's ending, or, when writing it threw, the plain report of that error written instead. */
async function finishOrFallBack(reporter: Reporter, report: RunReport): Promise<RunReport> {
  try {
    await reporter.finish(report)
    return report
  } catch (error) {
    const fallback = plainReport(report, error)
    await reporter.finish(fallback).catch(() => undefined)
    return fallback
  }
}

/** The report reduced to the run and the error: what any reporter can write. */
function plainReport(report: RunReport, error: unknown): RunReport {
  const message = error instanceof Error ? error.message : String(error)
  const fields = {
    outcome: 'error' as const,
    error: `The report could not be written: ${message.split('\n')[0]?.slice(0, 300) ?? ''}`,
    ...(report.run ? { run: report.run } : {}),
    status: report.status,
    trigger: report.trigger,
    checkRunId: report.checkRunId
  }
  return reportOf(fields, report.startedAt, report.endedAt)
}
