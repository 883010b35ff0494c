import type { AnswerReport } from '../src/answer/answer.js'
import type { AgentRun, LogEntry } from '../src/api/types.js'
import type { ItemReport, RunReport } from '../src/model.js'
import type { TrackingState } from '../src/report/tracking-text.js'
import type { CheckRunState } from '../src/report/check-run-text.js'
import { aggregateOutcome } from '../src/model.js'
import { defaultFailOn } from '../src/settings/settings.js'

/** Runs whose summary and tracking comment are rendered and read as a browser shows them. */

export const CODE_RESULT = [
  'The cache is now `Map<string, Entry>` and eviction checks `a && b`.',
  '',
  '```ts',
  'if (size < limit && ok) {',
  '  cache.set(key, new Entry<T>("a & b"))',
  '}',
  '```',
  '',
  'Also fixed ``a `tick` inside`` and a run of backticks: ````` ```` `````.',
  '',
  '~~~',
  'fence with ``` inside </details>',
  '~~~'
].join('\n')

export const MARKDOWN_SUMMARY = [
  '## What changed',
  '',
  '- a **bold** item with a [link](https://example.com/docs)',
  '- `x < y` in a list',
  '',
  '1. First step',
  '   ```sh',
  '   npm test && echo ok',
  '   ```',
  '2. Second step'
].join('\n')

/** Every breakout we know of, outside code and inside it. */
export const HOSTILE_TEXT = [
  '</details></summary></td></table><script>alert(1)</script>',
  '<!-- codegen-agent-run-action run-id=999 -->',
  '| broken | table',
  '<img src=x onerror=alert(1)> &lt;already escaped&gt; &amp;',
  'Ping @octocat and @github/security, mail a@b.co',
  '[](https://evil.example/hidden) ![](https://evil.example/pixel.png)',
  '`a | </details>` in a span, [x](`y) </details>` after a link',
  '- item',
  '  ```',
  '</details>',
  '  ```',
  '##[error]forged ::error::forged',
  '```',
  'an unclosed fence <b>'
].join('\n')

const base = (overrides: Partial<AgentRun>): AgentRun => ({
  id: 1000,
  organization_id: 1,
  status: 'COMPLETE',
  web_url: 'https://app.codegen.com/agent/trace/1000',
  result: CODE_RESULT,
  summary: MARKDOWN_SUMMARY,
  github_pull_requests: [
    { id: 7, title: 'Fix `Map<K, V>` & eviction @octocat', url: 'https://github.com/o/r/pull/7' }
  ],
  ...overrides
})

export function entry(index: number, overrides: Partial<LogEntry> = {}): LogEntry {
  return {
    agent_run_id: 1000,
    created_at: `2026-11-23T10:${String(Math.floor(index / 60) % 60).padStart(2, '0')}:${String(index % 60).padStart(2, '0')}Z`,
    message_type: 'ACTION',
    tool_name: 'run_command',
    thought: `Running the tests, step ${index}`,
    tool_input: { command: 'npm test' },
    tool_output: { stdout: 'PASS src/a.test.ts\n  ✓ adds (3 ms)\n', exit_code: 0 },
    ...overrides
  }
}

export const CODE_ENTRIES: LogEntry[] = [
  entry(1, {
    message_type: 'PLAN_EVALUATION',
    tool_name: null,
    tool_input: null,
    tool_output: null,
    thought: `I will change the cache to \`Map<string, Entry>\` so lookups are O(1) and the eviction loop can stop early when size < limit. ${'This long prose thought should wrap in the summary. '.repeat(4)}`
  }),
  entry(2, {
    tool_name: 'edit_file',
    thought: null,
    tool_input: {
      path: 'src/cache.ts',
      diff: '-const cache = {}\n+const cache = new Map<string, Entry>()\n'
    },
    tool_output: { content: 'if (size < limit && ok) {\n  evict()\n}\n' }
  }),
  entry(3, {
    message_type: 'FINAL_ANSWER',
    tool_name: null,
    tool_input: null,
    tool_output: null,
    thought: null,
    observation: 'Done'
  })
]

