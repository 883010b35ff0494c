import type { RunReport } from '../model.js'
import type { Runner } from '../runner/runner.js'
import { renderCheckSummary } from './check-summary.js'
import type { LogMirror } from './log-mirror.js'
import { actionOutputs, OUTPUT_NAMES } from './outputs.js'
import type { Reporter } from './reporters.js'
import { renderSummary } from './summary.js'

/**
 * The job summary and the step's outputs: written once, at the end, from the report and what the
 * console mirror kept of the log (its first and last entries, the log file).
 */
export class JobSummary implements Reporter {
  constructor(
    private readonly runner: Pick<Runner, 'setOutput' | 'appendSummary'>,
    private readonly mirror: Pick<LogMirror, 'entries' | 'entriesLeftOut' | 'logFile'>,
    /** The mirror-logs input names `summary`: the timeline is shown. */
    private readonly timeline: boolean
  ) {}

  started(): void {}
  newEntries(): void {}
  statusChanged(): void {}
  heartbeat(): void {}
  warning(): void {}
  repairAsked(): void {}

  async finish(report: RunReport): Promise<void> {
    const outputs = actionOutputs(report, this.mirror.logFile)
    for (const name of OUTPUT_NAMES) this.runner.setOutput(name, outputs[name])
    const { check } = report
    const summary = check
      ? renderCheckSummary(check.inspection, check.error)
      : renderSummary({
          report,
          entries: this.timeline ? this.mirror.entries : undefined,
          entriesLeftOut: this.mirror.entriesLeftOut,
          logFile: this.mirror.logFile
        })
    await this.runner.appendSummary(summary)
  }
}
