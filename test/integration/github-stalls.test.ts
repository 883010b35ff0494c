import { AgentRunEmulator } from '../../emulator/index.js'
import { FakeGitHub } from '../../scripts/github-fake/index.js'
import { runBundledAction, type RunnerOptions, type RunnerResult } from '../../scripts/runner-process.js'
import { issueCommentEvent } from '../support/webhooks.js'
import { COMMENT_STEP_CALLS } from '../support/comment-step-calls.js'

/**
 * GitHub that stops answering, one call at a time, end to end: the step still ends on its own (a hung
 * call is never answered: ending at all is ending before it), with its outputs and summary, at its
 * deadline or on cancellation. How soon after (3 s past timeout-minutes, 4 s after a cancellation,
 * within the runner's 7.5 s) is held on the virtual clock, where a loaded machine's seconds do not
 * count: test/in-process/step-deadlines.test.ts. The tests mostly wait (on deadlines and hung
 * calls), so they run at once, each in a world of its own.
 */

/**
 * timeout-minutes of the deadline tests: seconds more than the calls before the tracking comment take
 * on a loaded machine (a deadline of 1.5 s once came before them), so that the deadline meets the call
 * a test holds, never the calls before it.
 */
const TIMEOUT_MS = 4_000
const COMMENT_EDIT = /\/issues\/comments\/\d+$/

interface World {
  emulator: AgentRunEmulator
  github: FakeGitHub
  /** Whether the action has sent a request matching `method` and `path`. */
  sent: (method: string, path: RegExp) => boolean
  /** The bundled action on alice's `/codegen` comment on pull request 7. */
  onComment: (
    runner?: Pick<RunnerOptions, 'terminateAfterMs' | 'terminateWhen'>,
    timeoutMs?: number
  ) => Promise<RunnerResult>
}

/** A world of its own for `test`: the emulator with a run that keeps working, and a fake GitHub. */
async function inWorld(test: (world: World) => Promise<void>): Promise<void> {
  const emulator = new AgentRunEmulator()
  const github = new FakeGitHub({ permissions: { alice: 'write' } })
  try {
    await Promise.all([emulator.start(), github.start()])
    github.addPullRequest({ number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' })
    // The run keeps working: the step ends at its deadline.
    emulator.queueScript({ steps: [{ at: 0, status: 'ACTIVE' }] })
    const sent = (method: string, path: RegExp): boolean =>
      github.requests.some(request => request.method === method && path.test(request.path))
    const onComment: World['onComment'] = (runner = {}, timeoutMs = TIMEOUT_MS) =>
      runBundledAction({
        inputs: {
          'api-token': 'emulator-token',
          'org-id': '1',
          'base-url': emulator.baseUrl,
          'repo-id': '101',
          'github-token': 'github-token',
          'poll-interval': '0.2',
          'timeout-minutes': String(timeoutMs / 60_000)
        },
        env: { GITHUB_API_URL: github.baseUrl },
        event: issueCommentEvent({ body: '/codegen fix it', pullRequest: true }),
        killAfterMs: 40_000,
        ...runner
      })
    await test({ emulator, github, sent, onComment })
  } finally {
    await Promise.all([emulator.stop(), github.stop()])
  }
}

test.concurrent.each(COMMENT_STEP_CALLS)(
  '%s hanging: the step ends on its own with outputs and summary',
  (_, path, method) =>
    inWorld(async ({ github, sent, onComment }) => {
      github.injectHang(1_000, path, method)
      const result = await onComment()
      expect(sent(method, path)).toBe(true)
      // Ended on its own, not killed by the harness (40 s).
      expect(result.exitCode).not.toBeNull()
      expect(result.outputs.outcome).toBeDefined()
      expect(result.summary).not.toBe('')
    })
)

test.concurrent('secondary rate limits on the final edit do not hold the step past its deadline', () =>
  inWorld(async ({ github, sent, onComment }) => {
    // Every edit is told to wait a minute; the last one, at the deadline, has no minute left.
    github.injectSecondaryRateLimit(1_000, COMMENT_EDIT, 60)
    const result = await onComment()
    // The deadline came after the tracking comment (the final report edits it) ...
    expect(sent('POST', /\/issues\/7\/comments$/)).toBe(true)
    expect(sent('PATCH', COMMENT_EDIT)).toBe(true)
    // ... and the step did not wait the minute: it ended before it was over.
    expect(result.durationMs).toBeLessThan(60_000)
    expect(result.stdout).toContain('no time left to wait 60 s')
    expect(result.outputs.outcome).toBe('timeout')
  })
)

test.concurrent('cancelled while the permission check hangs: ends on its own with its summary', () =>
  inWorld(async ({ github, sent, onComment }) => {
    github.injectHang(1_000, /\/permission$/, 'GET')
    // Cancelled once the check is on its way, however slowly a loaded machine started the step.
    const result = await onComment({
      terminateAfterMs: 1_000,
      terminateWhen: () => sent('GET', /\/permission$/)
    })
    expect(result.terminatedAtMs).toBeDefined()
    expect(result.exitCode).not.toBeNull()
    expect(result.summary).not.toBe('')
  })
)

test.concurrent('cancelled while every comment edit hangs: ends on its own, cancelled', () =>
  inWorld(async ({ github, sent, onComment }) => {
    github.injectHang(1_000, COMMENT_EDIT, 'PATCH')
    // A timeout-minutes far beyond the cancellation, which comes once an edit hangs.
    const result = await onComment(
      { terminateAfterMs: 1_000, terminateWhen: () => sent('PATCH', COMMENT_EDIT) },
      30_000
    )
    expect(result.terminatedAtMs).toBeDefined()
    expect(result.exitCode).not.toBeNull()
    expect(result.outputs.outcome).toBe('cancelled')
  })
)

test.concurrent('a permission lookup answering 404 is no permission: skipped, not failed', () =>
  inWorld(async ({ emulator, github, onComment }) => {
    github.injectClientError(1, /\/permission$/, 404)
    const result = await onComment()
    expect(result.exitCode).toBe(0)
    expect(result.outputs.outcome).toBe('skipped')
    expect(result.stdout).toMatch(/::notice::No agent run: @alice has none permission/)
    expect(emulator.runs()).toHaveLength(0)
  })
)
