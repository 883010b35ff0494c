import { serviceMessage } from '../../../src/api/errors.js'
import type { LogEntry, PullRequest } from '../../../src/api/types.js'
import type { RunReport } from '../../../src/model.js'
import { entryHeadline } from '../../../src/report/console-text.js'
import { oneLine, trimmed } from '../../../src/report/entry-text.js'
import { LogMirror } from '../../../src/report/log-mirror.js'
import type { Console } from '../../../src/runner/runner.js'
import { fitBytes, renderSummary, SUMMARY_MAX_BYTES } from '../../../src/report/summary.js'

/**
 * Service text cannot push the job summary over GitHub's 1 MiB limit: every field it fills is cut
 * where it is rendered, and the rendered summary is measured in bytes of UTF-8 at the end.
 */

const MiB2 = 2 * 1024 * 1024
/** 'x' is one byte in UTF-8, '€' three: the limits must hold in bytes, not characters. */
const FLOODS = [
  ['ASCII', 'x'.repeat(MiB2)],
  ['€', '€'.repeat(MiB2)]
] as const

const bytes = (text: string): number => Buffer.byteLength(text)

const normalReport: RunReport = {
  outcome: 'failure',
  mode: 'create',
  status: 'ERROR',
  startedAt: 0,
  endedAt: 3_725_000,
  entriesSeen: 3,
  error: 'The service failed (500) while trying to read the run.',
  run: {
    id: 41,
    organization_id: 1,
    status: 'ERROR',
    web_url: 'https://app.codegen.com/agent/trace/41',
    result: 'Could not fix it.\n\n```ts\nconst a = 1\n```',
    summary: 'Tried twice; see the log.',
    github_pull_requests: [
      { id: 9, title: 'Fix flaky test', url: 'https://github.com/o/r/pull/9' },
      { id: 10, title: null, url: null }
    ]
  }
}

const normalEntries: LogEntry[] = [
  {
    agent_run_id: 41,
    created_at: '2025-06-21 11:20:04.338398',
    message_type: 'ACTION',
    tool_name: 'run_command',
    thought: 'Running the tests to see which one fails',
    tool_input: { command: 'npm test' },
    tool_output: 'FAIL src/a.test.ts\n  ✕ adds (3 ms)'
  },
  {
    agent_run_id: 41,
    created_at: '2025-06-21T11:21:00Z',
    message_type: 'PLAN_EVALUATION',
    thought: 'x'.repeat(150)
  },
  { agent_run_id: 41, created_at: null, message_type: 'ERROR', observation: { error: 'gave up' } }
]

const withRun = (
  fields: Partial<NonNullable<RunReport['run']>>,
  rest: Partial<RunReport> = {}
): RunReport => ({
  ...normalReport,
  ...rest,
  run: { ...normalReport.run!, ...fields }
})

/** Every row and section of the header is there: no guard had to cut the summary short. */
function expectWhole(text: string): void {
  for (const part of [
    '| Agent run |',
    '| Status |',
    '| Outcome | failure |',
    '| Duration | 1h 02m |',
    '| Pull requests |',
    '| Log entries | 3 |',
    '### Error',
    '### Result',
    '### Summary'
  ]) {
    expect(text).toContain(part)
  }
  expect(text).not.toMatch(/bytes of this summary left out/)
}

test('the summary of a normal run keeps its exact form', () => {
  const x150 = 'x'.repeat(150)
  const expected = [
    '## ❌ Agent run failed',
    '',
    '| Agent run | [#41](https://app.codegen.com/agent/trace/41) |',
    '|---|---|',
    '| Status | ERROR |',
    '| Outcome | failure |',
    '| Duration | 1h 02m |',
    '| Pull requests | [o/r#9](https://github.com/o/r/pull/9) Fix flaky test<br>#10 |',
    '| Log entries | 3 (all in the `log-file` output, which `actions/upload-artifact` can keep) |',
    '',
    '### Error',
    '',
    '> The service failed (500) while trying to read the run.',
    '',
    '### Result',
    '',
    '> Could not fix it.',
    '>',
    '> ```ts',
    '> const a = 1',
    '> ```',
    '',
    '### Summary',
    '',
    '> Tried twice; see the log.',
    '',
    '### Log',
    '',
    '<details><summary><code>11:20:04</code> <b>ACTION</b> run_command · Running the tests to see which one fails</summary>',
    '',
    '**tool input**',
    '',
    '```json',
    '{',
    '  "command": "npm test"',
    '}',
    '```',
    '',
    '**tool output**',
    '',
    '```',
    'FAIL src/a.test.ts',
    '  ✕ adds (3 ms)',
    '```',
    '',
    '</details>',
    '',
    `<p><code>11:21:00</code> <b>PLAN_EVALUATION</b> ${x150}</p>`,
    '',
    '<details><summary><code>--:--:--</code> <b>ERROR</b> { &quot;error&quot;: &quot;gave up&quot; }</summary>',
    '',
    '**observation**',
    '',
    '```json',
    '{',
    '  "error": "gave up"',
    '}',
    '```',
    '',
    '</details>',
    '',
    ''
  ].join('\n')
  expect(renderSummary({ report: normalReport, entries: normalEntries, logFile: '/tmp/run.jsonl' })).toBe(
    expected
  )
  expect(normalEntries.map(entryHeadline)).toEqual([
    '11:20:04  ACTION           run_command · Running the tests to see which one fails',
    `11:21:00  PLAN_EVALUATION  ${x150}`,
    '--:--:--  ERROR            { "error": "gave up" }'
  ])
})

