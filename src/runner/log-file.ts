import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LogEntry } from '../api/types.js'

/** The run's log as JSON Lines on the runner's disk: complete even when the summary had to be trimmed. */
export interface LogFile {
  readonly path: string
  append(entries: LogEntry[]): void
}

/** Opens a new file under `directory` (RUNNER_TEMP, else the system's temp folder). */
export function openLogFile(directory: string, runId: number): LogFile {
  const folder = directory || tmpdir()
  mkdirSync(folder, { recursive: true })
  let path = join(folder, `codegen-agent-run-${runId}.jsonl`)
  // A resume later in the same job gets a file of its own.
  for (let n = 2; existsSync(path); n++) path = join(folder, `codegen-agent-run-${runId}-${n}.jsonl`)
  writeFileSync(path, '')
  return {
    path,
    append(entries) {
      if (entries.length > 0)
        appendFileSync(path, entries.map(entry => `${JSON.stringify(entry)}\n`).join(''))
    }
  }
}
