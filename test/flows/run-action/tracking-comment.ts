import { OctokitGitHubApi } from '../../../src/github/octokit-api.js'
import { TrackingComment } from '../../../src/report/tracking-comment.js'
import { readMarker, markerSignature, verifyMarker } from '../../../src/thread/tracking.js'
import type { RunReport } from '../../../src/model.js'
import { FakeGitHub } from '../../../scripts/github-fake/index.js'
import { VirtualClock } from '../../support/virtual-clock.js'

describe('tracking-comment', () => {
  /**
   * The tracking comment's writer in process, against the fake GitHub over loopback through the
   * action's own Octokit client, on the virtual clock: its first write, the marker, the throttled edits
   * and the ending, each at its exact time.
   */

  let github: FakeGitHub
  let clock: VirtualClock
  /** The virtual time at the test's start. */
  let started: number
  let warnings: string[]
  const key = { secret: 'api-token', repository: 'octo-org/octo-repo', issueNumber: 7 }

  beforeEach(async () => {
    clock = new VirtualClock()
    started = clock.now()
    github = new FakeGitHub({ clock })
    await github.start()
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
      warn: message => warnings.push(message),
      clock,
      fetch: clock.network.github
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
  /** The writes: method, virtual ms from the test's start, GitHub's status. */
  const writeTimes = (): Array<[string, number, number]> =>
    writes().map(request => [request.method, request.at - started, request.status])
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
    await clock.run(async () => {
      const comment = tracking()
      await comment.open()
      const [posted] = github.comments(7)
      expect(posted?.body).toContain('@alice')
      expect(readMarker(posted!.body)).toBeUndefined()

      comment.started(run)
      await comment.finish(ended('success'))
    })
    const [final] = github.comments(7)
    expect(github.comments(7)).toHaveLength(1)
    const marker = readMarker(final!.body)
    expect(marker?.runId).toBe(1000)
    expect(verifyMarker(key, final!.id, marker!)).toBe(true)
    expect(final!.body).toContain('✅ **succeeded**')
    // The marker's edit, queued at once, carries the ending too: one edit, GitHub's second later.
    expect(writeTimes()).toEqual([
      ['POST', 0, 201],
      ['PATCH', 1_000, 200]
    ])
    expect(warnings).toEqual([])
  })

  test('a comment created with the run already known gets its signed marker at once', async () => {
    await clock.run(async () => {
      const comment = tracking()
      comment.started(run)
      await comment.finish(ended('failure'))
    })
    const [final] = github.comments(7)
    expect(verifyMarker(key, final!.id, readMarker(final!.body)!)).toBe(true)
    expect(final!.body).toContain('❌ **failed**')
    // The create, then its signed marker GitHub's second later (the comment's id is in the signature).
    expect(writeTimes().slice(0, 2)).toEqual([
      ['POST', 0, 201],
      ['PATCH', 1_000, 200]
    ])
  })

  test('takes over an earlier comment instead of posting a new one', async () => {
    const earlier = github.addComment(7, 'earlier', { login: 'github-actions[bot]', type: 'Bot' })
    await clock.run(async () => {
      const comment = tracking(earlier.id)
      await comment.open()
      await comment.finish(ended('success'))
    })
    expect(github.comments(7)).toHaveLength(1)
    expect(github.comments(7)[0]!.body).toContain('✅ **succeeded**')
    expect(writes().every(request => request.method === 'PATCH')).toBe(true)
  })

  /** Resolves once `done` holds, looked at every 100 virtual ms: the writer's queue runs on its own. */
  async function until(done: () => boolean): Promise<void> {
    while (!done()) await clock.advance(100)
  }

  test('progress edits are throttled to one per interval, and the latest state is the one written', async () => {
    await clock.run(async () => {
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
      await until(() => writes().length === 3)
      expect(github.comments(7)[0]!.body).toContain('step 9')
      await comment.finish(ended('success'))
    })
    // Twelve changes, one edit, five seconds after the last write; the ending GitHub's second later.
    expect(writeTimes()).toEqual([
      ['POST', 0, 201],
      ['PATCH', 1_000, 200],
      ['PATCH', 6_000, 200],
      ['PATCH', 7_000, 200]
    ])
    expect(github.comments(7)[0]!.body).toContain('✅ **succeeded**')
  })

  test('GitHub failures are warnings, at most three, and never thrown', async () => {
    github.injectClientError(20, /comments/, 422, 'Validation Failed')
    await clock.run(async () => {
      const comment = tracking()
      await comment.open()
      comment.started(run)
      await comment.finish(ended('success'))
      await comment.finish(ended('success'))
    })
    const failures = warnings.filter(w => w.startsWith('Could not write the tracking comment'))
    expect(failures).toHaveLength(3)
    // A 422 is GitHub's answer: each write sent once, none retried.
    expect(writeTimes().map(([method, , status]) => [method, status])).toEqual([
      ['POST', 422],
      ['POST', 422],
      ['POST', 422]
    ])
  })

  test("GitHub's secondary rate limit is waited out, with a warning, and the write lands", async () => {
    github.injectSecondaryRateLimit(1, /\/issues\/7\/comments$/, 1)
    await clock.run(async () => {
      const comment = tracking()
      await comment.open()
    })
    expect(github.comments(7)).toHaveLength(1)
    expect(warnings).toEqual([
      'GitHub secondary rate limit on POST /repos/{owner}/{repo}/issues/{issue_number}/comments: retrying in 1 s'
    ])
    // Retry-After's second waited; the retry, a comment's create, also waits out the 3 s GitHub asks
    // between them.
    expect(writeTimes()).toEqual([
      ['POST', 0, 403],
      ['POST', 3_000, 201]
    ])
  })
})
