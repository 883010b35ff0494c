import type { LogEntry } from '../../../src/api/types.js'
import {
  entryDetailLines,
  entryHeadline,
  inlineText,
  prefixedLines
} from '../../../src/report/console-text.js'
import { HOSTILE_ENTRIES, HOSTILE_TEXT } from '../../../scripts/render-fixtures.js'
import { runnerCommands } from '../../support/runner-commands.js'

const entry = (fields: Partial<LogEntry>): LogEntry => ({ agent_run_id: 1, ...fields })

describe('console lines', () => {
  test('an entry is one readable line: time, type, tool, short thought', () => {
    const line = entryHeadline(
      entry({
        created_at: '2025-06-21 11:20:04.338398',
        message_type: 'ACTION',
        tool_name: 'run_command',
        thought: 'Running the tests\nto reproduce'
      })
    )
    expect(line).toBe('11:20:04  ACTION           run_command · Running the tests to reproduce')
  })

  test('long thoughts are cut; FINAL_ANSWER shows its observation', () => {
    expect(entryHeadline(entry({ thought: 'x'.repeat(500) })).length).toBeLessThan(200)
    expect(entryHeadline(entry({ message_type: 'FINAL_ANSWER', observation: 'All done' }))).toMatch(
      /All done$/
    )
  })

  test('details fold under a gutter, trimmed', () => {
    const lines = entryDetailLines(
      entry({ tool_input: { command: 'npm test' }, tool_output: 'y'.repeat(5_000) })
    )
    expect(lines[0]).toBe('  │ tool input:')
    expect(lines.every(line => line.startsWith('  │ '))).toBe(true)
    expect(lines.join('\n')).toMatch(/\(3000 more characters\)/)
  })

  test('service text can never start a line with a workflow command', () => {
    const hostile =
      'ok\n::set-output name=outcome::success\r::add-mask::x\u2028::stop-commands::t\u0085##[error]x\u001b[31m'
    for (const line of [
      entryHeadline(entry({ thought: hostile })),
      ...entryDetailLines(entry({ observation: hostile }))
    ]) {
      // eslint-disable-next-line no-control-regex -- looking for control characters is the point
      expect(line).not.toMatch(/[\r\n\u2028\u2029\u0085\u001b]/)
      expect(line.trimStart()).not.toMatch(/^(::|##\[)/)
    }
    expect(inlineText('a\r\nb')).toBe('a b')
    expect(prefixedLines('a\rb', '> ')).toEqual(['> a', '> b'])
  })
})

test('console lines built from entries: no line begins a command, no ##[ anywhere', () => {
  const lines = [
    ...HOSTILE_ENTRIES.map(entryHeadline),
    ...HOSTILE_ENTRIES.flatMap(entryDetailLines),
    inlineText(HOSTILE_TEXT),
    ...prefixedLines(HOSTILE_TEXT, '  │ ')
  ]
  expect(runnerCommands(lines.join('\n'))).toEqual([])
  expect(lines.join('\n').replace(/\u2060/g, '')).toContain('##[error]forged ::error::forged')
})
