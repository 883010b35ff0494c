import type { LogEntry } from '../../../src/api/types.js'
import type { ItemReport } from '../../../src/model.js'
import { itemsFailingStep } from '../../../src/report/step-fail.js'
import { item, judged } from '../../support/item-reports.js'
import { readerText, renderMarkdown, visibleText } from '../../../scripts/render-markdown.js'
import {
  itemsFailMessage,
  renderRunsSummary,
  RUNS_RESULT_CHARS,
  runsOutput,
  runsStateLine
} from '../../../src/report/runs-report.js'
import type { FailCondition } from '../../../src/settings/settings.js'
import { runnerCommands } from '../../support/runner-commands.js'

const failOn = new Set<FailCondition>(['failure', 'timeout', 'rejected', 'invalid-output'])

describe('the runs output', () => {
  test('one object per item in its order, every key, the result cut to 2,000 characters', () => {
    const long = 'é'.repeat(RUNS_RESULT_CHARS - 1) + '😀😀'
    const first = item('api', 'success', 11)
    first.report!.run!.result = long
    first.report!.run!.github_pull_requests = [
      { id: 1, title: 'Bump', url: 'https://github.com/o/api/pull/1', created_at: '', head_branch_name: 'b' }
    ]
    const items: ItemReport[] = [
      first,
      judged(item('web', 'rejected', 12), 'fail', 'no tests'),
      { name: 'run 3' }
    ]
    const output = JSON.parse(runsOutput(items)) as Array<Record<string, string>>
    expect(output).toHaveLength(3)
    expect(Object.keys(output[0]!)).toEqual([
      'name',
      'agent-run-id',
      'status',
      'outcome',
      'web-url',
      'pull-request-url',
      'verdict',
      'verdict-reason',
      'result',
      'usage'
    ])
    expect(output[0]).toMatchObject({
      name: 'api',
      'agent-run-id': '11',
      status: 'COMPLETE',
      outcome: 'success',
      'web-url': 'https://app.codegen.com/agent/trace/11',
      'pull-request-url': 'https://github.com/o/api/pull/1'
    })
    // Cut before the emoji that would be split in half.
    expect(output[0]!.result).toBe('é'.repeat(RUNS_RESULT_CHARS - 1))
    expect(output[1]).toMatchObject({ outcome: 'rejected', verdict: 'fail', 'verdict-reason': 'no tests' })
    expect(output[2]).toEqual({
      name: 'run 3',
      'agent-run-id': '',
      status: '',
      outcome: 'cancelled',
      'web-url': '',
      'pull-request-url': '',
      verdict: '',
      'verdict-reason': '',
      result: '',
      // Never started: no usage.
      usage: null
    })
  })
})

const entry = (i: number, thought: string): LogEntry => ({
  agent_run_id: 1,
  created_at: '2025-06-21T11:20:04Z',
  message_type: 'ACTION',
  tool_name: 'run_command',
  thought,
  observation: `output ${i}\n${'x'.repeat(3_000)}`
})