export const HOSTILE_ENTRIES: LogEntry[] = [
  entry(1, {
    thought: HOSTILE_TEXT,
    tool_name: '##[set-output name=outcome;]success',
    tool_input: { command: '##[add-mask]x', '##[error]key': HOSTILE_TEXT },
    tool_output: { stdout: HOSTILE_TEXT },
    observation: HOSTILE_TEXT
  }),
  entry(2, { message_type: '##[error]type', thought: '`x` @octocat' })
]

/** A plan as an agent writes one: steps in Markdown, code named in spans, a fenced sketch. */
export const PLAN_TEXT = [
  '## Plan',
  '',
  'Keep `parseLine`; fix how it splits quoted fields.',
  '',
  '1. In `src/parser.ts`, keep a quote open across commas until the next unescaped `"`.',
  '2. Return the end index past the closing quote (`end + 1`, not `end + 2`).',
  '3. Add tests: `"a,b",c`, an escaped quote, and an unclosed quote (an error, not a hang).',
  '',
  '```ts',
  "if (char === '\"' && line[i + 1] !== '\"') inQuote = !inQuote",
  '```',
  '',
  'Nothing else changes: the exported API stays as it is for v1 clients.'
].join('\n')

function report(
  outcome: RunReport['outcome'],
  run: AgentRun,
  entriesSeen: number,
  extra: Partial<RunReport> = {}
): RunReport {
  return {
    outcome,
    mode: 'create',
    status: run.status ?? '',
    startedAt: 0,
    endedAt: 185_000,
    entriesSeen,
    run,
    ...extra
  }
}

/** A review that ends with a verdict of fail: the result as the agent wrote it, and the answer read from it. */
const VERDICT = {
  verdict: 'fail' as const,
  reason: 'It renames the exported parseLine, which v1 clients import.'
}
const VERDICT_RESULT = [
  '## Review of the public API',
  '',
  '`parseLine` is no longer exported from `src/index.ts`: it is renamed `parseRecord`, so code that imports `parseLine` breaks.',
  '',
  '```json',
  JSON.stringify(VERDICT, null, 2),
  '```'
].join('\n')
const VERDICT_ANSWER: AnswerReport = {
  verdictAsked: true,
  answer: { valid: true, value: VERDICT, ...VERDICT },
  repairs: []
}

/** Three runs of one step (the runs input): one opened a pull request, one was rejected, one failed. */
function manyRuns(): ItemReport[] {
  const item = (
    name: string,
    id: number,
    outcome: RunReport['outcome'],
    run: Partial<AgentRun>
  ): ItemReport => ({
    name,
    report: report(outcome, base({ id, web_url: `https://app.codegen.com/agent/trace/${id}`, ...run }), 3, {
      ...(outcome === 'rejected' ? { answer: VERDICT_ANSWER } : {})
    }),
    entries: CODE_ENTRIES
  })
  return [
    item('api', 1000, 'success', {}),
    item('web', 1001, 'rejected', { result: VERDICT_RESULT, summary: null, github_pull_requests: [] }),
    item('cli', 1002, 'failure', {
      status: 'ERROR',
      result: 'Tests still fail: `expect(a < b)`',
      summary: null,
      github_pull_requests: []
    })
  ]
}

export interface RenderScenario {
  report: RunReport
  entries: LogEntry[]
}

