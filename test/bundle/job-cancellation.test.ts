import { scenario } from '../../emulator/index.js'
import { readerText } from '../../scripts/render-markdown.js'
import { BundleWorld, JOB_TOKEN, expectEndedOnItsOwn } from '../support/bundle-world.js'
import { issueCommentEvent } from '../support/webhooks.js'

/**
 * The job cancelled as the runner cancels it, by a signal to the bundle's process while its run
 * works (sent once the step has read its run, however slowly it got there): the step ends on its
 * own, cancelled, its outputs and summary written, the run stopped when stop-run-on says so. How
 * soon it ends (5 s after the signal at most) is held on the virtual clock, in process.
 */

const world = new BundleWorld()

/** A run that keeps working; the step reads it every half second, with a deadline far away. */
const cancelledMidRun = (signal: NodeJS.Signals, inputs: Record<string, string> = {}) => {
  world.emulator.queueScript(scenario('endless'))
  return world.step({
    inputs: { 'poll-interval': '0.5', 'timeout-minutes': '5', ...inputs },
    cancel: { signal, when: () => world.readItsRun() }
  })
}

test('SIGINT mid-run: the run stopped (stop-run-on: cancel, the default) and read once more, the step cancelled', async () => {
  const result = await cancelledMidRun('SIGINT')
  expectEndedOnItsOwn(result)
  expect(result.cancelledAtMs).toBeDefined()
  expect(result.exitCode).toBe(1)
  expect(result.stdout).toContain('::warning::SIGINT received: the job is being cancelled')
  const run = world.emulator.runs()[0]!
  // One stop, then the run read once more: the step's last request, what the outputs show.
  const routes = world.emulator.requests.map(request => request.route)
  expect(routes.filter(route => route === 'stop')).toHaveLength(1)
  expect(routes.slice(routes.indexOf('stop') + 1)).toEqual(['get'])
  expect(world.routes('stop')[0]).toMatchObject({ status: 200, body: { agent_run_id: run.id } })
  expect(run.status).toBe('STOPPED')
  expect(result.outputs).toMatchObject({
    outcome: 'cancelled',
    status: 'STOPPED',
    'agent-run-id': String(run.id)
  })
  expect(readerText(result.summary)).toContain('Job cancelled while following the agent run')
})

test('SIGTERM mid-run with stop-run-on: none: nothing sent to stop the run, which goes on; the step cancelled', async () => {
  const result = await cancelledMidRun('SIGTERM', { 'stop-run-on': 'none' })
  expectEndedOnItsOwn(result)
  expect(result.cancelledAtMs).toBeDefined()
  expect(result.exitCode).toBe(1)
  expect(result.stdout).toContain('::warning::SIGTERM received: the job is being cancelled')
  expect(world.routes('stop')).toEqual([])
  expect(world.emulator.runs()[0]!.status).toBe('ACTIVE')
  expect(result.outputs).toMatchObject({ outcome: 'cancelled', status: 'ACTIVE' })
  expect(readerText(result.summary)).toContain('Job cancelled while following the agent run')
})

describe('six comment steps side by side (a busy runner), each cancelled while it sets up', () => {
  const busy = new BundleWorld({ github: { permissions: { alice: 'write' } } })

  test('none leaves a check in progress or a run working; each ends on its own', async () => {
    const threads = [7, 8, 9, 10, 11, 12]
    busy.github.addPullRequests(...threads)
    const steps = threads.map(number => {
      busy.emulator.queueScript(scenario('endless'))
      const body = '/codegen take your time'
      const stored = busy.github.addComment(number, body, { login: 'alice', type: 'User' })
      const event = issueCommentEvent({ body, pullRequest: true, issueNumber: number, commentId: stored.id })
      // Cancelled once GitHub has its reaction: the step is still setting up (the thread, the
      // tracking comment, the check, the run to come).
      const reacted = () =>
        busy.github.requests.some(request => request.path.endsWith(`/comments/${stored.id}/reactions`))
      return busy.step({
        inputs: { 'poll-interval': '1', 'timeout-minutes': '5', 'github-token': JOB_TOKEN },
        event,
        cancel: { signal: 'SIGINT', when: reacted }
      })
    })
    const results = await Promise.all(steps)
    for (const result of results) {
      expectEndedOnItsOwn(result)
      expect(result.cancelledAtMs).toBeDefined()
      expect(result.exitCode).toBe(1)
      expect(result.outputs['outcome']).toBe('cancelled')
    }
    // What exists is concluded: no check in progress, no run left working.
    for (const check of busy.github.checkRuns()) expect(check.status).toBe('completed')
    for (const run of busy.emulator.runs())
      expect(['STOPPED', 'COMPLETE', 'FAILED', 'CANCELLED']).toContain(run.status)
  })
})
