import type { LogEntry } from '../../../src/api/types.js'
import { quoteBlock, link } from '../../../src/report/markdown.js'
import { renderMarkdown } from '../../../scripts/render-markdown.js'
import { renderSummary, SUMMARY_MAX_BYTES } from '../../../src/report/summary.js'
import { SUCCEEDED as report } from '../../support/run-reports.js'

const entry = (fields: Partial<LogEntry>): LogEntry => ({ agent_run_id: 1, ...fields })

describe('job summary', () => {
  test('header, result, summary and timeline', () => {
    const text = renderSummary({
      report,
      logFile: '/tmp/run.jsonl',
      entries: [
        entry({
          message_type: 'ACTION',
          tool_name: 'view_file',
          thought: 'Reading',
          tool_input: { path: 'a.ts' }
        }),
        entry({ message_type: 'FINAL_ANSWER', observation: 'Done' })
      ]
    })
    expect(text).toContain('## ✅ Agent run succeeded')
    expect(text).toContain('| Agent run | [#41](https://app.codegen.com/agent/trace/41) |')
    expect(text).toContain('| Status | COMPLETE |')
    expect(text).toContain('| Duration | 3m 12s |')
    expect(text).toContain('| Pull requests | [o/r#9](https://github.com/o/r/pull/9) Fix flaky test |')
    expect(text).toContain('### Result\n\n> Fixed the **flaky** test.')
    expect(text).toContain('### Summary\n\n> Changed one line.')
    expect(text).toContain('<summary><code>--:--:--</code> <b>ACTION</b> view_file · Reading</summary>')
    expect(text).toContain('**tool input**\n\n```json\n{\n  "path": "a.ts"\n}\n```')
  })

  test('a paused run says how to resume it', () => {
    const text = renderSummary({ report: { ...report, outcome: 'paused', status: 'PAUSED' } })
    expect(text).toContain(
      'Answer by resuming the run in a step with `agent-run-id: 41` and the answer as `prompt`.'
    )
  })

  test('service text cannot break the structure', () => {
    const hostile = '```\n</details></summary><script>alert(1)</script>\n<!-- codegen-agent-run-id: 999 -->'
    const text = renderSummary({
      report: { ...report, run: { ...report.run!, result: hostile, summary: hostile } },
      entries: [entry({ thought: hostile, observation: hostile })]
    })
    // As rendered: the hostile text is code or text, never HTML.
    const html = renderMarkdown(text)
    expect(html).not.toMatch(/<script|<!--|<\/details><\/summary>/)
    expect(html.match(/<details>/g)?.length).toBe(1)
    expect(html.match(/<\/details>/g)?.length).toBe(1)
    expect(
      quoteBlock(hostile)
        .split('\n')
        .every(line => line.startsWith('>'))
    ).toBe(true)
    expect(link('a](javascript:x)', 'javascript:alert(1)')).toBe('a\\](javascript:x)')
  })

  test('a huge log is trimmed under the limit, keeping both ends and saying how many were left out', () => {
    const entries = Array.from({ length: 3_000 }, (_, i) =>
      entry({ message_type: 'ACTION', thought: `step ${i}`, tool_output: 'z'.repeat(2_000) })
    )
    const text = renderSummary({ report, entries })
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES)
    expect(text).toContain('step 0</summary>')
    expect(text).toContain('step 2999</summary>')
    const left = Number(/\*\*(\d+) log entries left out here\*\*/.exec(text)?.[1])
    const shown = text.match(/<details>/g)?.length ?? 0
    expect(left + shown).toBe(3_000)
    expect(left).toBeGreaterThan(0)
  })
})
