import type { SetupCheckRow, Inspection } from '../model.js'
import { tableCell } from './markdown.js'

const STATE_MARK: Record<SetupCheckRow['state'], string> = {
  ok: '✅ ok',
  problem: '❌ problem',
  'not checked': '➖ not checked',
  'not readable': 'ℹ️ not readable'
}

/** The job summary of `task: check`: a table of what was found, then what to fix. */
export function renderSetupCheckSummary(inspection: Inspection, error?: string): string {
  const failed = inspection.problem !== undefined || error !== undefined
  const lines = [
    `## ${failed ? '❌ Codegen set-up: something to fix' : '✅ Codegen set-up: ready'}`,
    '',
    '| Item | State | Found |',
    '|---|---|---|',
    ...inspection.rows.map(
      row => `| ${row.item} | ${STATE_MARK[row.state]} | ${tableCell(row.found) || ' '} |`
    ),
    ''
  ]
  const fix = inspection.problem ?? error
  if (fix) {
    const [first = '', ...rest] = fix.split('\n')
    lines.push('### What to fix', '', tableCell(first))
    // An organization list: one item a line.
    if (rest.length > 0) lines.push('', ...rest.map(line => `- ${tableCell(line)}`))
    lines.push('')
  } else {
    lines.push('Nothing was created. Remove `task: check` (or set `task: run`) to start agent runs.', '')
  }
  return lines.join('\n')
}
