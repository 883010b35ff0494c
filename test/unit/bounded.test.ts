import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LogEntry } from '../../src/api/types.js'
import { KEPT_FIRST_ENTRIES, KEPT_LAST_ENTRIES, LogMirror } from '../../src/report/log-mirror.js'
import { renderSummary } from '../../src/report/summary.js'
import { openLogFile } from '../../src/runner/log-file.js'
import type { Console } from '../../src/runner/runner.js'

/** Memory and disk stay bounded whatever the service sends: what is kept, what is written. */

const quiet: Console = { info() {}, group() {}, notice() {}, warning() {}, debug() {} }
const entry = (n: number, observation = ''): LogEntry => ({
  agent_run_id: 1,
  message_type: 'ACTION',
  thought: `Entry ${n}`,
  observation
})

describe('the log mirror keeps what the summary can show', () => {
  test('the first and last entries of an endless log, each cut, and how many were left out', () => {
    const mirror = new LogMirror(quiet, { toConsole: false, keepEntries: true, openLogFile: () => noFile })
    const big = 'y'.repeat(100_000)
    const total = KEPT_FIRST_ENTRIES + KEPT_LAST_ENTRIES + 2_345
    for (let n = 1; n <= total; n += 100)
      mirror.newEntries(Array.from({ length: Math.min(100, total - n + 1) }, (_, i) => entry(n + i, big)))
    const kept = mirror.entries
    expect(kept).toHaveLength(KEPT_FIRST_ENTRIES + KEPT_LAST_ENTRIES)
    expect(kept[0]?.thought).toBe('Entry 1')
    expect(kept[KEPT_FIRST_ENTRIES - 1]?.thought).toBe(`Entry ${KEPT_FIRST_ENTRIES}`)
    expect(kept[KEPT_FIRST_ENTRIES]?.thought).toBe(`Entry ${total - KEPT_LAST_ENTRIES + 1}`)
    expect(kept.at(-1)?.thought).toBe(`Entry ${total}`)
    expect(mirror.entriesLeftOut).toEqual({ after: KEPT_FIRST_ENTRIES, count: 2_345 })
    // Cut to what the summary shows, and saying so truly.
    const observation = String(kept[0]?.observation)
    expect(observation.length).toBeLessThan(4_100)
    expect(observation).toMatch(/… \(96000 more characters\)$/)

    const summary = renderSummary({
      report: {
        outcome: 'timeout',
        mode: 'create',
        status: 'ACTIVE',
        startedAt: 0,
        endedAt: 1,
        entriesSeen: total
      },
      entries: kept,
      entriesLeftOut: mirror.entriesLeftOut
    })
    const note = /\*\*(\d+) log entries left out here\*\*/.exec(summary)
    const shown = (summary.match(/<details>/g) ?? []).length
    expect(Number(note?.[1]) + shown).toBe(total)
    expect(summary).toContain('Entry 1<')
    expect(summary).toContain(`Entry ${total}<`)
    expect(summary).toContain('(96000 more characters)')
  })

  test('a short log is kept whole', () => {
    const mirror = new LogMirror(quiet, { toConsole: false, keepEntries: true, openLogFile: () => noFile })
    mirror.newEntries([entry(1), entry(2)])
    expect(mirror.entries.map(e => e.thought)).toEqual(['Entry 1', 'Entry 2'])
    expect(mirror.entriesLeftOut).toBeUndefined()
  })
})

const noFile = { path: '', append() {} }

describe('the log file has a cap', () => {
  test('past it nothing more is written, and it says how many entries were left out', () => {
    const folder = mkdtempSync(join(tmpdir(), 'codegen-logfile-'))
    const limit = 50_000
    const file = openLogFile(folder, 7, limit)
    for (let n = 0; n < 100; n++)
      file.append(Array.from({ length: 10 }, (_, i) => entry(n * 10 + i, 'z'.repeat(300))))
    file.close?.()
    expect(statSync(file.path).size).toBeLessThanOrEqual(limit)
    const lines = readFileSync(file.path, 'utf8')
      .trim()
      .split('\n')
      .map(line => JSON.parse(line))
    const written = lines.filter(line => 'thought' in line)
    expect(written.length).toBeGreaterThan(100)
    expect(written.map(line => line.thought)).toEqual(written.map((_, i) => `Entry ${i}`))
    expect(lines.at(-2)).toMatchObject({ log_file_limit_reached: true, entries_written: written.length })
    expect(lines.at(-1)).toMatchObject({ entries_left_out: 1_000 - written.length })
  })

  test('under it, every entry and nothing else', () => {
    const folder = mkdtempSync(join(tmpdir(), 'codegen-logfile-'))
    const file = openLogFile(folder, 8)
    file.append([entry(1), entry(2)])
    file.close?.()
    expect(readFileSync(file.path, 'utf8').trim().split('\n')).toHaveLength(2)
  })
})
