import type { AgentRun, LogEntry } from '../api/types.js'
import type { RunEvents } from '../run/agent-run.js'
import type { Console } from '../runner/runner.js'
import type { LogFile } from '../runner/log-file.js'
import { classifyStatus } from '../run/status.js'
import { entryDetailLines, entryHeadline, inlineText, statusText } from './console-text.js'
import { count, formatDuration, oneLine, trimmed } from './entry-text.js'

export interface MirrorOptions {
  toConsole: boolean
  /** Keep the entries for the summary's timeline. */
  keepEntries: boolean
  openLogFile: (runId: number) => LogFile
}

/** Follows the run as it happens: the job log shows each entry, the log file gets all of them. */
export class LogMirror implements RunEvents {
  readonly entries: LogEntry[] = []
  private file?: LogFile

  constructor(
    private readonly console: Console,
    private readonly options: MirrorOptions
  ) {}

  get logFile(): string {
    return this.file?.path ?? ''
  }

  started(run: AgentRun, mode: 'create' | 'resume'): void {
    this.file = this.options.openLogFile(run.id)
    const where = run.web_url ? `: ${inlineText(oneLine(run.web_url, 500))}` : ''
    this.console.info(
      `Agent run ${run.id} ${mode === 'create' ? 'created' : 'resumed'}${where} (status ${statusText(run.status ?? null)})`
    )
  }

  newEntries(entries: LogEntry[]): void {
    this.file?.append(entries)
    if (this.options.keepEntries) this.entries.push(...entries)
    if (!this.options.toConsole) return
    for (const entry of entries) {
      const details = entryDetailLines(entry)
      if (details.length > 0) this.console.group(entryHeadline(entry), details)
      else this.console.info(entryHeadline(entry))
    }
  }

  statusChanged(from: string | null, to: string | null): void {
    const statusClass = classifyStatus(to)
    const meaning = statusClass === 'working' ? 'working' : statusClass
    this.console.info(`Status ${statusText(from)} → ${statusText(to)} (${meaning})`)
  }

  heartbeat(elapsedMs: number, status: string | null, entriesSeen: number): void {
    this.console.info(
      `… still ${statusText(status)} after ${formatDuration(elapsedMs)}; ${count(entriesSeen, 'log entry', 'log entries')} so far`
    )
  }

  /** A notice may quote the service (an unknown status): the runner escapes it, this bounds it. */
  notice(message: string): void {
    this.console.warning(trimmed(message, 2_000))
  }
}
