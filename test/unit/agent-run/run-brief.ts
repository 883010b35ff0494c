import { withPlan } from '../../../src/agent-run/run-brief.js'
import type { RunBrief, RunReport } from '../../../src/model.js'
import { planDigest } from '../../../src/thread/plan.js'

/** A plan's run, and an approved plan's, from their ending to their report (src/agent-run/run-brief.ts's withPlan). */

describe('withPlan', () => {
  const brief: RunBrief = {
    prompt: 'Plan it',
    images: [],
    metadata: {},
    origin: {},
    wait: true,
    pollIntervalMs: 5_000,
    plan: { kind: 'plan', askedBy: 'alice' }
  }
  const completed = (result: string | null, pullRequests = 0): RunReport => ({
    outcome: 'success',
    mode: 'create',
    status: 'COMPLETE',
    startedAt: 0,
    endedAt: 1_000,
    entriesSeen: 2,
    run: {
      id: 12,
      organization_id: 1,
      result,
      github_pull_requests: Array.from({ length: pullRequests }, (_, i) => ({
        id: i,
        url: `https://github.com/o/r/pull/${i + 1}`
      }))
    }
  })
  const ending = (report: RunReport, given: RunBrief = brief): { report: RunReport; warnings: string[] } => {
    const warnings: string[] = []
    return { report: withPlan(report, given, { warning: message => warnings.push(message) }), warnings }
  }

  test('a plan’s run that completed with a result is planned: the result is the plan, its digest, who asked', () => {
    const { report, warnings } = ending(completed('1. Do this.\n2. Then that.'))
    expect(report.outcome).toBe('planned')
    expect(report.plan).toEqual({
      text: '1. Do this.\n2. Then that.',
      digest: planDigest('1. Do this.\n2. Then that.'),
      askedBy: 'alice'
    })
    expect(warnings).toEqual([])
  })

  test('a revision keeps the earlier plan; a run that ended otherwise is left as it ended', () => {
    const earlier = { text: 'Old.', digest: planDigest('Old.'), askedBy: 'alice', runId: 12 }
    const revising: RunBrief = { ...brief, plan: { kind: 'plan', askedBy: 'carol', revises: earlier } }
    expect(ending(completed('New.'), revising).report.plan).toEqual({
      text: 'New.',
      digest: planDigest('New.'),
      askedBy: 'alice',
      revisedBy: 'carol',
      earlier: 'Old.'
    })
    const failed = { ...completed('Broke.'), outcome: 'failure' as const }
    expect(ending(failed).report).toEqual(failed)
    expect(ending(completed('Done.'), { ...brief, plan: undefined }).report.outcome).toBe('success')
  })

  test('a plan’s run that completed without a plan is an error, said plainly', () => {
    for (const result of [null, '', '  \n ']) {
      const { report } = ending(completed(result))
      expect(report.outcome).toBe('error')
      expect(report.plan).toBeUndefined()
      expect(report.error).toBe(
        'Agent run 12 was asked for a plan and completed without one: its result is empty. Nothing awaits approval; ask for a plan again.'
      )
    }
  })

  test('a plan’s run that opened pull requests anyway is planned, and warned of', () => {
    const { report, warnings } = ending(completed('The plan.', 2))
    expect(report.outcome).toBe('planned')
    expect(report.plan?.pullRequests).toBe(2)
    expect(warnings).toEqual([
      'Agent run 12 was asked for a plan only, yet opened 2 pull requests: look at them before approving the plan.'
    ])
  })

  test('an approved plan’s run, however it ends, carries the plan, who asked and who approved', () => {
    const plan = { text: 'The plan.', digest: planDigest('The plan.'), askedBy: 'alice', runId: 12 }
    const approving: RunBrief = { ...brief, plan: { kind: 'approve', plan, approvedBy: 'bob', extra: '' } }
    for (const outcome of ['success', 'failure', 'error'] as const) {
      const { report } = ending({ ...completed('Done.'), outcome }, approving)
      expect(report.outcome).toBe(outcome)
      expect(report.plan).toEqual({
        text: 'The plan.',
        digest: plan.digest,
        askedBy: 'alice',
        approvedBy: 'bob'
      })
    }
  })
})
