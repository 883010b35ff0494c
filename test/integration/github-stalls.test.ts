import { AgentRunEmulator } from '../../emulator/index.js'
import { FakeGitHub } from '../github-fake/index.js'
import { runBundledAction, type RunnerResult } from '../../scripts/runner-process.js'
import { issueCommentEvent } from '../support/webhooks.js'

/**
 * GitHub that stops answering, one call at a time: the step still ends within timeout-minutes plus a
 * few seconds, with its outputs and summary; on cancellation, within the runner's 7.5 s.
 */

let emulator: AgentRunEmulator
let github: FakeGitHub

beforeEach(async () => {
  emulator = new AgentRunEmulator()
  await emulator.start()
  github = new FakeGitHub({ permissions: { alice: 'write' } })
  await github.start()
  github.addPullRequest({ number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' })
  // The run keeps working: the step ends at its deadline.
  emulator.queueScript({ steps: [{ at: 0, status: 'ACTIVE' }] })
})

afterEach(async () => {
  await Promise.all([emulator.stop(), github.stop()])
})

const TIMEOUT_MS = 1_500
/** timeout-minutes, then the last edit's 3 s, then the process's start and end (slow on a loaded machine). */
const ENDS_WITHIN_MS = TIMEOUT_MS + 3_000 + 5_000

function onComment(extra: { terminateAfterMs?: number } = {}, timeoutMs = TIMEOUT_MS): Promise<RunnerResult> {
  return runBundledAction({
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
    ...extra
  })
}

// Each row names its step's timeout: a row shorter than the test's parameters would make jest pass `done`.
const CALLS: Array<[string, RegExp, string, number]> = [
  ['the permission check', /\/collaborators\/alice\/permission$/, 'GET', TIMEOUT_MS],
  ['the reaction', /\/reactions$/, 'POST', TIMEOUT_MS],
  ['the identity lookup', /^\/user$/, 'GET', TIMEOUT_MS],
  ['the comment listing', /\/issues\/7\/comments$/, 'GET', TIMEOUT_MS],
  ['the review comment listing', /\/pulls\/7\/comments$/, 'GET', TIMEOUT_MS],
  ['the pull request lookup', /\/pulls\/7$/, 'GET', TIMEOUT_MS],
  ['the tracking comment', /\/issues\/7\/comments$/, 'POST', TIMEOUT_MS],
  // Edits come after the comment, the run and a second's spacing of writes: a step of 1.5 s on a
  // loaded machine may reach its deadline before the first, so this one has 4 s.
  ['every comment edit', /\/issues\/comments\/\d+$/, 'PATCH', 4_000]
]

test.each(CALLS)(
  '%s hanging: the step ends in time with outputs and summary',
  async (_, path, method, timeoutMs) => {
    github.injectHang(1_000, path, method)
    const result = await onComment({}, timeoutMs)
    expect(github.requests.some(r => r.method === method && path.test(r.path))).toBe(true)
    expect(result.durationMs).toBeLessThan(ENDS_WITHIN_MS - TIMEOUT_MS + timeoutMs)
    expect(result.outputs.outcome).toBeDefined()
    expect(result.summary).not.toBe('')
  }
)

test('secondary rate limits on the final edit do not hold the step past its deadline', async () => {
  // Edits while the run works pass; from the deadline on, every edit is told to wait a minute.
  github.injectSecondaryRateLimit(1_000, /\/issues\/comments\/\d+$/, 60)
  const result = await onComment()
  expect(result.durationMs).toBeLessThan(ENDS_WITHIN_MS)
  expect(result.stdout).toContain('no time left to wait 60 s')
  expect(result.outputs.outcome).toBe('timeout')
})

test('cancelled while the permission check hangs: ends within 7.5 s', async () => {
  github.injectHang(1_000, /\/permission$/, 'GET')
  const result = await onComment({ terminateAfterMs: 1_500 })
  expect(result.terminatedAtMs).toBeDefined()
  expect(result.durationMs - (result.terminatedAtMs ?? 0)).toBeLessThan(7_500)
  expect(result.summary).not.toBe('')
})

test('cancelled while every comment edit hangs: ends within 7.5 s', async () => {
  github.injectHang(1_000, /\/issues\/comments\/\d+$/, 'PATCH')
  // A timeout-minutes far beyond the cancellation: under load, the deadline must not come first.
  const result = await onComment({ terminateAfterMs: 1_500 }, 30_000)
  expect(result.terminatedAtMs).toBeDefined()
  expect(result.durationMs - (result.terminatedAtMs ?? 0)).toBeLessThan(7_500)
  expect(result.outputs.outcome).toBe('cancelled')
})

test('a permission lookup answering 404 is no permission: skipped, not failed', async () => {
  github.injectClientError(1, /\/permission$/, 404)
  const result = await onComment()
  expect(result.exitCode).toBe(0)
  expect(result.outputs.outcome).toBe('skipped')
  expect(result.stdout).toMatch(/::notice::No agent run: @alice has none permission/)
  expect(emulator.runs()).toHaveLength(0)
})
