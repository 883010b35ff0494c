import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLogFile } from '../../../src/runner/log-file.js'
import { numberedEntry } from '../../support/log-entries.js'

/** Disk stays bounded whatever the service sends: the log file has a cap (the log mirror's memory: unit/report/log-mirror.ts). */

const entry = numberedEntry

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
