import { scenario } from '../../emulator/index.js'
import { readMarker } from '../../src/thread/tracking.js'
import { OWN_COMMENT_MARK } from '../../src/github-shapes.js'
import { BundleWorld, JOB_TOKEN, expectEndedOnItsOwn } from '../support/bundle-world.js'
import { issueCommentEvent } from '../support/webhooks.js'

/**
 * The bundle on a triggering event, as the runner runs it: the event's payload read from
 * GITHUB_EVENT_PATH, GitHub called at GITHUB_API_URL with the job's token (the fake GitHub, on the
 * system's clock: its one-second spacing of writes is waited for real), and a GitHub call that never
 * answers does not hold the process. The comment workflow's cases are held in process (test/flows).
 */

const world = new BundleWorld({ emulator: { speed: 20 }, github: { permissions: { alice: 'write' } } })

beforeEach(() => world.github.addPullRequests(7))

/** alice's comment on pull request 7, as GitHub stores it and sends it. */
function aliceComments(body: string): ReturnType<typeof issueCommentEvent> {
  const stored = world.github.addComment(7, body, { login: 'alice', type: 'User' })
  return issueCommentEvent({ body, pullRequest: true, issueNumber: 7, commentId: stored.id })
}

test('a /codegen comment on a pull request: the prompt from the event, a reaction, one tracking comment and a check run, concluded in order', async () => {
  world.emulator.queueScript(scenario('success', 20))
  const event = aliceComments('/codegen fix the parser')
  const result = await world.step({ event })
  expectEndedOnItsOwn(result)
  expect(result.exitCode).toBe(0)

  // The event file was read: the comment's request and the thread's title are the run's prompt.
  const creates = world.routes('create')
  expect(creates).toHaveLength(1)
  const prompt = (creates[0]!.body as { prompt: string }).prompt
  expect(prompt).toContain('fix the parser')
  expect(prompt).toContain('@alice asked for this on pull request #7 in octo-org/octo-repo')
  expect(prompt).toContain('The parser drops the last field')

  // GitHub with the job's token, its writes in order: the reaction, the tracking comment, the check
  // run, then edits; the last ones conclude both.
  expect(new Set(world.github.requests.map(request => request.authorization))).toEqual(
    new Set([`token ${JOB_TOKEN}`])
  )
  const writes = world.github.requests
    .filter(request => request.method !== 'GET')
    .map(request => `${request.method} ${request.path.replace(/\d+/g, 'N')}`)
  expect(writes.slice(0, 3)).toEqual([
    'POST /repos/octo-org/octo-repo/issues/comments/N/reactions',
    'POST /repos/octo-org/octo-repo/issues/N/comments',
    'POST /repos/octo-org/octo-repo/check-runs'
  ])
  expect(new Set(writes.slice(3))).toEqual(
    new Set([
      'PATCH /repos/octo-org/octo-repo/issues/comments/N',
      'PATCH /repos/octo-org/octo-repo/check-runs/N'
    ])
  )
  const run = world.emulator.runs()[0]!
  const tracking = world.github.comments(7).filter(comment => comment.body.startsWith(OWN_COMMENT_MARK))
  expect(tracking).toHaveLength(1)
  expect(readMarker(tracking[0]!.body)?.runId).toBe(run.id)
  expect(tracking[0]!.body).toContain('✅ **succeeded**')
  expect(world.github.checkRuns()).toEqual([
    expect.objectContaining({
      id: Number(result.outputs['check-run-id']),
      head_sha: world.github.headSha(7),
      status: 'completed',
      conclusion: 'success'
    })
  ])
  expect(world.github.invalidCheckRunRequests).toEqual([])
  expect(result.outputs).toMatchObject({
    outcome: 'success',
    trigger: 'comment',
    'agent-run-id': String(run.id)
  })
})

test('a GitHub call that never answers, met before the deadline: the process still ends on its own, failed at the deadline, its outputs and summary written', async () => {
  // The permission check is the step's first call; it hangs for good, and only the deadline ends it.
  world.github.injectHang(1_000, /\/collaborators\/alice\/permission$/, 'GET')
  const result = await world.step({
    event: aliceComments('/codegen fix the parser'),
    inputs: { 'timeout-minutes': '0.05' }
  })
  expectEndedOnItsOwn(result)
  expect(world.github.requests.map(request => `${request.method} ${request.path}`)).toContain(
    'GET /repos/octo-org/octo-repo/collaborators/alice/permission'
  )
  expect(world.emulator.runs()).toEqual([])
  expect(result.exitCode).toBe(1)
  expect(result.outputs.outcome).toBe('error')
  expect(result.stdout.split('\n').filter(line => line.startsWith('::error::'))).toEqual([
    expect.stringMatching(
      /^::error::Could not read @alice's permission on octo-org\/octo-repo \(GitHub did not answer in time \(timeout-minutes was reached\)\); the run is not started\./
    )
  ])
  expect(result.summary).not.toBe('')
})
