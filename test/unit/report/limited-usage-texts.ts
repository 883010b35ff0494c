import { limitedMessage } from '../../../src/org/daily-limits.js'
import type { RunReport } from '../../../src/model.js'
import { renderCheckRun } from '../../../src/report/check-run-text.js'
import { stepFailMessage } from '../../../src/report/step-fail.js'
import { renderSummary } from '../../../src/report/summary.js'
import { UsageTally, usageJson } from '../../../src/report/usage.js'
import { renderTrackingComment } from '../../../src/report/tracking-text.js'
import type { FailCondition } from '../../../src/settings/settings.js'
import { renderScenarios } from '../../../scripts/render-fixtures.js'
import { readerText } from '../../../scripts/render-markdown.js'

/** What a limited step and a run's usage look like in the check, the summary, the comment and the failure. */

const NOW = Date.UTC(2025, 5, 21, 9, 0, 30)
const REASON = limitedMessage(
  { kind: 'limited', which: 'author', limit: 2, count: 2, nextAt: NOW + 3_600_000 },
  { repository: 'o/r', author: 'alice' }
)
const limited: RunReport = {
  outcome: 'limited',
  mode: 'create',
  status: '',
  startedAt: NOW,
  endedAt: NOW,
  entriesSeen: 0,
  reason: REASON,
  orgId: 1
}
const policy = (failOn: FailCondition[]) => ({ failOn: new Set(failOn), triggerPhrase: '/codegen' })
const state = (report: RunReport, failOn: FailCondition[] = ['failure']) => ({
  entriesSeen: 0,
  resumed: false,
  report,
  workflowRunUrl: 'https://github.com/o/r/actions/runs/1',
  policy: policy(failOn)
})

test('the notice says which limit, how many runs, and the next time up to the minute, in UTC', () => {
  expect(REASON).toBe(
    'No agent run was started: daily-run-limit-per-author (2) is reached, with 2 runs started by alice from o/r in the last 24 hours. The next run can start at 2025-06-21 10:01 UTC.'
  )
})

test('a limited step: the check passes unless fail-on lists limited, its title and text say why', () => {
  const passing = renderCheckRun(state(limited))
  expect(passing.conclusion).toBe('success')
  // The title is cut to GitHub's line; the summary has the whole notice.
  expect(passing.title).toMatch(
    /^Not started: daily run limit \(fail-on lets it pass\): No agent run was started: daily-run-limit-per-author \(2\)/
  )
  expect(readerText(passing.summary)).toContain(REASON)
  expect(readerText(passing.summary)).toContain('was not started: a daily run limit is reached')
  const failing = renderCheckRun(state(limited, ['limited']))
  expect(failing.conclusion).toBe('failure')
  expect(stepFailMessage(limited, policy(['limited']))).toBe(REASON)
  expect(stepFailMessage(limited, policy(['failure']))).toBeUndefined()
})

test('the summary and the tracking comment of a limited step say the limit', () => {
  expect(readerText(renderSummary({ report: limited }))).toContain(REASON)
  const comment = renderTrackingComment({
    report: limited,
    entriesSeen: 0,
    resumed: false,
    requestedBy: { login: 'alice', type: 'User' },
    triggerPhrase: '/codegen',
    updatedAt: NOW,
    sign: () => 'sig'
  } as unknown as Parameters<typeof renderTrackingComment>[0])
  expect(readerText(comment)).toContain(REASON)
})

test('the usage line in the check shows a hostile tool name as text: no HTML, link, emphasis or mention', () => {
  const tally = new UsageTally()
  const tool = '<img src=x> [a](https://e.com) **b** @alice'
  tally.add([{ message_type: 'ACTION', tool_name: tool }, { message_type: 'ERROR' }] as never)
  const report = renderScenarios()['success']!.report
  const usage = tally.usage({ durationMs: 42_000, pullRequests: 1, resumes: 0, repairs: 1 })
  const check = renderCheckRun(state({ ...report, usage }))
  const text = readerText(check.summary)
  expect(text).toContain(`Usage: 1 tool call (${tool.replace('@', '@\u2060')} 1) · 2 log entries · 1 error`)
  expect(check.summary).not.toContain('<img')
  expect(JSON.parse(usageJson(usage))).toMatchObject({
    tool_calls: 1,
    errors: 1,
    repairs: 1,
    duration_seconds: 42
  })
})
