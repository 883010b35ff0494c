import type { FlowOptions, FlowResult } from '../../support/flow-step.js'
import { FlowWorld } from '../../support/flow-world.js'
import { issueCommentEvent } from '../../support/webhooks.js'
import { COMMENT_STEP_CALLS } from '../../support/comment-step-calls.js'

describe('github-stalls', () => {
  /**
   * GitHub that stops answering, one call at a time, in process as the runner runs the action, on the
   * virtual clock: a hung call is held by the fake GitHub while time moves, so the step's deadlines
   * fire on their own. The step ends with its outputs and summary exactly when it must: 3 s past
   * timeout-minutes, or 5 s after a cancellation (inside the runner's 7.5 s). The same deadlines with a
   * fake runner: step-deadlines.ts.
   */

  /** timeout-minutes: past the calls before the first comment edit (GitHub's second between writes). */
  const TIMEOUT_MS = 4_000
  const GITHUB_PAST_DEADLINE_MS = 3_000
  const GITHUB_AFTER_CANCEL_MS = 5_000
  const COMMENT_EDIT = /\/issues\/comments\/\d+$/

  const world = new FlowWorld({ github: { permissions: { alice: 'write' } } })

  beforeEach(() => {
    world.github.addPullRequest({
      number: 7,
      title: 'Parser',
      body: '',
      head: 'feature/parser',
      base: 'main'
    })
    // The run keeps working: the step ends at its deadline.
    world.emulator.queueScript({ steps: [{ at: 0, status: 'ACTIVE' }] })
  })

  /** Whether the action has sent a request matching `method` and `path`. */
  const sent = (method: string, path: RegExp): boolean =>
    world.github.requests.some(request => request.method === method && path.test(request.path))

  /** The action on alice's `/codegen` comment on pull request 7. */
  function onComment(
    runner: Pick<FlowOptions, 'terminateAfterMs' | 'terminateWhen'> = {},
    timeoutMs = TIMEOUT_MS
  ): Promise<FlowResult> {
    return world.step({
      inputs: {
        'api-token': 'emulator-token',
        'org-id': '1',
        'base-url': world.emulator.baseUrl,
        'repo-id': '101',
        'github-token': 'github-token',
        'poll-interval': '0.2',
        'timeout-minutes': String(timeoutMs / 60_000)
      },
      env: { GITHUB_API_URL: world.github.baseUrl },
      event: issueCommentEvent({ body: '/codegen fix it', pullRequest: true }),
      ...runner
    })
  }

  /** The requests matching `method` and `path`: virtual ms from the step's start, and GitHub's status. */
  const sentAt = (result: FlowResult, method: string, path: RegExp): Array<[number, number]> =>
    world.github.requests
      .filter(request => request.method === method && path.test(request.path))
      .map(request => [request.at - result.startedAt, request.status])

  const warningsOf = (result: FlowResult): string[] =>
    result.stdout.split('\n').filter(line => line.startsWith('::warning::'))

  test.each(COMMENT_STEP_CALLS)(
    '%s hanging: the step ends 3 s past its deadline, with outputs and summary',
    async (_, path, method) => {
      world.github.injectHang(1_000, path, method)
      const result = await onComment()
      expect(sent(method, path)).toBe(true)
      // Ended on its own, when GitHub's calls are stopped, not a moment later.
      expect(result.durationMs).toBe(TIMEOUT_MS + GITHUB_PAST_DEADLINE_MS)
      expect(result.outputs.outcome).toBeDefined()
      expect(result.summary).not.toBe('')
    }
  )

  test('secondary rate limits on the final edit do not hold the step past its deadline', async () => {
    // Every edit is told to wait a minute; none has a minute left before GitHub's calls stop (7 s).
    world.github.injectSecondaryRateLimit(1_000, COMMENT_EDIT, 60)
    const result = await onComment()
    // The deadline came after the tracking comment (the final report edits it): its edits at 3 s
    // (pointing at the run, a second after the writes before it) and at the deadline, 4 s (the final
    // report: the writes that conclude go unspaced once the step is out of time) ...
    expect(sentAt(result, 'POST', /\/issues\/7\/comments$/)).toEqual([[1_000, 201]])
    expect(sentAt(result, 'PATCH', COMMENT_EDIT)).toEqual([
      [3_000, 403],
      [4_000, 403]
    ])
    // ... each refused, not waited for, not retried: the step ends with the last writes, at 4 s.
    expect(warningsOf(result).filter(line => line.includes('secondary rate limit on'))).toEqual([
      '::warning::GitHub secondary rate limit on PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}: no time left to wait 60 s',
      '::warning::GitHub secondary rate limit on PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}: no time left to wait 60 s'
    ])
    expect(world.clock.sleeps).not.toContain(60_000)
    expect(result.durationMs).toBe(4_000)
    expect(result.outputs.outcome).toBe('timeout')
  })

  test('cancelled while the permission check hangs: ends 5 s later with its summary', async () => {
    world.github.injectHang(1_000, /\/permission$/, 'GET')
    // Cancelled at 1 s, the check on its way since the start.
    const result = await onComment({
      terminateAfterMs: 1_000,
      terminateWhen: () => sent('GET', /\/permission$/)
    })
    expect(result.terminatedAtMs).toBe(1_000)
    expect(result.durationMs).toBe(1_000 + GITHUB_AFTER_CANCEL_MS)
    expect(result.exitCode).toBe(1)
    expect(result.summary).not.toBe('')
  })

  test('cancelled while every comment edit hangs: ends 5 s later, cancelled', async () => {
    world.github.injectHang(1_000, COMMENT_EDIT, 'PATCH')
    // A timeout-minutes far beyond the cancellation, which comes once an edit hangs (at 3 s).
    const result = await onComment(
      { terminateAfterMs: 1_000, terminateWhen: () => sent('PATCH', COMMENT_EDIT) },
      30_000
    )
    expect(sentAt(result, 'PATCH', COMMENT_EDIT)).toEqual([[3_000, 0]])
    expect(result.terminatedAtMs).toBe(3_000)
    expect(result.durationMs).toBe(3_000 + GITHUB_AFTER_CANCEL_MS)
    expect(result.exitCode).toBe(1)
    expect(result.outputs.outcome).toBe('cancelled')
  })

  test('a permission lookup answering 404 is no permission: skipped, not failed', async () => {
    world.github.injectClientError(1, /\/permission$/, 404)
    const result = await onComment()
    expect(result.exitCode).toBe(0)
    expect(result.outputs.outcome).toBe('skipped')
    expect(result.stdout).toMatch(/::notice::No agent run: @alice has none permission/)
    expect(world.emulator.runs()).toHaveLength(0)
    // Not retried: a 404 is GitHub's answer.
    expect(sentAt(result, 'GET', /\/permission$/)).toEqual([[0, 404]])
  })
})
