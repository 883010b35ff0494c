import type { AgentRun } from '../../../src/api/types.js'
import { plannedBrief, readShownPlan } from '../../../src/agent-run/plan-run.js'
import type { RunBrief, ShownPlan } from '../../../src/model.js'
import { planDigest } from '../../../src/thread/plan.js'

/** The shown plan read from its run, and the brief that carries it whole (src/agent-run/plan-run.ts). */

const PLAN = '1. Read the parser.\n2. Keep the last field.'
const run = (result: string | null, metadata: AgentRun['metadata'] = null): AgentRun => ({
  id: 40,
  organization_id: 1,
  status: 'COMPLETE',
  result,
  metadata
})
const shown: ShownPlan = { text: '', digest: planDigest(PLAN), askedBy: '', runId: 40 }

describe('readShownPlan', () => {
  test('the run’s result whole when its digest is the marker’s; who asked from its metadata', () => {
    const metadata = { github_action: { author: 'carol', plan_asked_by: 'alice' } }
    expect(readShownPlan(shown, run(PLAN, metadata))).toEqual({ ...shown, text: PLAN, askedBy: 'alice' })
    expect(readShownPlan(shown, run(PLAN, { github_action: { author: 'carol' } }))).toMatchObject({
      askedBy: 'carol'
    })
    expect(readShownPlan(shown, run(PLAN))).toMatchObject({ askedBy: '' })
  })

  test('another result, or none, is not the plan shown: a plain refusal', () => {
    expect(readShownPlan(shown, run(`${PLAN} `))).toEqual({
      mismatch: `Agent run 40's plan is not the one the tracking comment showed (plan ${shown.digest}; the run's result now reads as plan ${planDigest(`${PLAN} `)}): nothing was carried out. Ask for the plan again with a plan request.`
    })
    expect(readShownPlan(shown, run(null))).toMatchObject({
      mismatch: expect.stringContaining('the run has no result now')
    })
  })
})

describe('plannedBrief', () => {
  const brief = (plan: RunBrief['plan']): RunBrief => ({
    prompt: '',
    images: [],
    resumeRunId: 40,
    metadata: {},
    origin: { author: 'bob' },
    wait: true,
    pollIntervalMs: 5_000,
    carryOn: { prompt: 'The thread as a new run has it.' },
    plan
  })
  const read = { ...shown, text: 'x'.repeat(20_000), askedBy: 'alice' }

  test('an approval: the plan whole in the resume and the fresh run, its digest, asker and approver in the metadata', () => {
    const planned = plannedBrief(
      brief({ kind: 'approve', plan: shown, approvedBy: 'bob', extra: 'add a test' }),
      read
    )
    if ('refused' in planned) throw new Error(planned.refused)
    expect(planned.prompt).toMatch(/^Carry out the approved plan\. @bob approved/)
    expect(planned.prompt).toContain(`> ${'x'.repeat(20_000)}`)
    expect(planned.prompt).toContain("The approver's extra instructions: add a test")
    expect(planned.carryOn?.prompt).toMatch(
      /^The thread as a new run has it\.\n\nCarry out the approved plan/
    )
    expect(planned.carryOn?.prompt).toContain(`> ${'x'.repeat(20_000)}`)
    expect(planned.origin).toEqual({
      author: 'bob',
      plan_asked_by: 'alice',
      plan_digest: shown.digest,
      plan_run_id: '40',
      plan_approved_by: 'bob'
    })
    expect(planned.plan).toEqual({ kind: 'approve', plan: read, approvedBy: 'bob', extra: 'add a test' })
  })

  test('allow-self-approval false refuses the asker (any case), and no one else; everyone when the asker is unknown', () => {
    const refusing = { kind: 'approve' as const, plan: shown, extra: '', askerRefused: 'who may.' }
    expect(plannedBrief(brief({ ...refusing, approvedBy: 'Alice' }), read)).toEqual({
      refused: '@Alice asked for this plan, and allow-self-approval is false: who may.'
    })
    expect(plannedBrief(brief({ ...refusing, approvedBy: 'bob' }), read)).not.toHaveProperty('refused')
    expect(plannedBrief(brief({ ...refusing, approvedBy: 'bob' }), { ...read, askedBy: '' })).toEqual({
      refused:
        "Agent run 40's metadata does not say who asked for this plan, and allow-self-approval is false: nothing was carried out, as @bob may have asked for it. Ask for the plan again with a plan request."
    })
    const allowing = { kind: 'approve' as const, plan: shown, extra: '', approvedBy: 'bob' }
    expect(plannedBrief(brief(allowing), { ...read, askedBy: '' })).not.toHaveProperty('refused')
  })

  test('a revision: the plan it revises in the brief, and whole in the fresh run’s prompt; its first asker kept', () => {
    const planned = plannedBrief(brief({ kind: 'plan', askedBy: 'carol', revises: shown }), read)
    if ('refused' in planned) throw new Error(planned.refused)
    expect(planned.plan).toEqual({ kind: 'plan', askedBy: 'carol', revises: read })
    expect(planned.prompt).toBe('')
    expect(planned.carryOn?.prompt).toContain("The plan to revise (the earlier run's final answer, whole):")
    expect(planned.carryOn?.prompt).toContain(`> ${'x'.repeat(20_000)}`)
    expect(planned.origin).toEqual({ author: 'bob', plan_asked_by: 'alice' })
  })
})
