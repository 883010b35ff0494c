import { AgentRunEmulator, scenario, type RunScript } from '../emulator/index.js'
import { FakeGitHub, type FakeUser } from '../github-fake/index.js'
import { runAction, type RunnerOptions, type RunnerResult } from '../harness/runner-process.js'
import { markerLine, markerSignature, readMarker } from '../../src/github/tracking.js'
import { OWN_COMMENT_MARK } from '../../src/github/trigger.js'
import { issueCommentEvent, issuesOpenedEvent, type CommentOptions } from '../support/webhooks.js'

/** The comment workflow: the bundled action, the service emulator and a fake GitHub, all on loopback. */

let emulator: AgentRunEmulator
let github: FakeGitHub

beforeEach(async () => {
  emulator = new AgentRunEmulator()
  await emulator.start()
  github = new FakeGitHub({
    permissions: {
      alice: 'write',
      bob: 'admin',
      carol: 'maintain',
      dave: { name: 'deployer', base: 'write' },
      erin: { name: 'auditor', base: 'read' },
      reader: 'read',
      tri: 'triage'
    }
  })
  await github.start()
})

afterEach(async () => {
  await Promise.all([emulator.stop(), github.stop()])
})

const fast = (name: string): RunScript => scenario(name, 20)
/** The marker this workflow (API token emulator-token) writes for a run in a comment of octo-org/octo-repo. */
const signedMarker = (runId: number, commentId: number, issueNumber = 7): string =>
  markerLine(
    runId,
    markerSignature(
      { secret: 'emulator-token', repository: 'octo-org/octo-repo', issueNumber },
      commentId,
      runId
    )
  )

/** A comment on thread 7 whose first line is `marker(its own id)`, the rest `text`. */
function addMarkedComment(marker: (commentId: number) => string, text: string, user: FakeUser): void {
  const { id } = github.addComment(7, text, user)
  github.editComment(id, `${marker(id)}\n${text}`)
}

async function onEvent(
  event: { name: string; payload: unknown },
  inputs: Record<string, string> = {},
  runner: Pick<RunnerOptions, 'terminateAfterMs' | 'killAfterMs'> = {}
): Promise<RunnerResult> {
  return runAction({
    inputs: {
      'api-token': 'emulator-token',
      'org-id': '1',
      'base-url': emulator.baseUrl,
      'github-token': 'github-token',
      'poll-interval': '0.1',
      'timeout-minutes': '1',
      ...inputs
    },
    env: { GITHUB_API_URL: github.baseUrl },
    event,
    killAfterMs: 60_000,
    ...runner
  })
}

/** The comment as GitHub has it (stored in the fake) and the event it sends. */
function comment(options: CommentOptions): ReturnType<typeof issueCommentEvent> {
  const user = { login: options.login ?? 'alice', type: options.userType ?? ('User' as const) }
  const stored = github.addComment(options.issueNumber ?? 7, options.body, user)
  return issueCommentEvent({ ...options, commentId: stored.id })
}
const creates = () => emulator.requests.filter(request => request.route === 'create')
const resumes = () => emulator.requests.filter(request => request.route === 'resume')
const edits = () => github.requests.filter(request => request.method === 'PATCH')
/** The action's own comments on the thread (a tracking comment of a run that never started has no run id). */
const trackingComments = (issue = 7) =>
  github.comments(issue).filter(c => c.body.startsWith(OWN_COMMENT_MARK))

