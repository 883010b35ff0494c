import type { LogEntry } from '../api/types.js'
import type { RunReport } from '../model.js'
import type { Reporter } from './reporters.js'
import { UsageTally, type Usage } from './usage.js'

/**
 * The reporter that counts what a run did: every log entry as it arrives (the mirror keeps only the
 * first and last of a long log), then, with what the report knows, its usage. It writes nothing:
 * the step puts its usage in the report before the others are handed it.
 */
export class UsageCount implements Reporter {
  private readonly tally = new UsageTally()

  newEntries(entries: LogEntry[]): void {
    this.tally.add(entries)
  }

  /** The report with its usage, when a run was started or resumed; else as it is. */
  counted(report: RunReport): RunReport {
    if (!report.run) return report
    const usage: Usage = this.tally.usage({
      durationMs: report.endedAt - report.startedAt,
      pullRequests: report.run.github_pull_requests?.length ?? 0,
      // The step's own follow-ups: a resume (agent-run-id, a thread's follow-up), the answer's repairs.
      resumes: report.mode === 'resume' ? 1 : 0,
      repairs: report.answer?.repairs.length ?? 0
    })
    return { ...report, usage }
  }

  finish(): Promise<void> {
    return Promise.resolve()
  }
}
