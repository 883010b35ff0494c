import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LogEntry } from '../api/types.js'

/**
 * The log file's cap: a runner's disk is shared with the job's other steps. Past it, one last line
 * says how many entries were left out, and nothing more is written.
 */
export const LOG_FILE_MAX_BYTES = 256 * 1024 * 1024

/** Lines are written some this many characters at a time. */
const WRITE_CHARS = 64 * 1024

/** The run's log as JSON Lines on the runner's disk: complete even when the summary had to be trimmed. */
export interface LogFile {
  readonly path: string
  append(entries: LogEntry[]): void
  /** Writes the note of the entries left out past the cap, if any were; called once at the end. */
  close?(): void
}

/** Opens a new file under `directory` (RUNNER_TEMP, else the system's temp folder). */
export function openLogFile(directory: string, runId: number, maxBytes = LOG_FILE_MAX_BYTES): LogFile {
  const folder = directory || tmpdir()
  mkdirSync(folder, { recursive: true })
  let path = join(folder, `codegen-agent-run-${runId}.jsonl`)
  // A resume later in the same job gets a file of its own.
  for (let n = 2; existsSync(path); n++) path = join(folder, `codegen-agent-run-${runId}-${n}.jsonl`)
  writeFileSync(path, '')
  let written = 0
  let entriesWritten = 0
  let leftOut = 0
  let closed = false
  const reason = `the log file reached its limit of ${maxBytes} bytes; the entries after it are left out`
  // Said when the cap is reached (so a killed step still tells), and the count once more at the end.
  const capNote = (): string =>
    `${JSON.stringify({ log_file_limit_reached: true, entries_written: entriesWritten, reason })}\n`
  const countNote = (count: number): string => `${JSON.stringify({ entries_left_out: count, reason })}\n`
  // Room for both notes: the file never passes the cap, notes included.
  const room =
    maxBytes -
    Buffer.byteLength(capNote().replace(/\d+/, String(Number.MAX_SAFE_INTEGER))) -
    Buffer.byteLength(countNote(Number.MAX_SAFE_INTEGER))
  return {
    path,
    append(entries) {
      if (closed) return
      if (leftOut > 0) {
        leftOut += entries.length
        return
      }
      // Lines in writes of about WRITE_CHARS: a page of large entries is never one string as large
      // as the page, and a page of small ones is not a write each.
      let pending = ''
      const flush = (): void => {
        if (pending) appendFileSync(path, pending)
        pending = ''
      }
      for (const [index, entry] of entries.entries()) {
        const line = `${JSON.stringify(entry)}\n`
        const size = Buffer.byteLength(line)
        if (written + size > room) {
          leftOut = entries.length - index
          pending += capNote()
          break
        }
        written += size
        entriesWritten++
        pending += line
        if (pending.length >= WRITE_CHARS) flush()
      }
      flush()
    },
    close() {
      if (leftOut > 0 && !closed) appendFileSync(path, countNote(leftOut))
      closed = true
    }
  }
}