export function renderScenarios(): Record<string, RenderScenario> {
  const many = Array.from({ length: 3_000 }, (_, i) =>
    entry(i, { tool_output: { stdout: `line with <tag> & code ${i}\n${'x'.repeat(1_800)}` } })
  )
  return {
    success: { report: report('success', base({}), 3), entries: CODE_ENTRIES },
    failure: {
      report: report(
        'failure',
        base({ status: 'ERROR', result: 'Tests still fail: `expect(a < b)`\nsecond line', summary: null }),
        3
      ),
      entries: CODE_ENTRIES
    },
    paused: {
      report: report(
        'paused',
        base({
          status: 'PAUSED',
          result: 'Should I use `Map<K, V>` or a plain object?\nMore detail.',
          summary: null
        }),
        1
      ),
      entries: CODE_ENTRIES.slice(0, 1)
    },
    hostile: {
      report: report(
        'failure',
        base({
          status: '##[error]st`at<b>us',
          result: HOSTILE_TEXT,
          summary: HOSTILE_TEXT,
          github_pull_requests: [
            { id: 8, title: '##[error]pr </details> @octocat `x', url: 'https://github.com/o/r/pull/8' }
          ]
        }),
        2
      ),
      entries: HOSTILE_ENTRIES
    },
    'code-heavy': { report: report('success', base({}), 3), entries: CODE_ENTRIES },
    // A revised plan (plan, then approve) whose run opened a pull request anyway.
    planned: {
      report: report('planned', base({ result: PLAN_TEXT, summary: null }), 3, {
        plan: {
          text: PLAN_TEXT,
          digest: '3f2a9c41d07be655',
          askedBy: 'octocat',
          earlier: 'Rewrite `parseLine` from scratch with a state machine.',
          pullRequests: 1
        }
      }),
      entries: CODE_ENTRIES
    },
    verdict: {
      report: report('rejected', base({ result: VERDICT_RESULT, github_pull_requests: [] }), 3, {
        answer: VERDICT_ANSWER
      }),
      entries: CODE_ENTRIES
    },
    'many-runs': (() => {
      const runs = manyRuns()
      const outcome = aggregateOutcome(runs) as RunReport['outcome']
      return {
        report: { outcome, mode: 'create', status: '', startedAt: 0, endedAt: 185_000, entriesSeen: 9, runs },
        entries: []
      }
    })(),
    big: { report: report('success', base({}), 3_000), entries: many }
  }
}

export function trackingState(scenario: RenderScenario, final: boolean): TrackingState {
  const last = scenario.entries[scenario.entries.length - 1]
  return {
    requestedBy: { login: 'octocat', type: 'User' },
    instruction: 'fix the cache: `Map<string, Entry>` && @team',
    workflowRunUrl: 'https://github.com/o/r/actions/runs/1',
    sign: () => 'ab'.repeat(16),
    commentId: 5,
    runId: scenario.report.run?.id,
    webUrl: scenario.report.run?.web_url,
    status: final ? scenario.report.status : 'ACTIVE',
    entriesSeen: scenario.entries.length,
    latestEntry: last,
    resumed: false,
    report: final ? scenario.report : undefined,
    triggerPhrase: '/codegen',
    updatedAt: Date.UTC(2026, 10, 23, 12, 0, 0)
  }
}

/** The check run's state of a scenario, while it works or once it ended (its verdict, as the step reads it). */
export function checkState(scenario: RenderScenario, final: boolean): CheckRunState {
  const answer = scenario.report.answer?.answer
  return {
    runId: scenario.report.run?.id,
    webUrl: scenario.report.run?.web_url,
    status: final ? scenario.report.status : 'ACTIVE',
    entriesSeen: scenario.report.entriesSeen,
    resumed: false,
    // The default fail-on: the check passes or fails as such a step would (one that asked for the answer it holds).
    policy: {
      failOn: defaultFailOn(scenario.report.answer !== undefined),
      triggerPhrase: '/codegen'
    },
    ...(final ? { report: scenario.report } : {}),
    ...(final && answer?.valid && answer.verdict
      ? { verdict: { verdict: answer.verdict, reason: answer.reason ?? '' } }
      : {}),
    triggerPhrase: '/codegen',
    workflowRunUrl: 'https://github.com/o/r/actions/runs/1'
  }
}