describe.each(FLOODS)('a 2 MiB field (%s) is cut where it is rendered', (_name, flood) => {
  test('pull request title', () => {
    const text = renderSummary({
      report: withRun({
        github_pull_requests: [{ id: 9, title: flood, url: 'https://github.com/o/r/pull/9' }]
      })
    })
    expectWhole(text)
    expect(text).toMatch(
      /\| Pull requests \| \[o\/r#9\]\(https:\/\/github.com\/o\/r\/pull\/9\) (x|€){199}… \|/
    )
    expect(bytes(text)).toBeLessThan(5_000)
  })

  test('pull request url and id', () => {
    const pr: PullRequest = { id: flood as unknown as number, url: `https://github.com/${flood}` }
    const text = renderSummary({ report: withRun({ github_pull_requests: [pr] }) })
    expectWhole(text)
    expect(text).toMatch(/\| Pull requests \| #(x|€){199}… \|/)
    expect(bytes(text)).toBeLessThan(5_000)
  })

  test('web_url', () => {
    const text = renderSummary({ report: withRun({ web_url: `https://app.codegen.com/${flood}` }) })
    expectWhole(text)
    expect(text).toContain('| Agent run | #41 |')
    expect(bytes(text)).toBeLessThan(5_000)
  })

  test('status', () => {
    const text = renderSummary({ report: { ...normalReport, status: flood } })
    expectWhole(text)
    expect(text).toMatch(/\| Status \| (x|€){99}… \|/)
    expect(bytes(text)).toBeLessThan(5_000)
  })

  test('error and reason', () => {
    const text = renderSummary({ report: { ...normalReport, error: flood, reason: flood } })
    expectWhole(text)
    expect(text.match(/… \(2087152 more characters\)/g)).toHaveLength(2)
    expect(bytes(text)).toBeLessThan(2 * 3 * 10_000 + 5_000)
  })

  test('result and summary', () => {
    const text = renderSummary({ report: withRun({ result: flood, summary: flood }) })
    expectWhole(text)
    expect(bytes(text)).toBeLessThan(2 * 3 * 60_000 + 5_000)
  })

  test('tool_name, message_type and thought of a log entry, in the timeline', () => {
    const entry: LogEntry = { agent_run_id: 41, message_type: flood, tool_name: flood, thought: flood }
    const text = renderSummary({ report: normalReport, entries: [entry] })
    expectWhole(text)
    // The entry shows, cut, rather than being left out of the timeline as too big.
    expect(text).not.toMatch(/log entries left out/)
    expect(text).toMatch(/<b>(x|€){39}…<\/b> (x|€){79}… · (x|€){199}…<\/summary>/)
    expect(bytes(text)).toBeLessThan(3 * 4_000 + 5_000)
  })

  test('tool_name, message_type and thought of a log entry, on the console', () => {
    const line = entryHeadline({ agent_run_id: 41, message_type: flood, tool_name: flood, thought: flood })
    expect(line).toMatch(/^--:--:-- {2}(x|€){39}… (x|€){79}… · (x|€){159}…$/)
  })

  test('web_url and a notice quoting the service, on the console', () => {
    const lines: string[] = []
    const console: Console = {
      info: line => lines.push(line),
      group: title => lines.push(title),
      notice: line => lines.push(line),
      warning: line => lines.push(line),
      debug: () => undefined
    }
    const mirror = new LogMirror(console, {
      toConsole: true,
      keepEntries: false,
      openLogFile: () => ({ path: '', append: () => undefined })
    })
    mirror.started({ id: 41, organization_id: 1, status: 'ACTIVE', web_url: `https://x/${flood}` }, 'create')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^Agent run 41 created: https:\/\/x\/(x|€){489}… \(status ACTIVE\)$/)
    mirror.warning(`Unknown run status "${flood}": treating it as still working.`)
    expect(lines[1]).toMatch(/^Unknown run status "(x|€){1980}\n… \(2095204 more characters\)$/)
  })

  test('the service error message', () => {
    for (const body of [
      { message: flood },
      { detail: flood },
      { detail: [{ loc: ['body', 'prompt'], msg: flood }] },
      { detail: Array.from({ length: 100_000 }, () => ({ loc: ['body', 'images', 0], msg: 'bad' })) }
    ]) {
      const message = serviceMessage(JSON.stringify(body))
      expect(message.length).toBe(1_000)
      expect(message.endsWith('…')).toBe(true)
    }
  })
})

test('thousands of pull requests: the first twenty are linked, the rest counted', () => {
  const prs: PullRequest[] = Array.from({ length: 5_000 }, (_, i) => ({
    id: i,
    title: `PR ${i}`,
    url: `https://github.com/o/r/pull/${i}`
  }))
  const text = renderSummary({ report: withRun({ github_pull_requests: prs }) })
  expectWhole(text)
  expect(text).toContain(
    '[o/r#19](https://github.com/o/r/pull/19) PR 19<br>and 4980 more (all in the `github-pull-requests` output) |'
  )
  expect(text).not.toContain('pull/20)')
  expect(bytes(text)).toBeLessThan(5_000)
})

test('pull request fields of the wrong type read as text', () => {
  const prs = [
    { id: 1, title: 42, url: { href: 'https://x' } },
    { id: 2, title: { a: 1 } }
  ] as unknown as PullRequest[]
  const text = renderSummary({ report: withRun({ github_pull_requests: prs }) })
  expect(text).toContain('| Pull requests | 42<br>{ "a": 1 } |')
})

test('every field flooded at once stays under the limit, entries included', () => {
  // 1.2 MB a field: each alone over the limit.
  const flood = '€'.repeat(400_000)
  const prs = Array.from({ length: 1_000 }, () => ({
    id: 1,
    title: flood,
    url: `https://github.com/${'€'.repeat(1_990)}`
  }))
  const entries: LogEntry[] = Array.from({ length: 50 }, () => ({
    agent_run_id: 41,
    created_at: flood,
    message_type: flood,
    tool_name: flood,
    thought: flood,
    tool_input: flood,
    tool_output: flood,
    observation: flood
  }))
  const text = renderSummary({
    report: {
      ...withRun({ web_url: flood, result: flood, summary: flood, github_pull_requests: prs }),
      status: flood,
      error: flood,
      reason: flood
    },
    entries,
    logFile: '/tmp/run.jsonl'
  })
  expect(bytes(text)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES)
  expect(text).toContain('### Log')
  // Balanced, and not because nothing rendered: entries are shown.
  const opened = text.match(/<details>/g)?.length ?? 0
  expect(opened).toBeGreaterThan(0)
  expect(text.match(/<\/details>/g)?.length ?? 0).toBe(opened)
})

test('a cut never leaves half of a surrogate pair', () => {
  expect(oneLine('😀'.repeat(10), 4)).toBe('😀…')
  expect(trimmed('😀'.repeat(10), 3)).toBe('😀\n… (18 more characters)')
})

describe('the last guard, in bytes', () => {
  test('a header over the limit is cut at a line, in bytes of UTF-8, and says so', () => {
    // 40,400 characters are under the character cap of the result, but 120,400 bytes.
    const result = `${'€'.repeat(100)}\n`.repeat(400)
    const text = renderSummary({ report: withRun({ result }), maxBytes: 50_000 })
    const withLog = renderSummary({ report: withRun({ result }), entries: normalEntries, maxBytes: 50_000 })
    expect(bytes(withLog)).toBeLessThanOrEqual(50_000)
    expect(withLog).toMatch(/bytes of this summary left out here/)
    expect(bytes(text)).toBeLessThanOrEqual(50_000)
    expect(text).toMatch(
      /\n\n> \*\*\d+ bytes of this summary left out here\*\* to keep it under GitHub's 1 MiB limit\.\n$/
    )
    expect(text).toContain('| Log entries | 3 |')
    expect(text).not.toContain('\uFFFD')
    // Cut at a line end: each quoted line of the result is whole.
    const quoted = text.split('\n').filter(line => line.startsWith('> €'))
    expect(quoted.length).toBeGreaterThan(100)
    expect(quoted.every(line => line === `> ${'€'.repeat(100)}`)).toBe(true)
  })

  test('blocks left open by the cut are closed', () => {
    const markdown = `## Log\n\n<details><summary>a</summary>\n\n\`\`\`\`\n${'€ line\n'.repeat(100_000)}\`\`\`\`\n\n</details>\n`
    const text = fitBytes(markdown, 10_000)
    expect(bytes(text)).toBeLessThanOrEqual(10_000)
    expect(text).toMatch(/€ line\n````\n\n<\/details>\n\n> \*\*\d+ bytes of this summary left out here\*\*/)
    expect(fitBytes('short', 10)).toBe('short')
    // With no line end to cut at, the cut still falls between characters.
    for (const limit of [1_000, 1_001, 1_002]) {
      const line = fitBytes('€'.repeat(10_000), limit)
      expect(bytes(line)).toBeLessThanOrEqual(limit)
      expect(line).toMatch(/^€+\n\n> \*\*\d+ bytes/)
    }
  })

  test('a timeline over a small limit keeps within it and says how many entries it left out', () => {
    const entries: LogEntry[] = Array.from({ length: 200 }, (_, i) => ({
      agent_run_id: 41,
      thought: `step ${i}`,
      tool_output: '€'.repeat(3_000)
    }))
    const text = renderSummary({ report: normalReport, entries, maxBytes: 100_000 })
    expect(bytes(text)).toBeLessThanOrEqual(100_000)
    expect(text).toMatch(/\*\*\d+ log entries left out here\*\*/)
    expect(text).not.toMatch(/bytes of this summary left out/)
  })
})
