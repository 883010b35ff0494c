import { readerText } from '../../../scripts/render-markdown.js'
import { checkWrites, checksOn, commentOn, emulator, github, step } from '../../support/check-world.js'

/**
 * A check on the pull request for a run asked for on it, in process on the virtual clock (issue #20):
 * its life from in progress to each ending. More cases: check-cases.ts.
 */

test('a /codegen comment on a pull request: in progress on its head before the first look, then success', async () => {
  const result = await step(commentOn(7, '/codegen review it [emulator:success]'))
  expect(result.exitCode).toBe(0)
  const run = emulator.runs()[0]!
  const [check, ...others] = checksOn(7)
  expect(others).toEqual([])
  expect(check).toMatchObject({
    name: 'Codegen',
    status: 'completed',
    conclusion: 'success',
    external_id: String(run.id),
    details_url: run.web_url
  })
  expect(check!.output.title).toMatch(/^Succeeded: /)
  expect(readerText(check!.output.summary!)).toContain(`Codegen agent run #${run.id} ✅ succeeded`)
  expect(result.outputs['check-run-id']).toBe(String(check!.id))
  // The event has no head commit: it was read from the pull request, and the check created in
  // progress before the run was first looked at, pointing at the workflow run until the run existed.
  const [create, ...updates] = checkWrites()
  expect(create).toMatchObject({
    method: 'POST',
    body: {
      head_sha: github.headSha(7),
      status: 'in_progress',
      details_url: expect.stringMatching(/\/actions\/runs\//)
    }
  })
  const firstLook = emulator.requests.find(
    request => request.method === 'GET' && request.path.includes('/agent/run')
  )
  expect(create!.at).toBeLessThanOrEqual(firstLook!.at)
  expect(updates.map(update => (update.body as { status: string }).status).at(-1)).toBe('completed')
})

// A timeout's check (concluded within GitHub's 3 s past the deadline) is held on the virtual clock:
// test/flows/deadlines/step-deadlines.ts.
test('each ending concludes the check: failure, paused (two steps, one after the other)', async () => {
  const failure = await step(commentOn(7, '/codegen break it [emulator:failure]'))
  const paused = await step(commentOn(8, '/codegen ask me [emulator:paused]'))
  expect([failure, paused].map(result => result.outputs['outcome'])).toEqual(['failure', 'paused'])
  const concluded = [7, 8].map(number => {
    const [check] = checksOn(number)
    return [check!.status, check!.conclusion, check!.output.title]
  })
  expect(concluded).toEqual([
    ['completed', 'failure', expect.stringMatching(/^Failed: /)],
    // fail-on's default lets a paused run pass the step: its check passes too, and says why.
    [
      'completed',
      'success',
      expect.stringMatching(/^Paused, waiting for an answer \(fail-on lets it pass\): /)
    ]
  ])
  expect(readerText(checksOn(8)[0]!.output.summary!)).toContain(
    'Answer with a comment /codegen <answer> on the pull request'
  )
})

test('a job cancelled with SIGINT concludes its check cancelled at once, before it exits', async () => {
  const result = await step(
    commentOn(7, '/codegen take your time [emulator:endless]'),
    {},
    {
      terminateAfterMs: 2_000,
      terminateSignal: 'SIGINT',
      // Once the run is followed and its check in progress shows it (the writes before the signal done).
      terminateWhen: () =>
        emulator.runs().length > 0 && checksOn(7)[0]?.external_id === String(emulator.runs()[0]!.id)
    }
  )
  expect(result.outputs['outcome']).toBe('cancelled')
  // Ended on its own after the signal, failed as a cancelled job is.
  expect(result.exitCode).toBe(1)
  expect(checksOn(7)).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'cancelled' })])
  // Virtual time: the writes before the signal take GitHub's second each (the tracking comment at
  // 1 s, the check's create at 2 s, the comment's and the check's updates pointing at the run at 3
  // and 4 s); the cancellation at 4 s concludes the check at once, ahead of the run's stop; the last
  // writes (the comment's, the check's full text) go unspaced, and the step exits.
  expect(result.terminatedAtMs).toBe(4_000)
  const concluding = checkWrites().filter(write => (write.body as { status?: string }).status === 'completed')
  expect(concluding[0]!.body).toMatchObject({ status: 'completed', conclusion: 'cancelled' })
  expect(concluding[0]!.at - result.startedAt).toBe(4_000)
  expect(checkWrites().at(-1)!.body).toMatchObject({ status: 'completed', conclusion: 'cancelled' })
  expect(result.durationMs).toBe(4_000)
})
