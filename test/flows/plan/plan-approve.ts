import type { RunScript } from '../../../emulator/index.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { markerLine } from '../../../src/github-shapes.js'
import { planDigest } from '../../../src/thread/plan.js'
import { markerSignature, readMarker } from '../../../src/thread/tracking.js'
import { issueCommentEvent, labeledEvent, reviewEvent } from '../../support/webhooks.js'
import {
  addParserPullRequest,
  clock,
  creates,
  emulator,
  fast,
  github,
  onEvent,
  resumes,
  trackingComments,
  useEmulator
} from '../../support/comment-world.js'

/**
 * Plan, then approve, on the thread (issue 46): `/codegen plan` asks for a plan only, a revision
 * resumes the plan's run, `/codegen approve` carries out the plan the tracking comment showed (its
 * signed marker's digest, its last edit before the approval), by someone who may approve. The plan's
 * marker (plan=<digest>) is written here as the tracking comment writes it once a plan is shown.
 */

const PLAN = '1. Read the parser.\n2. Keep the last field when the line ends.\n3. Add a test for `a,"b"`.'

/** A plan's run: it works, then completes with the plan as its result; `followUps` answer its resumes. */
function planScript(text: string, followUps: RunScript[] = []): RunScript {
  return {
    steps: [
      { at: 0, status: 'RUNNING' },
      { at: 400, status: 'COMPLETE', result: text }
    ],
    followUps
  }
}

/** The marker of a tracking comment showing plan `plan` (a digest, or working) of run `runId`. */
function planMarker(commentId: number, runId: number, plan: string): string {
  const key = { secret: 'emulator-token', repository: 'octo-org/octo-repo', issueNumber: 7 }
  return markerLine(runId, markerSignature(key, commentId, runId, 'issue', plan), plan)
}

/** The tracking comment `id` now shows `plan` (its marker's plan field), edited now. */
function showPlan(id: number, runId: number, plan: string): void {
  const body = github.comments(7).find(c => c.id === id)?.body ?? ''
  github.editComment(id, [planMarker(id, runId, plan), ...body.split('\n').slice(1)].join('\n'))
}

/** `login`'s comment, written now, and its event (dated as GitHub dates it). */
function commentNow(body: string, login = 'bob', pullRequest = false): ReturnType<typeof issueCommentEvent> {
  const stored = github.addComment(7, body, { login, type: 'User' })
  const event = issueCommentEvent({ body, login, commentId: stored.id, pullRequest })
  event.payload.comment.created_at = stored.created_at
  return event
}

/**
 * alice asks for a plan, the run answers `text`, the tracking comment shows it (marker plan=<digest>),
 * and two seconds pass: GitHub's times are to the second.
 */
async function planShown(
  text = PLAN,
  followUps: RunScript[] = [fast('success')],
  inputs: Record<string, string> = {}
): Promise<{ runId: number; trackingId: number; digest: string }> {
  emulator.queueScript(planScript(text, followUps))
  const asked = await onEvent(commentNow('/codegen plan fix the parser', 'alice'), inputs)
  expect(asked.exitCode).toBe(0)
  expect(asked.outputs['outcome']).toBe('planned')
  const runId = emulator.runs()[0]!.id
  const trackingId = trackingComments()[0]!.id
  const digest = planDigest(text)
  expect(readMarker(trackingComments()[0]!.body)).toMatchObject({ runId, plan: digest })
  later(2_000)
  return { runId, trackingId, digest }
}

/** Two seconds later, an approval starts nothing: no plan awaits it. */
async function expectNoPlanAwaits(): Promise<void> {
  later(2_000)
  const result = await onEvent(commentNow('/codegen approve'))
  expect(result.outputs['outcome']).toBe('skipped')
  expect(result.stdout).toContain('No plan awaits approval on this thread')
}

/** Time passes between two steps (a person reads, then writes). */
function later(ms: number): void {
  clock().time += ms
}

const prompt = (request: { body: unknown }): string => (request.body as { prompt: string }).prompt
const origin = (request: { body: unknown }): Record<string, unknown> =>
  (request.body as { metadata: { github_action: Record<string, unknown> } }).metadata.github_action
