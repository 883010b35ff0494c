import type { LogEntry, PullRequest } from '../../src/api/types.js'
import type { RunReport } from '../../src/model.js'
import { entryDetailLines, entryHeadline, inlineText, prefixedLines } from '../../src/report/console-text.js'
import { entryTime, formatDuration } from '../../src/report/entry-text.js'
import { quoteBlock, link } from '../../src/report/markdown.js'
import { renderMarkdown } from '../../scripts/render-markdown.js'
import { actionOutputs, OUTPUT_NAMES } from '../../src/report/outputs.js'
import { redactDeep } from '../../src/redact.js'
import { renderSummary, SUMMARY_LIMIT_BYTES } from '../../src/report/summary.js'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'

const entry = (fields: Partial<LogEntry>): LogEntry => ({ agent_run_id: 1, ...fields })

const report: RunReport = {
  outcome: 'success',
  mode: 'create',
  status: 'COMPLETE',
  startedAt: 0,
  endedAt: 192_000,
  entriesSeen: 2,
  run: {
    id: 41,
    organization_id: 1,
    status: 'COMPLETE',
    web_url: 'https://app.codegen.com/agent/trace/41',
    result: 'Fixed the **flaky** test.',
    summary: 'Changed one line.',
    github_pull_requests: [
      {
        id: 9,
        title: 'Fix flaky test',
        url: 'https://github.com/o/r/pull/9',
        created_at: '',
        head_branch_name: 'fix'
      }
    ]
  }
}

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

  test('times are read with or without T and zone', () => {
    expect(entryTime(entry({ created_at: '2025-06-21T11:20:04Z' }))).toBe('11:20:04')
    expect(entryTime(entry({ created_at: '2025-06-21T13:20:04+02:00' }))).toBe('11:20:04')
    expect(entryTime(entry({ created_at: null }))).toBe('--:--:--')
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
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(SUMMARY_LIMIT_BYTES)
    expect(text).toContain('step 0</summary>')
    expect(text).toContain('step 2999</summary>')
    const left = Number(/\*\*(\d+) log entries left out here\*\*/.exec(text)?.[1])
    const shown = text.match(/<details>/g)?.length ?? 0
    expect(left + shown).toBe(3_000)
    expect(left).toBeGreaterThan(0)
  })

  test('durations read naturally', () => {
    expect(formatDuration(4_400)).toBe('4s')
    expect(formatDuration(192_000)).toBe('3m 12s')
    expect(formatDuration(3_720_000)).toBe('1h 02m')
  })
})

describe('outputs', () => {
  test('every output is set, pull requests as JSON', () => {
    const outputs = actionOutputs(report, '/tmp/run.jsonl')
    expect(Object.keys(outputs)).toEqual([...OUTPUT_NAMES])
    expect(outputs).toMatchObject({
      'agent-run-id': '41',
      status: 'COMPLETE',
      outcome: 'success',
      'pull-request-url': 'https://github.com/o/r/pull/9',
      'log-count': '2',
      'log-file': '/tmp/run.jsonl'
    })
    expect(JSON.parse(outputs['github-pull-requests'])).toHaveLength(1)
    expect(
      actionOutputs({ ...report, run: undefined, outcome: 'error', status: '' }, '')['github-pull-requests']
    ).toBe('[]')
    // The first pull request with a URL that is text: a drifting answer's odd value is passed over.
    const odd = {
      ...report.run!,
      github_pull_requests: [
        { id: 1, url: { href: 'x' } },
        { id: 2, url: 'u' }
      ] as unknown as PullRequest[]
    }
    expect(actionOutputs({ ...report, run: odd }, '')['pull-request-url']).toBe('u')
  })

  test('action.yml declares exactly these outputs', () => {
    const action = parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as {
      outputs: Record<string, { description: string }>
    }
    expect(Object.keys(action.outputs)).toEqual([...OUTPUT_NAMES])
  })
})

test('redactDeep replaces secrets in nested strings', () => {
  expect(redactDeep({ a: ['x secret-token y'], b: { c: 'secret-token' }, n: 1 }, ['secret-token'])).toEqual({
    a: ['x *** y'],
    b: { c: '***' },
    n: 1
  })
})