describe('a /codegen comment', () => {
  test('starts a run with the thread as context, reacts, and keeps one tracking comment', async () => {
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen fix the typo in the README' }), {
      prompt: 'Keep changes minimal.'
    })
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    expect(creates()).toHaveLength(1)
    const prompt = (creates()[0]!.body as { prompt: string }).prompt
    expect(prompt.indexOf('Keep changes minimal.')).toBeLessThan(prompt.indexOf('fix the typo in the README'))
    expect(prompt).toContain('@alice asked for this on issue #7 in octo-org/octo-repo')
    expect(prompt).toContain('Quoted text from the issue')
    expect(prompt).toContain('> The parser drops the last field')
    expect(prompt).not.toMatch(/ignore all previous instructions|\u200b/)

    const triggering = github.comments(7)[0]!
    expect(github.reactions).toEqual([
      expect.objectContaining({ target: { commentId: triggering.id }, content: 'eyes' })
    ])
    const tracking = trackingComments()
    expect(tracking).toHaveLength(1)
    const run = emulator.runs()[0]!
    expect(readMarker(tracking[0]!.body)?.runId).toBe(run.id)
    expect(tracking[0]!.body).toContain('✅ **succeeded**')
    expect(tracking[0]!.body).toContain(
      '[Fix quoted field parsing at end of line](https://github.com/octo-org/octo-repo/pull/42)'
    )
    expect(tracking[0]!.body).toContain('<summary>Result</summary>')
    expect(result.outputs).toMatchObject({ outcome: 'success', 'agent-run-id': String(run.id) })
  })

  test('the next comment resumes the same run and edits the same tracking comment', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen fix the typo' }))
    const runId = emulator.runs()[0]!.id
    const [tracking] = trackingComments()

    emulator.queueScript({
      steps: [
        { at: 0, status: 'ACTIVE' },
        { at: 200, log: { message_type: 'FINAL_ANSWER', observation: 'Changelog updated' } },
        { at: 300, status: 'COMPLETE', result: 'Changelog updated.' }
      ]
    })
    const result = await onEvent(comment({ body: '/codegen also update the changelog' }))
    expect(result.exitCode).toBe(0)
    expect(creates()).toHaveLength(1)
    expect(resumes()).toHaveLength(1)
    expect(resumes()[0]!.body).toMatchObject({ agent_run_id: runId })
    expect((resumes()[0]!.body as { prompt: string }).prompt).toContain('also update the changelog')
    expect(trackingComments()).toHaveLength(1)
    expect(trackingComments()[0]!.id).toBe(tracking!.id)
    expect(trackingComments()[0]!.body).toContain('Changelog updated.')
    expect(result.outputs).toMatchObject({ 'agent-run-id': String(runId), result: 'Changelog updated.' })
  })

  test('`/codegen new …` starts a fresh run with a tracking comment of its own', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen fix the typo' }))
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen new try a different approach' }))
    expect(creates()).toHaveLength(2)
    expect(resumes()).toHaveLength(0)
    expect((creates()[1]!.body as { prompt: string }).prompt).toMatch(/^try a different approach/)
    expect(trackingComments().map(c => readMarker(c.body)?.runId)).toEqual(
      emulator
        .runs()
        .map(run => run.id)
        .sort()
    )
  })

  test('a marker written by a person is not followed, even one copied with its signature', async () => {
    addMarkedComment(id => signedMarker(4242, id), 'I can write markers too', {
      login: 'mallory',
      type: 'User'
    })
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen fix it' }))
    expect(resumes()).toHaveLength(0)
    expect(creates()).toHaveLength(1)
  })

  test.each([
    ['unsigned', () => markerLine(4242)],
    ['with a made-up signature', () => markerLine(4242, 'ab'.repeat(16))],
    ['signed for another thread', (id: number) => signedMarker(4242, id, 8)],
    ['reposted from another comment of this thread', (id: number) => signedMarker(4242, id - 1)]
  ])('a marker from another bot, %s, is not followed: a fresh run, with a notice', async (_how, marker) => {
    addMarkedComment(marker, 'Tracking run 4242', { login: 'some-app[bot]', type: 'Bot' })
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen fix it' }))
    expect(result.exitCode).toBe(0)
    expect(resumes()).toHaveLength(0)
    expect(creates()).toHaveLength(1)
    expect(result.stdout).toMatch(
      /::notice::Not following the run marker of comment \d+ \(run 4242\).*Starting a fresh run/
    )
    const tracking = trackingComments().filter(c => c.user.login === 'github-actions[bot]')
    expect(tracking.map(c => readMarker(c.body)?.runId)).toEqual([emulator.runs()[0]!.id])
  })

  test('on a pull request, the prompt names it and its branches', async () => {
    github.addPullRequest({ number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' })
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen rebase and fix CI', pullRequest: true }))
    expect(result.exitCode).toBe(0)
    const prompt = (creates()[0]!.body as { prompt: string }).prompt
    expect(prompt).toContain('on pull request #7')
    expect(prompt).toContain('merges branch feature/parser into main')
    expect(trackingComments()).toHaveLength(1)
  })

  test('an issue opened with the phrase in its title starts a run', async () => {
    emulator.queueScript(fast('success'))
    const result = await onEvent(
      issuesOpenedEvent({ title: '/codegen Add a CSV export', body: 'For the reports page.' })
    )
    expect(result.exitCode).toBe(0)
    expect((creates()[0]!.body as { prompt: string }).prompt).toMatch(/^Add a CSV export/)
    expect(github.reactions).toEqual([
      expect.objectContaining({ target: { issueNumber: 9 }, content: 'eyes' })
    ])
    expect(trackingComments(9)).toHaveLength(1)
  })

  test.each<[string, () => ReturnType<typeof comment>, RegExp]>([
    [
      'a read-only commenter',
      () => comment({ body: '/codegen fix', login: 'reader' }),
      /@reader has read permission/
    ],
    ['a triager', () => comment({ body: '/codegen fix', login: 'tri' }), /@tri has triage permission/],
    [
      'a custom role based on read',
      () => comment({ body: '/codegen fix', login: 'erin' }),
      /@erin has auditor permission/
    ],
    [
      'a stranger',
      () => comment({ body: '/codegen fix', login: 'stranger' }),
      /@stranger has none permission/
    ],
    ['a bot', () => comment({ body: '/codegen fix', login: 'helper[bot]', userType: 'Bot' }), /is a bot/],
    [
      'a comment without the phrase',
      () => comment({ body: 'thanks! /codegen' }),
      /does not start with \/codegen/
    ],
    [
      'an edited comment',
      () => comment({ body: '/codegen fix', action: 'edited' }),
      /action "edited" never trigger/
    ]
  ])('is refused from %s: skipped, nothing sent to the service', async (_who, event, reason) => {
    const result = await onEvent(event())
    expect(result.exitCode).toBe(0)
    expect(result.outputs['outcome']).toBe('skipped')
    expect(result.stdout).toMatch(new RegExp(`::notice::No agent run: .*${reason.source}`))
    expect(emulator.requests).toHaveLength(0)
    expect(github.requests.filter(request => request.method !== 'GET')).toHaveLength(0)
  })

  test.each([
    ['admin', 'bob'],
    ['maintain', 'carol'],
    ['a custom role based on write', 'dave']
  ])('is accepted from %s', async (_permission, login) => {
    emulator.queueScript(fast('success'))
    expect((await onEvent(comment({ body: '/codegen go', login }))).outputs['outcome']).toBe('success')
  })

  test('a failed run fails the step and says so in the tracking comment', async () => {
    emulator.queueScript(fast('failure'))
    const result = await onEvent(comment({ body: '/codegen break it' }))
    expect(result.exitCode).toBe(1)
    expect(trackingComments()[0]!.body).toContain('❌ **failed**')
    expect(trackingComments()[0]!.body).toContain('status `ERROR`')
  })

  test('a timeout is written to the tracking comment', async () => {
    emulator.queueScript(scenario('endless'))
    const result = await onEvent(comment({ body: '/codegen take forever' }), { 'timeout-minutes': '0.03' })
    expect(result.outputs['outcome']).toBe('timeout')
    expect(trackingComments()[0]!.body).toContain('was still working when the workflow stopped waiting')
  })

  test('a paused run is written to the tracking comment, with how to resume it', async () => {
    emulator.queueScript(fast('paused'))
    const result = await onEvent(comment({ body: '/codegen ask me first' }))
    expect(result.outputs['outcome']).toBe('paused')
    const body = trackingComments()[0]!.body
    expect(body).toContain('⏸️ **paused**, waiting for a follow-up')
    expect(body).toContain('Reply `/codegen <follow-up>` to continue this run')
  })

  test('a cancelled job writes the tracking comment before it exits', async () => {
    emulator.queueScript(scenario('endless'))
    const result = await onEvent(
      comment({ body: '/codegen take your time' }),
      { 'poll-interval': '1' },
      { terminateAfterMs: 4_000 }
    )
    expect(result.outputs['outcome']).toBe('cancelled')
    expect(result.durationMs - result.terminatedAtMs!).toBeLessThan(5_000)
    expect(trackingComments()[0]!.body).toContain('🛑 was left running: the workflow job was cancelled')
  })

  test('a cancelled job sets its outputs and exits within seconds even while GitHub holds the comment edits', async () => {
    emulator.queueScript(scenario('endless'))
    github.injectSecondaryRateLimit(20, /\/issues\/comments\/\d+$/, 60)
    const result = await onEvent(
      comment({ body: '/codegen take your time' }),
      { 'poll-interval': '1' },
      { terminateAfterMs: 3_000, killAfterMs: 30_000 }
    )
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({
      outcome: 'cancelled',
      'agent-run-id': String(emulator.runs()[0]!.id)
    })
    expect(result.summary).toContain('Job cancelled')
    expect(result.durationMs - result.terminatedAtMs!).toBeLessThan(6_000)
  })

  test('a service error is written to the tracking comment', async () => {
    const result = await onEvent(comment({ body: '/codegen fix' }), { 'api-token': 'wrong-token' })
    expect(result.exitCode).toBe(1)
    const body = trackingComments()[0]!.body
    expect(body).toContain('⚠️ could not be followed')
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

  test('a flood of service text keeps the tracking comment under GitHub’s limit, working and ended', async () => {
    const flood = (unit: string): string => unit.repeat(Math.ceil(2_000_000 / unit.length))
    emulator.queueScript({
      steps: [
        { at: 0, status: 'ACTIVE' },
        { at: 100, log: { message_type: 'ACTION', tool_name: flood('&<'), thought: flood('<\n') } },
        {
          at: 6_000,
          status: 'COMPLETE',
          result: flood('&'),
          summary: flood('<\n'),
          pullRequests: [
            { id: 1, title: flood('&<\n'), url: `https://github.com/${flood('&')}`, head_branch_name: null }
          ]
        }
      ]
    })
    const result = await onEvent(comment({ body: `/codegen ${flood('&<').slice(0, 30_000)}` }), {
      'poll-interval': '0.2'
    })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).not.toMatch(/Could not write the tracking comment/)
    expect(github.requests.filter(request => request.status >= 400 && request.path !== '/user')).toEqual([])
    const written = github.requests.filter(
      request => /\/issues\/(7\/)?comments(\/\d+)?$/.test(request.path) && request.method !== 'GET'
    )
    // Posted, the run id, the latest step (throttled to 5 s), the ending.
    expect(written.length).toBeGreaterThanOrEqual(4)
    expect(written.some(request => (request.body as { body: string }).body.includes('Latest step:'))).toBe(
      true
    )
    for (const request of written) {
      expect([...(request.body as { body: string }).body].length).toBeLessThanOrEqual(65_536)
    }
    const body = trackingComments()[0]!.body
    expect(body).toContain('✅ **succeeded**')
    expect(body).toContain('… trimmed to fit GitHub’s comment size limit')
  })

  test('edits of the tracking comment are throttled', async () => {
    // A 12.5 s run with a log entry every half second: something new for the comment all along.
    const entries = Array.from({ length: 24 }, (_, i) => ({
      at: 500 * (i + 1),
      log: { message_type: 'ACTION', tool_name: 'shell', thought: `step ${i + 1}` }
    }))
    emulator.queueScript({
      steps: [{ at: 0, status: 'ACTIVE' }, ...entries, { at: 12_500, status: 'COMPLETE', result: 'Done.' }]
    })
    const result = await onEvent(comment({ body: '/codegen go' }), { 'poll-interval': '0.5' })
    expect(result.exitCode).toBe(0)
    // One edit when the run id is known, one at most every 5 s after, one at the end.
    const times = edits().map(request => request.at)
    expect(times.length).toBeGreaterThanOrEqual(4)
    expect(times.length).toBeLessThanOrEqual(2 + Math.ceil(result.durationMs / 5_000))
    // Every gap but the last (the ending is written at once) is at least the interval.
    const gaps = times.slice(1, -1).map((at, i) => at - times[i]!)
    expect(gaps.length).toBeGreaterThanOrEqual(2)
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(4_900)
  })

  test('an empty github-token is refused as an input, before any request', async () => {
    const result = await onEvent(comment({ body: '/codegen fix' }), { 'github-token': '' })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/::error::Invalid input: github-token: required on issue_comment events/)
    expect(result.stdout + result.stderr).not.toMatch(/Unexpected error|\s+at /)
    expect(emulator.requests).toHaveLength(0)
    expect(github.requests).toHaveLength(0)
  })

  test('a permission check GitHub refuses fails the step with one clear error, and posts nothing', async () => {
    // (A 404 is an answer: no such collaborator, so no permission; a 403 is a refusal.)
    github.injectClientError(1, /\/permission$/, 403, 'Resource not accessible by integration')
    const result = await onEvent(comment({ body: '/codegen fix' }))
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(
      /::error::Could not read @alice's permission on octo-org\/octo-repo \(Resource not accessible by integration.*\); the run is not started/
    )
    expect(result.stdout + result.stderr).not.toMatch(/Unexpected error|\s+at /)
    expect(emulator.requests).toHaveLength(0)
    expect(github.requests.filter(request => request.method !== 'GET')).toHaveLength(0)
  })

  test('comments GitHub will not list fail the step, and the tracking comment says why', async () => {
    github.injectClientError(1, /\/issues\/7\/comments$/)
    const result = await onEvent(comment({ body: '/codegen fix' }))
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(
      /::error::Could not read the comments of #7 to find its tracking comment \(Not Found.*\); the run is not started/
    )
    expect(result.stdout + result.stderr).not.toMatch(/Unexpected error|\s+at /)
    expect(emulator.requests).toHaveLength(0)
    const body = trackingComments()[0]!.body
    expect(body).toContain('⚠️ could not be followed')
    expect(body).toContain('Could not read the comments of #7')
  })

  test("GitHub's secondary rate limits are waited out", async () => {
    github.injectSecondaryRateLimit(1, /\/issues\/7\/comments$/)
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen go' }))
    expect(result.exitCode).toBe(0)
    expect(trackingComments()).toHaveLength(1)
    expect(result.stdout).toContain('secondary rate limit')
  })
})