/** The action's comments after the first (the plan's tracking comment). */
const replies = () => trackingComments().slice(1)
/** What a reader sees of the action's reply (its `n`th comment after the plan's). */
const replyText = (n = 0): string => readerText(replies()[n]?.body ?? '').replaceAll('\u2060', '')

describe('plan, then approve', () => {
  test('/codegen plan starts a run asked for a plan only, its asker in its metadata', async () => {
    emulator.queueScript(planScript(PLAN))
    const result = await onEvent(commentNow('/codegen plan fix the quoted fields', 'alice'))
    expect(result.exitCode).toBe(0)
    expect(result.outputs['outcome']).toBe('planned')
    // The tracking comment said plan=working while the plan was written, then the plan's digest.
    const markers = github.requests
      .filter(r => r.method === 'PATCH')
      .map(r => readMarker((r.body as { body: string }).body)?.plan)
    expect(markers).toContain('working')
    expect(markers[markers.length - 1]).toBe(planDigest(PLAN))
    expect(creates()).toHaveLength(1)
    const asked = prompt(creates()[0]!)
    expect(asked).toContain('fix the quoted fields')
    expect(asked).not.toMatch(/plan fix the quoted/)
    expect(asked).toContain(
      'This run is asked for a plan only. Do not change any file, create a branch, push or open a pull request.'
    )
    expect(asked).toContain('give the plan as your final answer')
    expect(asked).toContain('replies `/codegen approve` to have it carried out')
    expect(origin(creates()[0]!)).toMatchObject({ author: 'alice', plan_asked_by: 'alice' })
    expect(trackingComments()).toHaveLength(1)
    expect(resumes()).toHaveLength(0)
  })

  test('plan: true makes a label a plan request; a plan request on a thread with a run starts a run of its own', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(commentNow('/codegen fix it', 'alice'))
    emulator.queueScript(planScript(PLAN))
    later(2_000)
    const result = await onEvent(labeledEvent({ label: 'codegen', number: 7 }), {
      'label-trigger': 'codegen',
      plan: 'true'
    })
    expect(result.exitCode).toBe(0)
    expect(creates()).toHaveLength(2)
    expect(resumes()).toHaveLength(0)
    expect(prompt(creates()[1]!)).toContain('This run is asked for a plan only.')
    expect(origin(creates()[1]!)).toMatchObject({ plan_asked_by: 'alice' })
  })

  test('plan: true on an event without an issue or pull request is an input error, before any request', async () => {
    const result = await onEvent(
      { name: 'workflow_dispatch', payload: { inputs: {} } },
      {
        plan: 'true',
        prompt: 'Fix the parser.'
      }
    )
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toContain(
      '::error::Invalid input: plan: true needs an issue or pull request in the event (an issue opened, labelled or assigned, a comment, a review, a pull request with label-trigger); the workflow_dispatch event has none'
    )
    expect(emulator.requests).toHaveLength(0)
    expect(github.requests).toHaveLength(0)
  })

  test('a plan request on a shown plan revises it: the plan run resumed with what to change, its comment edited', async () => {
    const revised = `${PLAN}\n4. Use a state machine.`
    const { runId, trackingId } = await planShown(PLAN, [planScript(revised)])
    const result = await onEvent(commentNow('/codegen plan use a state machine', 'carol'))
    expect(result.exitCode).toBe(0)
    expect(creates()).toHaveLength(1)
    expect(resumes()).toHaveLength(1)
    expect(resumes()[0]!.body).toMatchObject({ agent_run_id: runId })
    const asked = prompt(resumes()[0]!)
    expect(asked).toContain('Revise your plan: use a state machine')
    expect(asked).toContain('Give the whole revised plan as your final answer')
    expect(result.outputs['outcome']).toBe('planned')
    expect(trackingComments().map(c => c.id)).toEqual([trackingId])
    // The comment now shows the revised plan: an approval is pinned to it.
    expect(readMarker(trackingComments()[0]!.body)).toMatchObject({ runId, plan: planDigest(revised) })
  })

  test('with plan: true, /codegen new on a shown plan asks for a plan of its own, in a run of its own', async () => {
    const inputs = { plan: 'true' }
    const { trackingId } = await planShown(PLAN, [], inputs)
    emulator.queueScript(planScript('1. Something else.'))
    const result = await onEvent(commentNow('/codegen new add a --json flag', 'carol'), inputs)
    expect(result.outputs['outcome']).toBe('planned')
    expect(resumes()).toHaveLength(0)
    expect(creates()).toHaveLength(2)
    expect(prompt(creates()[1]!)).toContain('This run is asked for a plan only.')
    expect(prompt(creates()[1]!)).not.toContain('Revise your plan')
    expect(trackingComments().map(c => c.id)).not.toEqual([trackingId])
  })

  test('a revision the service will not resume is carried on: a new plan run with the plan to revise whole', async () => {
    await useEmulator({ modes: ['resume-paused-only'] })
    const { runId } = await planShown(PLAN, [])
    const revised = `${PLAN}\n4. Use a state machine.`
    emulator.queueScript(planScript(revised))
    const result = await onEvent(commentNow('/codegen plan use a state machine', 'carol'))
    expect(result.outputs['outcome']).toBe('planned')
    expect(creates()).toHaveLength(2)
    const carried = prompt(creates()[1]!)
    expect(carried).toContain('use a state machine')
    expect(carried).toContain('This run is asked for a plan only.')
    expect(carried).toContain(
      `The plan to revise (the earlier run's final answer, whole):\n\n${PLAN.split('\n')
        .map(line => `> ${line}`)
        .join('\n')}`
    )
    expect(carried).toContain(`This continues agent run ${runId}`)
    // Who asked first is kept: allow-self-approval false still refuses alice.
    expect(origin(creates()[1]!)).toMatchObject({ author: 'carol', plan_asked_by: 'alice' })
    expect(readMarker(trackingComments().at(-1)!.body)?.plan).toBe(planDigest(revised))
  })

  test('/codegen approve resumes the plan run with the whole plan and the extra instructions, in a comment of its own', async () => {
    const { runId, trackingId, digest } = await planShown()
    const result = await onEvent(commentNow('/codegen approve and keep the old parser as a fallback'))
    expect(result.stderr).toBe('')
    expect(result.outputs['outcome']).toBe('success')
    expect(creates()).toHaveLength(1)
    expect(resumes()).toHaveLength(1)
    expect(resumes()[0]!.body).toMatchObject({ agent_run_id: runId })
    const asked = prompt(resumes()[0]!)
    expect(asked).toContain(
      `Carry out the approved plan. @bob approved the plan quoted below (plan ${digest} of agent run ${runId}, asked for by @alice)`
    )
    expect(asked).toContain("The approver's extra instructions: and keep the old parser as a fallback")
    expect(asked).toContain(
      PLAN.split('\n')
        .map(line => `> ${line}`)
        .join('\n')
    )
    // The plan's comment stays as it was read; the implementing run has its own.
    expect(readMarker(github.comments(7).find(c => c.id === trackingId)!.body)?.plan).toBe(digest)
    expect(replies()).toHaveLength(1)
    expect(readMarker(replies()[0]!.body)).toMatchObject({ runId })
    expect(readMarker(replies()[0]!.body)?.plan).toBeUndefined()
    // A second approval finds no plan awaiting.
    await expectNoPlanAwaits()
    expect(resumes()).toHaveLength(1)
  })

  test('a refused resume carries a 20,000-character plan whole into a new run, with its digest, asker and approver in the metadata', async () => {
    await useEmulator({ modes: ['resume-paused-only'] })
    const long = Array.from({ length: 401 }, (_, i) => `${String(i + 1).padStart(3, '0')}. ${'x'.repeat(45)}`)
      .join('\n')
      .slice(0, 20_000)
    expect(long.length).toBe(20_000)
    const { runId, digest } = await planShown(long)
    emulator.queueScript(fast('success'))
    const result = await onEvent(commentNow('/codegen approve'))
    expect(result.outputs['outcome']).toBe('success')
    expect(creates()).toHaveLength(2)
    const carried = prompt(creates()[1]!)
    // Every character of the plan, quoted line by line (a failure here would print 20,000 of them).
    const quoted = long
      .split('\n')
      .map(line => `> ${line}`)
      .join('\n')
    expect(carried.includes(`The approved plan (whole):\n\n${quoted}\n`)).toBe(true)
    expect(carried).toContain('Carry out the approved plan.')
    // Never a plan cut short: the earlier run's result (the plan) is not quoted again, cut.
    expect(carried).toContain(`This continues agent run ${runId}`)
    expect(carried).not.toContain('cut:')
    expect(origin(creates()[1]!)).toMatchObject({
      plan_digest: digest,
      plan_run_id: String(runId),
      plan_asked_by: 'alice',
      plan_approved_by: 'bob'
    })
  })

  test('an approval by a stranger starts nothing', async () => {
    await planShown()
    const result = await onEvent(commentNow('/codegen approve', 'stranger'))
    expect(result.outputs['outcome']).toBe('skipped')
    expect(result.stdout).toContain('@stranger has none permission')
    expect(resumes()).toHaveLength(0)
    expect(replies()).toHaveLength(0)
  })

  test('approvers does not let in someone without write access: a stranger it names starts nothing, no reply', async () => {
    const inputs = { approvers: 'stranger' }
    await planShown(PLAN, [fast('success')], inputs)
    const result = await onEvent(commentNow('/codegen approve', 'Stranger'), inputs)
    expect(result.outputs['outcome']).toBe('skipped')
    expect(result.stdout).toContain('@Stranger has none permission')
    expect(resumes()).toHaveLength(0)
    expect(replies()).toHaveLength(0)
  })

  test.each<[string, string, string, RegExp]>([
    [
      'someone approvers does not name',
      'alice',
      'carol, octo-org/reviewers',
      /@alice may not approve this plan: only @carol and members of octo-org\/reviewers may approve a plan here \(the approvers input\)\./
    ],
    [
      'the asker with allow-self-approval false',
      'alice',
      '',
      /@alice asked for this plan, and allow-self-approval is false: anyone who may trigger a run .* may approve a plan here, other than the person who asked for it\./
    ]
  ])(
    'an approval by %s starts nothing, and the reply says who may approve',
    async (_who, login, approvers, reply) => {
      const inputs = { approvers, 'allow-self-approval': approvers ? 'true' : 'false' }
      await planShown(PLAN, [fast('success')], inputs)
      github.setTeam('octo-org', 'reviewers', { dave: 'active' })
      const result = await onEvent(commentNow('/codegen approve', login), inputs)
      expect(result.exitCode).toBe(0)
      expect(result.outputs['outcome']).toBe('skipped')
      expect(resumes()).toHaveLength(0)
      expect(creates()).toHaveLength(1)
      expect(replies()).toHaveLength(1)
      expect(replyText()).toMatch(reply)
      expect(readMarker(replies()[0]!.body)).toBeUndefined()
    }
  )

  test('with allow-self-approval false, whoever asked for a revision may not approve it either; another person may', async () => {
    const inputs = { 'allow-self-approval': 'false' }
    const revised = `${PLAN}\n4. Delete the failing test.`
    await planShown(PLAN, [planScript(revised, [fast('success')])], inputs)
    const revision = await onEvent(commentNow('/codegen plan delete the failing test', 'carol'), inputs)
    expect(revision.outputs['outcome']).toBe('planned')
    later(2_000)
    const own = await onEvent(commentNow('/codegen approve', 'carol'), inputs)
    expect(own.outputs['outcome']).toBe('skipped')
    expect(resumes()).toHaveLength(1)
    expect(replyText()).toMatch(
      /@carol asked for a revision of this plan, and allow-self-approval is false: anyone who may trigger a run .* other than the person who asked for it\./
    )
    later(2_000)
    const other = await onEvent(commentNow('/codegen approve'), inputs)
    expect(other.outputs['outcome']).toBe('success')
    expect(resumes()).toHaveLength(2)
    expect(prompt(resumes()[1]!)).toContain('4. Delete the failing test.')
  })

  test('with allow-self-approval false, whoever asked for a revision in a review of the pull request may not approve it', async () => {
    addParserPullRequest()
    const inputs = { 'allow-self-approval': 'false', 'check-run': 'false' }
    const revised = `${PLAN}\n4. Delete the failing test.`
    emulator.queueScript(planScript(PLAN, [planScript(revised, [fast('success')])]))
    const asked = await onEvent(commentNow('/codegen plan fix the parser', 'alice', true), inputs)
    expect(asked.outputs['outcome']).toBe('planned')
    later(2_000)
    const body = '/codegen plan delete the failing test'
    github.texts.addReview(7, { body, user: { login: 'carol', type: 'User' } })
    const revision = await onEvent(reviewEvent({ body, login: 'carol' }), inputs)
    expect(revision.outputs['outcome']).toBe('planned')
    expect(resumes()).toHaveLength(1)
    later(2_000)
    const own = await onEvent(commentNow('/codegen approve', 'carol', true), inputs)
    expect(own.outputs['outcome']).toBe('skipped')
    expect(resumes()).toHaveLength(1)
    expect(
      github.requests.some(r => r.method === 'GET' && r.path === '/repos/octo-org/octo-repo/pulls/7/reviews')
    ).toBe(true)
    expect(replyText()).toContain(
      '@carol asked for a revision of this plan, and allow-self-approval is false'
    )
  })

  test.each<[string, 'active' | 'pending' | 'unreadable', boolean]>([
    ['an active member of an approvers team', 'active', true],
    ['a pending member', 'pending', false],
    ['someone whose membership GitHub will not tell', 'unreadable', false]
  ])('an approval by %s', async (_who, membership, approved) => {
    const inputs = { approvers: 'carol, octo-org/reviewers' }
    await planShown(PLAN, [fast('success')], inputs)
    if (membership === 'unreadable') github.setTeamsReadable(false)
    else github.setTeam('octo-org', 'reviewers', { bob: membership })
    const result = await onEvent(commentNow('/codegen approve'), inputs)
    const asked = github.requests.filter(r => r.path === '/orgs/octo-org/teams/reviewers/memberships/bob')
    expect(asked).toHaveLength(1)
    expect(result.outputs['outcome']).toBe(approved ? 'success' : 'skipped')
    expect(resumes()).toHaveLength(approved ? 1 : 0)
    if (membership === 'unreadable')
      expect(replyText()).toContain('GitHub would not say whether @bob is a member of octo-org/reviewers')
  })

  test('an approval written before the newest plan was shown starts nothing', async () => {
    const { runId, trackingId } = await planShown()
    const approval = commentNow('/codegen approve')
    later(2_000)
    showPlan(trackingId, runId, planDigest(`${PLAN}\n4. Revised.`))
    const result = await onEvent(approval)
    expect(result.outputs['outcome']).toBe('skipped')
    expect(resumes()).toHaveLength(0)
    expect(replyText()).toContain('A newer plan awaits approval')
  })

  test('an approval while a revision is still being written starts nothing', async () => {
    const { runId, trackingId } = await planShown()
    showPlan(trackingId, runId, 'working')
    later(2_000)
    const result = await onEvent(commentNow('/codegen approve'))
    expect(result.outputs['outcome']).toBe('skipped')
    expect(resumes()).toHaveLength(0)
    expect(replyText()).toContain(
      'A newer plan awaits approval: a plan (or its revision) is still being written'
    )
  })

  test('an approval on a thread with no plan starts nothing and says so', async () => {
    const result = await onEvent(commentNow('/codegen approve'))
    expect(result.outputs['outcome']).toBe('skipped')
    expect(emulator.requests).toHaveLength(0)
    expect(trackingComments()).toHaveLength(1)
    expect(readerText(trackingComments()[0]!.body).replaceAll('\u2060', '')).toContain(
      'No plan awaits approval on this thread'
    )
  })

  test('an approval whose plan run no longer holds the shown plan is refused plainly', async () => {
    const { trackingId, runId } = await planShown()
    showPlan(trackingId, runId, planDigest('another plan'))
    later(2_000)
    const result = await onEvent(commentNow('/codegen approve'))
    expect(result.outputs['outcome']).toBe('error')
    expect(result.stdout).toContain(`Agent run ${runId}'s plan is not the one the tracking comment showed`)
    expect(resumes()).toHaveLength(0)
  })

  test('a cancelled plan run shows no plan: an approval after it starts nothing', async () => {
    emulator.queueScript({
      steps: [
        { at: 0, status: 'RUNNING' },
        { at: 400, status: 'CANCELLED' }
      ]
    })
    const asked = await onEvent(commentNow('/codegen plan fix the parser', 'alice'))
    expect(asked.outputs['outcome']).toBe('failure')
    expect(readMarker(trackingComments()[0]!.body)?.plan).toBeUndefined()
    await expectNoPlanAwaits()
    expect(resumes()).toHaveLength(0)
  })
})
