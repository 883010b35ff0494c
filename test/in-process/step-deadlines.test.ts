import { readerText } from '../../scripts/render-markdown.js'
import { scenario } from '../../emulator/index.js'
import { FakeGitHub } from '../../scripts/github-fake/index.js'
import { InProcessWorld } from '../support/in-process-world.js'
import { issueCommentEvent } from '../support/webhooks.js'
import { COMMENT_STEP_CALLS } from '../support/comment-step-calls.js'

/**
 * The step's deadlines on the virtual clock, where a loaded machine's seconds do not count: it
 * follows the run until timeout-minutes, then GitHub's last calls (the tracking comment, the check
 * run) get 3 s; a cancelled job's get 4 s, inside the runner's 7.5 s. The same steps end to end, as
 * the runner runs the bundle, assert what does not hang on the machine's speed:
 * github-stalls.test.ts, check-life.test.ts, check-gate.test.ts, comment-endings.test.ts.
 */

const world = new InProcessWorld()
let github: FakeGitHub

const TIMEOUT_MS = 6_000
const GITHUB_PAST_DEADLINE_MS = 3_000
const GITHUB_AFTER_CANCEL_MS = 4_000
/**
 * Virtual time a tick moves while a call hangs (nothing else would move it: no one sleeps). The
 * throttling plugin spaces GitHub's writes on real timers; a tick moving the clock during them only
 * makes the step look later, never sooner.
 */
const TICK_MS = 100

beforeEach(async () => {
  await world.startEmulator()
  world.emulator.queueScript(scenario('endless'))
  github = new FakeGitHub({ permissions: { alice: 'write' } })
  await github.start()
  github.addPullRequest({ number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' })
})

afterEach(() => github.stop())

/** alice's `/codegen` comment on pull request 7, as a step with `timeout-minutes` of 6 s and `inputs` runs it. */
async function onComment(inputs: Record<string, string> = {}, signal?: AbortSignal) {
  const body = '/codegen go on'
  const stored = github.addComment(7, body, { login: 'alice', type: 'User' })
  const event = issueCommentEvent({ body, pullRequest: true, commentId: stored.id })
  const startedAt = world.clock.now()
  const step = await world.step(
    {
      'github-token': 'github-token',
      'org-id': '1',
      prompt: '',
      'poll-interval': '1',
      'timeout-minutes': String(TIMEOUT_MS / 60_000),
      ...inputs
    },
    { event, env: { GITHUB_API_URL: github.baseUrl }, signal }
  )
  return { ...step, startedAt, endedAt: world.clock.now() }
}

/**
 * Runs `work`; once `until()` gives a time (a call GitHub never answers was sent), moves the virtual
 * clock by TICK_MS every few real milliseconds, nothing else would move it, but never past that
 * time: however slowly the machine finishes the step, the clock cannot make it look late. A step
 * that waited longer than it may would wait for good, and fail at jest's time limit.
 */
async function ticking<T>(work: Promise<T>, until: () => number | undefined): Promise<T> {
  const timer = setInterval(() => {
    const limit = until()
    if (limit !== undefined && world.clock.now() < limit) void world.clock.sleep(TICK_MS)
  }, 5)
  try {
    return await work
  } finally {
    clearInterval(timer)
  }
}

const sent = (method: string, path: RegExp): boolean =>
  github.requests.some(request => request.method === method && path.test(request.path))

const trackingComment = () =>
  github.comments(7).find(comment => comment.body.includes('codegen-agent-run-action'))

describe('a run still working at timeout-minutes', () => {
  test('the step ends at its deadline; the tracking comment says so and the check is concluded timed_out', async () => {
    const { runner, failure, startedAt, endedAt } = await onComment()
    expect(runner.outputs).toMatchObject({ outcome: 'timeout' })
    expect(failure).toContain('did not end within timeout-minutes')
    expect(endedAt - startedAt).toBeGreaterThanOrEqual(TIMEOUT_MS)
    expect(endedAt - startedAt).toBeLessThanOrEqual(TIMEOUT_MS + GITHUB_PAST_DEADLINE_MS)
    expect(trackingComment()!.body).toContain('was still working when the workflow stopped waiting')
    const [check, ...others] = github.checkRuns()
    expect(others).toEqual([])
    expect(check).toMatchObject({ status: 'completed', conclusion: 'timed_out' })
    expect(check!.output.title).toMatch(/^Timed out/)
  })

  test('under fail-on: failure, the step passes and so does the check, saying why', async () => {
    const { runner, failure } = await onComment({ 'fail-on': 'failure' })
    expect(runner.outputs).toMatchObject({ outcome: 'timeout' })
    expect(failure).toBeUndefined()
    const [check] = github.checkRuns()
    expect(check).toMatchObject({ status: 'completed', conclusion: 'success' })
    expect(check!.output.title).toMatch(/^Timed out \(fail-on lets it pass\)/)
    expect(readerText(check!.output.summary!)).toContain(
      'This check passes as the step does: fail-on: failure lets this ending pass.'
    )
  })
})

test.each(COMMENT_STEP_CALLS)(
  '%s hanging: the step ends within 3 s of its deadline, with its outputs and summary',
  async (_, path, method) => {
    github.injectHang(1_000, path, method)
    const limit = world.clock.now() + TIMEOUT_MS + GITHUB_PAST_DEADLINE_MS
    const { runner, startedAt, endedAt } = await ticking(onComment(), () =>
      sent(method, path) ? limit : undefined
    )
    expect(sent(method, path)).toBe(true)
    expect(endedAt - startedAt).toBeLessThanOrEqual(TIMEOUT_MS + GITHUB_PAST_DEADLINE_MS + TICK_MS)
    expect(runner.outputs['outcome']).toBeDefined()
    expect(runner.summary).not.toBe('')
  }
)

test('cancelled while the tracking comment hangs: the step ends within 4 s, inside the runner’s 7.5 s', async () => {
  // The comment is written before the run starts: no look moves the clock while the throttling
  // plugin spaces writes on real timers (a hung edit, later, would race the looks).
  const create = /\/issues\/7\/comments$/
  github.injectHang(1_000, create, 'POST')
  const cancellation = new AbortController()
  let cancelledAt = 0
  // Cancelled once the comment hangs; from then on the clock moves.
  const { runner, endedAt } = await ticking(
    onComment({ 'timeout-minutes': '30' }, cancellation.signal),
    () => {
      if (!sent('POST', create)) return undefined
      if (!cancellation.signal.aborted) {
        cancelledAt = world.clock.now()
        cancellation.abort()
      }
      return cancelledAt + GITHUB_AFTER_CANCEL_MS
    }
  )
  expect(cancelledAt).toBeGreaterThan(0)
  expect(endedAt - cancelledAt).toBeLessThanOrEqual(GITHUB_AFTER_CANCEL_MS + TICK_MS)
  expect(runner.outputs['outcome']).toBe('cancelled')
  expect(runner.summary).not.toBe('')
})
