import { readerText } from '../../../scripts/render-markdown.js'
import { scenario } from '../../../emulator/index.js'
import { FakeGitHub } from '../../../scripts/github-fake/index.js'
import { InProcessWorld } from '../../support/in-process-world.js'
import { issueCommentEvent } from '../../support/webhooks.js'
import { COMMENT_STEP_CALLS } from '../../support/comment-step-calls.js'

describe('step-deadlines', () => {
  /**
   * The step's deadlines on the virtual clock, exact to the millisecond: it follows the run until
   * timeout-minutes, then GitHub's last calls (the tracking comment, the check run) get 3 s; a
   * cancelled job's get 5 s, inside the runner's 7.5 s. A call GitHub never answers is held by the
   * fake GitHub while time moves, so the deadlines fire on their own. The same stalls as the runner
   * runs the action: github-stalls.ts; the check's endings: flows/checks/check-life.ts, flows/checks/check-gate.ts.
   */

  const world = new InProcessWorld()
  let github: FakeGitHub

  const TIMEOUT_MS = 6_000
  const GITHUB_PAST_DEADLINE_MS = 3_000
  const GITHUB_AFTER_CANCEL_MS = 5_000

  beforeEach(async () => {
    await world.startEmulator()
    world.emulator.queueScript(scenario('endless'))
    github = new FakeGitHub({ clock: world.clock, permissions: { alice: 'write' } })
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
   * Resolves at the first moment `ready()` holds, looked at every 100 virtual ms while a step runs on
   * the clock (sleeps only end inside a run): a point of the step reached by order, not by a race.
   */
  async function once(ready: () => boolean): Promise<void> {
    while (!ready()) await world.clock.sleep(100)
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
      // At the deadline the comment's and the check's last writes, at once (the writes that conclude
      // are not spaced once the step is out of time); then the step ends.
      const lastWrites = github.requests.slice(-2).map(request => [request.method, request.at - startedAt])
      expect(lastWrites).toEqual([
        ['PATCH', TIMEOUT_MS],
        ['PATCH', TIMEOUT_MS]
      ])
      expect(endedAt - startedAt).toBe(TIMEOUT_MS)
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
    '%s hanging: the step ends 3 s past its deadline, with its outputs and summary',
    async (_, path, method) => {
      github.injectHang(1_000, path, method)
      const { runner, startedAt, endedAt } = await onComment()
      expect(sent(method, path)).toBe(true)
      expect(endedAt - startedAt).toBe(TIMEOUT_MS + GITHUB_PAST_DEADLINE_MS)
      expect(runner.outputs['outcome']).toBeDefined()
      expect(runner.summary).not.toBe('')
    }
  )

  test('cancelled while the tracking comment hangs: the step ends 5 s later, inside the runner’s 7.5 s', async () => {
    const create = /\/issues\/7\/comments$/
    github.injectHang(1_000, create, 'POST')
    const cancellation = new AbortController()
    let cancelledAt = 0
    // Cancelled once the comment hangs.
    void once(() => sent('POST', create)).then(() => {
      cancelledAt = world.clock.now()
      cancellation.abort()
    })
    const { runner, startedAt, endedAt } = await onComment({ 'timeout-minutes': '30' }, cancellation.signal)
    // The comment's create, a second after the reaction (GitHub's spacing of writes).
    expect(cancelledAt - startedAt).toBe(1_000)
    expect(endedAt - cancelledAt).toBe(GITHUB_AFTER_CANCEL_MS)
    expect(runner.outputs['outcome']).toBe('cancelled')
    expect(runner.summary).not.toBe('')
  })
})
