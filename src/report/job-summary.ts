import type { RunReport } from '../model.js'
import type { Runner } from '../runner/runner.js'
import { renderSetupCheckSummary } from './setup-check-summary.js'
import type { LogMirror } from './log-mirror.js'
import type { Reporter } from './reporters.js'
import { renderRunsSummary } from './runs-report.js'
import { renderSummary } from './summary.js'
import type { FindingsPlace } from './findings-text.js'

/**
 * The job summary: written once, at the end, from the report and what the console mirror kept of
 * the log (its first and last entries, the log file).
 */
export class JobSummary implements Reporter {
  constructor(
    private readonly runner: Pick<Runner, 'appendSummary'>,
    private readonly mirror: Pick<LogMirror, 'entries' | 'entriesLeftOut' | 'logFile'>,
    /** The mirror-logs input names `summary`: the timeline is shown. */
    private readonly timeline: boolean,
    /** The commit the findings are about, when they were asked for. */
    private readonly findingsPlace?: FindingsPlace,
    /** The phrase a thread's comment starts with, for how to approve a plan. */
    private readonly triggerPhrase?: string
  ) {}

  async finish(report: RunReport): Promise<void> {
    const { setupCheck } = report
    const summary = setupCheck
      ? renderSetupCheckSummary(setupCheck.inspection, setupCheck.error)
      : report.runs
        ? renderRunsSummary({ items: report.runs })
        : renderSummary({
            report,
            entries: this.timeline ? this.mirror.entries : undefined,
            entriesLeftOut: this.mirror.entriesLeftOut,
            logFile: this.mirror.logFile,
            ...(this.findingsPlace ? { findingsPlace: this.findingsPlace } : {}),
            ...(this.triggerPhrase ? { triggerPhrase: this.triggerPhrase } : {})
          })
    await this.runner.appendSummary(summary)
  }
}