describe('the summary of a fan-out', () => {
  test('one table first: a row per run (name, outcome, status, verdict, duration, pull request, link)', () => {
    const pr = {
      id: 7,
      title: 'Upgrade lodash',
      url: 'https://github.com/o/api/pull/7',
      created_at: '',
      head_branch_name: 'x'
    }
    const api = item('api', 'success', 21)
    api.report!.run!.github_pull_requests = [pr, { ...pr, id: 8 }]
    const items = [api, judged(item('web', 'rejected', 22), 'fail', 'no tests'), { name: 'run 3' }]
    const html = renderMarkdown(renderRunsSummary({ items }))
    const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(match =>
      [...(match[1] ?? '').matchAll(/<t[hd]>([\s\S]*?)<\/t[hd]>/g)].map(cell => readerText(cell[1] ?? ''))
    )
    expect(rows).toEqual([
      ['Run', 'Outcome', 'Status', 'Verdict', 'Duration', 'Pull request', 'Link'],
      ['api', '✅ success', 'COMPLETE', '—', '4m 14s', 'o/api#7 Upgrade lodash and 1 more', '#21'],
      ['web', '🚫 rejected', 'COMPLETE', 'fail', '4m 14s', '—', '#22'],
      ['run 3', '🛑 cancelled', '—', '—', '—', '—', '—']
    ])
    expect(html).toContain('<a href="https://app.codegen.com/agent/trace/21">#21</a>')
    // One table: the folds do not repeat each run's facts.
    expect(html.match(/<table>/g)).toHaveLength(1)
    const text = readerText(renderRunsSummary({ items }))
    expect(text.split('\n')[0]).toBe('🚫 3 agent runs: 1 success, 1 rejected, 1 cancelled')
    // Each started run's result folded under its name, after the table.
    expect(text).toMatch(
      /api · ✅ success[\s\S]*Result of api[\s\S]*web · 🚫 rejected[\s\S]*(no tests[\s\S]*Result of web|Result of web[\s\S]*no tests)/
    )
    expect(html.match(/<details><summary><b>/g)).toHaveLength(2)
  })

  test("the service's text and the names are shown as written, never as HTML, links or mentions", () => {
    const hostile = item('<img src=x onerror=alert(1)> @octocat', 'failure', 31)
    hostile.report!.status = '<b>BAD</b> | x'
    hostile.report!.run!.result = '</details><script>alert(1)</script> [click](javascript:alert(1)) @org/team'
    const html = renderMarkdown(renderRunsSummary({ items: [hostile] }))
    expect(html).not.toMatch(/<img|<script|<b>BAD|href="javascript/)
    const text = readerText(renderRunsSummary({ items: [hostile] }))
    expect(text).toContain('<img src=x onerror=alert(1)> @\u2060octocat')
    expect(text).toContain('<b>BAD</b> | x')
    expect(text).toContain('</details><script>alert(1)</script>')
    expect(text).not.toMatch(/(^|\s)@org\/team/)
  })

  test('100 runs with long results and timelines stay within 1 MiB, every row and fold kept', () => {
    const items = Array.from({ length: 100 }, (_, i) => {
      const it = item(`service-${i}`, i % 7 === 0 ? 'failure' : 'success', 1_000 + i)
      it.report!.run!.result = `# Result ${i}\n\n${'lorem ipsum '.repeat(8_000)}`
      // What a fan-out keeps of each run's log: its first and last 25 entries.
      it.report!.entriesSeen = 400
      it.entries = Array.from({ length: 50 }, (_, j) => entry(j, `step ${j} of run ${i}`))
      it.entriesLeftOut = { after: 25, count: 350 }
      return it
    })
    const started = Date.now()
    const markdown = renderRunsSummary({ items })
    const renderMs = Date.now() - started
    if (process.env.SHOW_FIGURES) console.log(`100 runs rendered in ${renderMs} ms`)
    // About 1 s on an idle machine, 3.4 s at a load of 15 on 2 cores: the bound catches a quadratic cost.
    expect(renderMs).toBeLessThan(10_000)
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(1_000_000)
    const html = renderMarkdown(markdown)
    expect(html.match(/<tr>/g)).toHaveLength(101)
    expect(html.match(/<details><summary><b>service-/g)).toHaveLength(100)
    const text = visibleText(html)
    expect(text).toContain('service-99 · ✅ success')
    expect(text).toContain('Result 99')
    // Each timeline keeps how its run ended (its beginning too when there is room: see below), and
    // counts what it left out.
    expect(text).toContain('step 49 of run 99')
    expect(text).toMatch(/\d+ log entries left out here/)
    // Balanced: every fold is closed, so each run's timeline stays under its own name.
    expect(html.split('<details>').length).toBe(html.split('</details>').length)
  })

  test('a short run leaves its share to a long one', () => {
    const short = item('short', 'success', 41)
    const long = item('long', 'success', 42)
    long.report!.entriesSeen = 300
    long.entries = Array.from({ length: 300 }, (_, j) => entry(j, `step ${j}`))
    const text = readerText(renderRunsSummary({ items: [short, long], maxBytes: 400_000 }))
    const shown = (text.match(/step \d+/g) ?? []).length
    // An equal share (about 200 KB) holds about 60 entries of 3 KB; the second pass gives it the rest.
    expect(shown).toBeGreaterThan(100)
  })
})

describe('the console line of every run’s state', () => {
  test('counts, then each run by name, one line the runner takes no command from', () => {
    const line = runsStateLine(
      [
        { name: 'api', phase: 'working', status: 'ACTIVE' },
        { name: 'web', phase: 'ended', status: 'COMPLETE', outcome: 'success' },
        {
          name: 'x\n::error::owned ##[warning]y',
          phase: 'working',
          status: '::set-output name=a::b\r##[error]z'
        },
        { name: 'run 4', phase: 'queued', status: null }
      ],
      125_000
    )
    expect(line.split('\n')).toHaveLength(1)
    expect(line).toMatch(
      /^Agent runs after 2m 05s: 2 working, 1 ended, 1 queued \| api: ACTIVE \| web: success \| /
    )
    expect(line).toContain('run 4: queued')
    expect(runnerCommands(line)).toEqual([])
  })
})

describe('the failure annotation', () => {
  test('names each failing run and why, one line each, no command', () => {
    const web = item('web', 'failure', 52)
    web.report!.run!.result = 'Tests fail in\nsrc/a.ts'
    const ops = item('ops\r::error::x', 'error', 53, { error: 'Could not create the agent run: 402' })
    const failing = itemsFailingStep([item('api', 'success'), web, ops], failOn)
    const message = itemsFailMessage(failing, 3)
    expect(message.split('\n')).toEqual([
      '2 of 3 agent runs failed the step:',
      '- web: failure, The agent run failed. Result: Tests fail in (agent run 52: https://app.codegen.com/agent/trace/52)',
      expect.stringMatching(/^- ops ::error::x: error, Could not create the agent run: 402 \(agent run 53/)
    ])
    expect(runnerCommands(message)).toEqual([])
  })
})
