import { OctokitGitHubApi } from '../../src/github/api.js'
import { TrackingComment } from '../../src/github/tracking-comment.js'
import { readMarker, markerSignature, verifyMarker } from '../../src/github/tracking.js'
import type { RunReport } from '../../src/model.js'
import { FakeGitHub } from '../../scripts/github-fake/index.js'
import { FakeClock } from '../support/fake-clock.js'

/**
 * The tracking comment's writer in process, against the fake GitHub over loopback through the
 * action's own Octokit client: its first write, the marker, the throttled edits and the ending.
 */

let github: FakeGitHub
let clock: FakeClock
let warnings: string[]
const key = { secret: 'api-token', repository: 'octo-org/octo-repo', issueNumber: 7 }

beforeEach(async () => {
  github = new FakeGitHub()
  await github.start()
  clock = new FakeClock()
  warnings = []
})
afterEach(async () => {
  await github.stop()
})

function tracking(commentId?: number, minIntervalMs = 5_000): TrackingComment {
  const api = new OctokitGitHubApi({
    token: 'github-token',
    repository: 'octo-org/octo-repo',
    apiUrl: github.baseUrl,
    warn: message => warnings.push(message)
  })
  return new TrackingComment({
    github: api,
    place: 7,
    commentId,
    state: {
      requestedBy: { login: 'alice', type: 'User' },
      instruction: 'fix the typo',
      workflowRunUrl: 'https://github.com/octo-org/octo-repo/actions/runs/4242',
      sign: (id, runId) => markerSignature(key, id, runId),
      entriesSeen: 0,
      resumed: false,
      triggerPhrase: '/codegen'
    },
    clock,
    warn: message => warnings.push(message),
    minIntervalMs
  })
}

const run = {
  id: 1000,
  organization_id: 1,
  status: 'ACTIVE',
  web_url: 'https://app.codegen.com/agent/trace/1000'
}
const writes = () =>
  github.requests.filter(request => request.method === 'POST' || request.method === 'PATCH')
const ended = (outcome: RunReport['outcome']): RunReport => ({
  outcome,
  mode: 'create',
  run: { ...run, status: outcome === 'success' ? 'COMPLETE' : 'ERROR', result: 'Done.' },
  status: outcome === 'success' ? 'COMPLETE' : 'ERROR',
  startedAt: clock.now(),
  endedAt: clock.now(),
  entriesSeen: 3
})

test('opens the comment before the run, signs the marker once the run exists, and writes the ending', async () => {
  const comment = tracking()
  await comment.open()
  const [posted] = github.comments(7)
  expect(posted?.body).toContain('@alice')
  expect(readMarker(posted!.body)).toBeUndefined()

  comment.started(run)
  await comment.finish(ended('success'))
  const [final] = github.comments(7)
  expect(github.comments(7)).toHaveLength(1)
  const marker = readMarker(final!.body)
  expect(marker?.runId).toBe(1000)
  expect(verifyMarker(key, final!.id, marker!)).toBe(true)
  expect(final!.body).toContain('✅ **succeeded**')
  expect(warnings).toEqual([])
})

test('a comment created with the run already known gets its signed marker at once', async () => {
  const comment = tracking()
  comment.started(run)
  await comment.finish(ended('failure'))
  const [final] = github.comments(7)
  expect(verifyMarker(key, final!.id, readMarker(final!.body)!)).toBe(true)
  expect(final!.body).toContain('❌ **failed**')
})

test('takes over an earlier comment instead of posting a new one', async () => {
  const earlier = github.addComment(7, 'earlier', { login: 'github-actions[bot]', type: 'Bot' })
  const comment = tracking(earlier.id)
  await comment.open()
  await comment.finish(ended('success'))
  expect(github.comments(7)).toHaveLength(1)
  expect(github.comments(7)[0]!.body).toContain('✅ **succeeded**')
  expect(writes().every(request => request.method === 'PATCH')).toBe(true)
})

/** Waits (real time) until `done` holds: the writer's queue runs on its own. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 20) {
    if (waited > 10_000) throw new Error('timed out waiting for the tracking comment')
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

test('progress edits are throttled to one per interval, and the latest state is the one written', async () => {
  const comment = tracking(undefined, 5_000)
  await comment.open()
  comment.started(run)
  // The marker with the run id is written at once: the next comment resumes through it.
  await until(() => writes().length === 2)
  expect(readMarker(github.comments(7)[0]!.body)?.runId).toBe(1000)
  const entry = (n: number) => ({ agent_run_id: 1000, message_type: 'ACTION', thought: `step ${n}` })
  for (let n = 0; n < 10; n++) comment.newEntries([entry(n)])
  comment.statusChanged('ACTIVE', 'RUNNING')
  comment.heartbeat()
  comment.warning()
  // Twelve changes, one edit, five seconds after the last write.
  await until(() => writes().length === 3)
  expect(clock.sleeps.at(-1)).toBe(5_000)
  expect(github.comments(7)[0]!.body).toContain('step 9')
  await comment.finish(ended('success'))
  expect(writes()).toHaveLength(4)
  expect(github.comments(7)[0]!.body).toContain('✅ **succeeded**')
})

test('GitHub failures are warnings, at most three, and never thrown', async () => {
  github.injectClientError(20, /comments/, 422, 'Validation Failed')
  const comment = tracking()
  await comment.open()
  comment.started(run)
  await comment.finish(ended('success'))
  await comment.finish(ended('success'))
  const failures = warnings.filter(w => w.startsWith('Could not write the tracking comment'))
  expect(failures).toHaveLength(3)
})

test("GitHub's secondary rate limit is waited out, with a warning, and the write lands", async () => {
  github.injectSecondaryRateLimit(1, /\/issues\/7\/comments$/, 1)
  const comment = tracking()
  await comment.open()
  expect(github.comments(7)).toHaveLength(1)
  expect(warnings.some(w => w.startsWith('GitHub secondary rate limit on POST'))).toBe(true)
})
