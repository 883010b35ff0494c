import type { AgentRun, LogEntry } from '../api/types.js'
import type { RunReport } from '../model.js'
import type { Console } from '../runner/runner.js'
import type { LogFile } from '../runner/log-file.js'
import { entryDetailLines, entryHeadline, inlineText, statusChangeLine, statusText } from './console-text.js'
import { count, cutEntry, formatDuration, oneLine, trimmed } from './entry-text.js'
import { passingWarnings, type FailPolicy } from './step-fail.js'
import { repairAskedText } from './answer-text.js'
import type { Reporter } from './reporters.js'
import { endedState, runsStateLine } from './runs-report.js'
import { usageLine } from './usage.js'
import { threadImagesLine } from './images-text.js'
import { stopConsoleLine } from './stop-text.js'
import { findingConsoleLine } from './findings-text.js'
import { findingsCountText } from '../answer/findings.js'

export interface MirrorOptions {
  toConsole: boolean
  /** Keep the entries for the summary's timeline. */
  keepEntries: boolean
  openLogFile: (runId: number) => LogFile
  /** For the warnings of a step that passes (a paused run, an error fail-on lets pass). */
  policy?: FailPolicy
  /** Entries kept for the timeline, first and last (default KEPT_FIRST_ENTRIES, KEPT_LAST_ENTRIES): fewer for each run of a fan-out. */
  kept?: { first: number; last: number }
}

/**
 * What the summary's timeline can show of a run: its first and its last entries. The rest go to the
 * log file only, so memory stays bounded however long the log (an endless one included).
 */
export const KEPT_FIRST_ENTRIES = 500
export const KEPT_LAST_ENTRIES = 500
/** A kept entry's texts are cut to what the summary shows of them (4,000 characters a section). */
export const KEPT_FIELD_CHARS = 4_000

/**
 * The console reporter: the job log shows each entry as it happens, the log file gets all of them,
 * and the first and last ones are kept for the summary's timeline.
 */
export class LogMirror implements Reporter {
  private readonly first: LogEntry[] = []
  /** A ring of the last entries; `next` is where the next one goes once it is full. */
  private readonly last: LogEntry[] = []
  private next = 0
  private leftOut = 0
  private file?: LogFile

  constructor(
    private readonly console: Console,
    private readonly options: MirrorOptions
  ) {}

  /** The entries kept for the summary: the first ones, then the last ones (see `entriesLeftOut`). */
  get entries(): LogEntry[] {
    return [...this.first, ...this.last.slice(this.next), ...this.last.slice(0, this.next)]
  }

  /** Entries between the first and the last kept ones that were not kept: where and how many. */
  get entriesLeftOut(): { after: number; count: number } | undefined {
    return this.leftOut > 0 ? { after: this.first.length, count: this.leftOut } : undefined
  }

  get logFile(): string {
    return this.file?.path ?? ''
  }

  /** Ends the log file (past its cap, it says how many entries were left out), then says the outcome. */
  async finish(report: RunReport): Promise<void> {
    this.file?.close?.()
    if (report.setupCheck) {
      for (const row of report.setupCheck.inspection.rows)
        this.console.info(`${row.item}: ${row.state}${row.found ? ` (${row.found})` : ''}`)
      if (report.outcome === 'success') this.console.info('The set-up is ready: nothing was created.')
      return
    }
    if (report.runs) {
      // A fan-out: every run's state, then the outcome they make together.
      this.console.info(runsStateLine(report.runs.map(endedState), report.endedAt - report.startedAt))
      this.console.info(`Outcome: ${report.outcome}`)
      if (report.usage)
        this.console.info(`Usage, all runs: ${inlineText(usageLine(report.usage, formatDuration))}`)
      return
    }
    const status = report.status ? ` (status ${statusText(report.status)})` : ''
    const where = this.logFile ? ` to ${this.logFile}` : ''
    // No run: an error (an input the service refused) is the step's own message, printed alone.
    if (!report.run) {
      if (!report.error) this.console.info(`Outcome: ${report.outcome}`)
    } else
      this.console.info(
        `Outcome: ${report.outcome}${status}; ${count(report.entriesSeen, 'log entry', 'log entries')} mirrored${where}`
      )
    if (report.usage) this.console.info(`Usage: ${inlineText(usageLine(report.usage, formatDuration))}`)
    if (report.threadImages) this.console.info(inlineText(threadImagesLine(report.threadImages)))
    const answer = report.answer?.answer
    if (answer?.valid && answer.findings) {
      // Text, never a workflow command: the findings are annotated on the check run, not on the step.
      this.console.info(`${findingsCountText(answer.findings)}${answer.findings.length > 0 ? ':' : '.'}`)
      for (const finding of answer.findings) this.console.info(`  ${findingConsoleLine(finding)}`)
    }
    const stopped = report.stop && stopConsoleLine(report.stop)
    if (stopped) this.console.info(stopped)
    if (this.options.policy)
      passingWarnings(report, this.options.policy).forEach(line => this.console.warning(line))
  }

  started(run: AgentRun, mode: 'create' | 'resume'): void {
    // A repair resumes the same run: its entries go on in the step's one log file.
    this.file ??= this.options.openLogFile(run.id)
    const where = run.web_url ? `: ${inlineText(oneLine(run.web_url, 500))}` : ''
    this.console.info(
      `Agent run ${run.id} ${mode === 'create' ? 'created' : 'resumed'}${where} (status ${statusText(run.status ?? null)})`
    )
  }

  newEntries(entries: LogEntry[]): void {
    this.file?.append(entries)
    if (this.options.keepEntries) entries.forEach(entry => this.keep(entry))
    if (!this.options.toConsole) return
    for (const entry of entries) {
      const details = entryDetailLines(entry)
      if (details.length > 0) this.console.group(entryHeadline(entry), details)
      else this.console.info(entryHeadline(entry))
    }
  }

  private keep(entry: LogEntry): void {
    const cut = cutEntry(entry, KEPT_FIELD_CHARS)
    const { first, last } = this.options.kept ?? { first: KEPT_FIRST_ENTRIES, last: KEPT_LAST_ENTRIES }
    if (this.first.length < first) this.first.push(cut)
    else if (this.last.length < last) this.last.push(cut)
    else if (last === 0) this.leftOut++
    else {
      this.last[this.next] = cut
      this.next = (this.next + 1) % last
      this.leftOut++
    }
  }

  statusChanged(from: string | null, to: string | null): void {
    this.console.info(statusChangeLine(from, to))
  }

  heartbeat(elapsedMs: number, status: string | null, entriesSeen: number): void {
    this.console.info(
      `… still ${statusText(status)} after ${formatDuration(elapsedMs)}; ${count(entriesSeen, 'log entry', 'log entries')} so far`
    )
  }

  /** The reason quotes the agent's answer (a JSON pointer): one line, bounded. */
  repairAsked(reason: string, attempt: number, retries: number): void {
    this.console.info(inlineText(repairAskedText(reason, attempt, retries)))
  }

  /** A warning may quote the service (an unknown status): the runner escapes it, this bounds it. */
  warning(message: string): void {
    this.console.warning(trimmed(message, 2_000))
  }
}
