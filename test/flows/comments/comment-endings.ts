import { scenario } from '../../../emulator/index.js'
import {
  emulator,
  github,
  fast,
  signedMarker,
  addMarkedComment,
  onEvent,
  comment,
  edits,
  resumes,
  trackingComments
} from '../../support/comment-world.js'

/** The comment workflow end to end (the world, its hooks and helpers: test/support/comment-world.ts). */

/**
 * A /codegen comment's step on an endless run (poll-interval 1 and `inputs`), its job cancelled once
 * the run exists and `also` holds (at 2 s if not before).
 */
function cancelledOnceEndless(also: () => boolean, inputs: Record<string, string> = {}) {
  emulator.queueScript(scenario('endless'))
  return onEvent(
    comment({ body: '/codegen take your time' }),
    { 'poll-interval': '1', ...inputs },
    { terminateAfterMs: 2_000, terminateWhen: () => emulator.runs().length > 0 && also() }
  )
}

describe('a /codegen comment: how its run ends', () => {
  test('a failed run fails the step and says so in the tracking comment', async () => {
    emulator.queueScript(fast('failure'))
    const result = await onEvent(comment({ body: '/codegen break it' }))
    expect(result.exitCode).toBe(1)
    expect(trackingComments()[0]!.body).toContain('❌ **failed**')
    expect(trackingComments()[0]!.body).toContain('status `ERROR`')
  })

  // A timeout written to the tracking comment (within GitHub's 3 s past the deadline) is held on the
  // virtual clock: test/flows/deadlines/step-deadlines.ts.

  test('a paused run is written to the tracking comment, with how to resume it', async () => {
    emulator.queueScript(fast('paused'))
    const result = await onEvent(comment({ body: '/codegen ask me first' }))
    expect(result.outputs['outcome']).toBe('paused')
    const body = trackingComments()[0]!.body
    expect(body).toContain('⏸️ **paused**, waiting for a follow-up')
    // The agent's question first, with how to answer it on this thread.
    expect(body).toContain(
      '**⏸️ The agent’s question** (reply `/codegen <answer>` to answer it and continue this run):\n\n> Waiting for an answer'
    )
  })

  test('a cancelled job stops its run and writes the tracking comment before it exits', async () => {
    // Once the run and its tracking comment exist, however slowly a loaded machine started the step.
    const result = await cancelledOnceEndless(() => trackingComments().length > 0)
    expect(result.outputs['outcome']).toBe('cancelled')
    // Ended on its own after the signal (how soon is held on the virtual clock: flows/deadlines/step-deadlines.ts).
    expect(result.exitCode).not.toBeNull()
    const body = trackingComments()[0]!.body
    expect(body).toContain('🛑 was stopped: the workflow job was cancelled')
    expect(body).toContain(
      '**The run was stopped**: this step asked Codegen to stop it, and it now shows `STOPPED`.'
    )
  })

  test('with stop-run-on: none, a cancelled job leaves its run running, and the comment says so', async () => {
    const result = await cancelledOnceEndless(() => trackingComments().length > 0, { 'stop-run-on': 'none' })
    expect(result.outputs['outcome']).toBe('cancelled')
    expect(emulator.requests.filter(request => request.route === 'stop')).toHaveLength(0)
    expect(trackingComments()[0]!.body).toContain('🛑 was left running: the workflow job was cancelled')
  })

  test('a cancelled job sets its outputs and exits on its own even while GitHub holds the comment edits', async () => {
    github.injectSecondaryRateLimit(20, /\/issues\/comments\/\d+$/, 60)
    // Once the run exists and an edit has been held back.
    const result = await cancelledOnceEndless(() => edits().length > 0)
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({
      outcome: 'cancelled',
      'agent-run-id': String(emulator.runs()[0]!.id)
    })
    expect(result.summary).toContain('Job cancelled')
    // Ended on its own after the signal (how soon is held on the virtual clock: flows/deadlines/step-deadlines.ts).
    expect(result.exitCode).not.toBeNull()
  })

  test('a service error is written to the tracking comment', async () => {
    const result = await onEvent(comment({ body: '/codegen fix' }), { 'api-token': 'wrong-token' })
    expect(result.exitCode).toBe(1)
    const body = trackingComments()[0]!.body
    expect(body).toContain('⚠️ could not be started (the service answered 401)')
    expect(body).toContain('Authentication failed (401)')
  })

  test('comment: false posts nothing, and still resumes through an earlier tracking comment', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen fix it' }), { comment: 'false' })
    expect(trackingComments()).toHaveLength(0)
    const runId = emulator.runs()[0]!.id

    addMarkedComment(id => signedMarker(runId, id), 'earlier tracking comment', {
      login: 'github-actions[bot]',
      type: 'Bot'
    })
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen and the docs' }), { comment: 'false' })
    expect(resumes()).toHaveLength(1)
    expect(resumes()[0]!.body).toMatchObject({ agent_run_id: runId })
    expect(github.requests.filter(request => request.method !== 'GET')).toEqual([
      expect.objectContaining({ method: 'POST', path: expect.stringContaining('/reactions') }),
      expect.objectContaining({ method: 'POST', path: expect.stringContaining('/reactions') })
    ])
  })
})
