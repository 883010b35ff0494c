import type { LogEntry } from '../../../src/api/types.js'
import { entryTime, formatDuration } from '../../../src/report/entry-text.js'

const entry = (fields: Partial<LogEntry>): LogEntry => ({ agent_run_id: 1, ...fields })

describe('times and durations', () => {
  test('times are read with or without T and zone', () => {
    expect(entryTime(entry({ created_at: '2025-06-21T11:20:04Z' }))).toBe('11:20:04')
    expect(entryTime(entry({ created_at: '2025-06-21T13:20:04+02:00' }))).toBe('11:20:04')
    expect(entryTime(entry({ created_at: null }))).toBe('--:--:--')
  })

  test('a flooded time is read from its start only', () => {
    expect(entryTime(entry({ created_at: `2025-06-21T11:20:04Z${'€'.repeat(1_000_000)}` }))).toBe('11:20:04')
    expect(entryTime(entry({ created_at: `${'9'.repeat(1_000_000)} 11:20:04` }))).toBe('--:--:--')
  })

  test('durations read naturally', () => {
    expect(formatDuration(4_400)).toBe('4s')
    expect(formatDuration(192_000)).toBe('3m 12s')
    expect(formatDuration(3_720_000)).toBe('1h 02m')
  })
})
