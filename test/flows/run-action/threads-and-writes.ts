import { readMarker } from '../../../src/thread/tracking.js'
import { OWN_COMMENT_MARK } from '../../../src/github-shapes.js'
import type { InputName } from '../../../src/settings/settings.js'
import { scenario } from '../../../emulator/index.js'
import { FakeGitHub } from '../../../scripts/github-fake/index.js'
import { InProcessWorld } from '../../support/in-process-world.js'
import { labeledEvent, reviewCommentEvent } from '../../support/webhooks.js'

describe('threads-and-writes', () => {
  /**
   * Review-comment threads, reactions, GitHub's rate limits and writes whose fate stays unknown, in
   * process: runAction with a fake runner and a virtual clock shared with the emulator and the fake
   * GitHub, over real HTTP on loopback. What the runner would show: outputs, summary, console lines, the step's failure.
   */

  const world = new InProcessWorld()
  let github: FakeGitHub | undefined

  afterEach(async () => {
    await github?.stop()
    github = undefined
  })

  describe('a /codegen comment on the code of a pull request', () => {
    beforeEach(async () => {
      await world.startEmulator()
      github = new FakeGitHub({ clock: world.clock, permissions: { alice: 'write' } })
      await github.start()
      github.addPullRequest({ number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' })
    })

    function reviewComment(body: string, inReplyTo?: number) {
      const stored = github!.addReviewComment(7, {
        body,
        user: { login: 'alice', type: 'User' },
        path: 'src/parser.ts',
        line: 12,
        side: 'RIGHT',
        diffHunk: '@@ -8,3 +8,3 @@\n-  let i = 0\n+  let i = 1',
        ...(inReplyTo === undefined ? {} : { inReplyTo })
      })
      return { stored, event: reviewCommentEvent(stored) }
    }

    const onEvent = (event: { name: string; payload: unknown }) =>
      world.step(
        { 'github-token': 'github-token', 'org-id': '1', prompt: '' },
        { event, env: { GITHUB_API_URL: github!.baseUrl } }
      )
    const replies = () => github!.reviewComments(7).filter(c => c.body.startsWith(OWN_COMMENT_MARK))

    test('answers in the review thread, and a reply there resumes the run in the same reply', async () => {
      world.emulator.queueScript(scenario('success'))
      const first = reviewComment('/codegen start the index at 0 again')
      const { runner, failure } = await onEvent(first.event)
      expect(failure).toBeUndefined()
      expect(runner.outputs).toMatchObject({ outcome: 'success', trigger: 'review-comment' })
      const [tracking] = replies()
      expect(tracking).toMatchObject({ in_reply_to_id: first.stored.id, path: 'src/parser.ts' })
      expect(readMarker(tracking!.body)?.runId).toBe(world.emulator.runs()[0]!.id)
      expect(tracking!.body).toContain('✅ **succeeded**')
      expect(github!.comments(7).filter(c => c.body.startsWith(OWN_COMMENT_MARK))).toEqual([])
      expect(github!.reactions).toEqual([
        expect.objectContaining({ target: { reviewCommentId: first.stored.id }, content: 'eyes' })
      ])

      world.emulator.queueScript(scenario('success'))
      const reply = reviewComment('/codegen and add a test for it', tracking!.id)
      const second = await onEvent(reply.event)
      expect(second.failure).toBeUndefined()
      expect(world.routes('create')).toHaveLength(1)
      expect(world.routes('resume')[0]!.body).toMatchObject({ agent_run_id: world.emulator.runs()[0]!.id })
      expect(replies().map(c => c.id)).toEqual([tracking!.id])
      expect(github!.reactions.at(-1)).toMatchObject({ target: { reviewCommentId: reply.stored.id } })
    })

    test('review comments GitHub will not list: no run, and the reply says why', async () => {
      github!.injectClientError(1, /\/pulls\/7\/comments$/, 404, 'Not Found')
      const { runner, failure } = await onEvent(reviewComment('/codegen fix').event)
      expect(failure).toMatch(/^Could not read the comments of #7 to find its tracking comment/)
      expect(runner.outputs['outcome']).toBe('error')
      expect(world.emulator.requests).toEqual([])
      expect(replies()[0]!.body).toContain('⚠️ could not be started')
    })

    test('a refused reaction on a review comment is a warning only', async () => {
      github!.injectClientError(1, /pulls\/comments\/\d+\/reactions/, 403, 'Forbidden')
      world.emulator.queueScript(scenario('success'))
      const { runner, failure } = await onEvent(reviewComment('/codegen fix').event)
      expect(failure).toBeUndefined()
      expect(runner.lines.some(line => line.startsWith('warning: Could not react to the comment'))).toBe(true)
      expect(replies()).toHaveLength(1)
    })
  })

  describe('GitHub on a trigger event', () => {
    beforeEach(async () => {
      await world.startEmulator()
      github = new FakeGitHub({ clock: world.clock, permissions: { alice: 'write' } })
      await github.start()
    })

    const onEvent = (
      event: { name: string; payload: unknown },
      inputs: Partial<Record<InputName, string>> = {}
    ) =>
      world.step(
        { 'github-token': 'github-token', 'org-id': '1', prompt: '', ...inputs },
        { event, env: { GITHUB_API_URL: github!.baseUrl } }
      )

    test('a labelled issue: the reaction is on the issue itself', async () => {
      github!.addLabel(9, 'codegen')
      world.emulator.queueScript(scenario('success'))
      const { runner, failure } = await onEvent(labeledEvent({ label: 'codegen', number: 9 }), {
        'label-trigger': 'codegen'
      })
      expect(failure).toBeUndefined()
      expect(runner.outputs).toMatchObject({ outcome: 'success', trigger: 'label' })
      expect(github!.reactions).toEqual([
        expect.objectContaining({ target: { issueNumber: 9 }, content: 'eyes' })
      ])
    })

    test('a secondary rate limit is waited out, with a warning that names the call', async () => {
      github!.injectSecondaryRateLimit(1, /collaborators/, 1)
      github!.addLabel(9, 'codegen')
      world.emulator.queueScript(scenario('success'))
      const { runner, failure } = await onEvent(labeledEvent({ label: 'codegen', number: 9 }), {
        'label-trigger': 'codegen'
      })
      expect(failure).toBeUndefined()
      expect(
        runner.lines.some(line =>
          /^warning: GitHub secondary rate limit on GET .*collaborators.*: retrying in 1 s$/.test(line)
        )
      ).toBe(true)
      // Sent again once its Retry-After (1 s) has passed, to the millisecond.
      const reads = github!.requests.filter(request => /collaborators/.test(request.path))
      expect(reads.map(request => [request.status, request.at - reads[0]!.at])).toEqual([
        [403, 0],
        [200, 1_000]
      ])
      expect(world.routes('create')).toHaveLength(1)
    })

    test('a secondary rate limit longer than the time left is not waited out', async () => {
      github!.injectSecondaryRateLimit(5, /collaborators/, 3600)
      github!.addLabel(9, 'codegen')
      const { runner, failure } = await onEvent(labeledEvent({ label: 'codegen', number: 9 }), {
        'label-trigger': 'codegen'
      })
      expect(failure).toBeDefined()
      expect(
        runner.lines.some(line =>
          /^warning: GitHub secondary rate limit on GET .*collaborators.*: no time left to wait 3600 s$/.test(
            line
          )
        )
      ).toBe(true)
      // Not waited at all: the step ends as refused, at once.
      expect(github!.requests.filter(request => /collaborators/.test(request.path))).toHaveLength(1)
      expect(world.clock.sleeps).not.toContain(3_600_000)
      expect(world.routes('create')).toHaveLength(0)
    })
  })

  describe('writes whose fate stays unknown', () => {
    test('a create lost on every send ends in an error that says no run was created', async () => {
      await world.startEmulator({ rateLimits: false })
      world.emulator.injectFaults({ route: 'create', times: 100, fault: { kind: 'reset-before' } })
      const { runner, failure } = await world.step({ 'org-id': '1', 'repo-id': '101' })
      expect(failure).toMatch(/\(sent \d+ times; no run was created\)/)
      expect(world.emulator.runs()).toHaveLength(0)
      expect(world.routes('list-runs').length).toBeGreaterThan(0)
      expect(runner.outputs).toMatchObject({ outcome: 'error', 'agent-run-id': '' })
    })

    test('a resume lost on every send ends in an error that says the run did not restart', async () => {
      await world.startEmulator({ rateLimits: false })
      world.emulator.queueScript(scenario('success'))
      const runId = (await world.step({ 'org-id': '1' })).runner.outputs['agent-run-id']!
      world.emulator.injectFaults({ route: 'resume', times: 100, fault: { kind: 'reset-before' } })
      const { failure } = await world.step({ 'org-id': '1', 'agent-run-id': runId, prompt: 'Again' })
      expect(failure).toMatch(/\(sent \d+ times; the run did not restart\)/)
      expect(world.emulator.run(Number(runId))!.resumes).toHaveLength(0)
    })
  })
})
