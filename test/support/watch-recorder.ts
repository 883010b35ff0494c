import type { LogEntry } from '../../src/api/types.js'
import type { RunEvents } from '../../src/model.js'

/** The events of a watch, one line each, and the entries it mirrored. */
export class Recorder implements Omit<RunEvents, 'started'> {
  readonly lines: string[] = []
  readonly entries: LogEntry[] = []
  newEntries(entries: LogEntry[], firstIndex: number): void {
    this.entries.push(...entries)
    this.lines.push(`entries ${firstIndex}+${entries.length}`)
  }
  statusChanged(from: string | null, to: string | null): void {
    this.lines.push(`status ${from} -> ${to}`)
  }
  heartbeat(elapsedMs: number, status: string | null, seen: number): void {
    this.lines.push(`heartbeat ${elapsedMs} ${status} ${seen}`)
  }
  warning(message: string): void {
    this.lines.push(`warning ${message}`)
  }
  repairAsked(reason: string): void {
    this.lines.push(`repair ${reason}`)
  }
}
