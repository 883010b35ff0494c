import { scenario } from '../../../emulator/index.js'
import { FakeImageHost, routedToImageHost } from '../../../scripts/github-fake/image-host.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { classifyStatus } from '../../../src/agent-run/status.js'
import { OWN_COMMENT_MARK } from '../../../src/github-shapes.js'
import type { FlowResult } from '../../support/flow-step.js'
import { FlowWorld } from '../../support/flow-world.js'
import type { AnsweredRequest } from '../../support/virtual-clock.js'
import { issueCommentEvent } from '../../support/webhooks.js'

describe('cancel-any-moment', () => {
  /**
   * A job cancelled at any moment of a `/codegen` step on a pull request (issue #34): while each of its
   * requests is answered but not yet read (the service or GitHub did the work; the answer is lost), and
   * at each moment it waits on time alone. Whatever the moment: nothing new is started after the
   * cancellation (no check run, no tracking comment, no run), what was created is concluded (no check
   * left in progress), no run is left working, the step ends within the runner's grace, and a warning
   * says an update failed only when one did.
   */

  const world = new FlowWorld({ github: { permissions: { alice: 'write' } } })

  /** The step's requests when nothing cancels it (one case a request), and its quiet moments. */
  const REQUESTS = 22
  const QUIET_MOMENTS = 16
  /** A `/codegen` comment with a screenshot attached (issue 45). */
  const SCREENSHOT = '/codegen go, as in ![shot](https://github.com/user-attachments/assets/shot-1)'

  interface Cancelled {
    result: FlowResult
    /** Virtual epoch ms of the cancellation, if it came. */
    cancelledAt?: number
    /** The step's answered requests and quiet moments, counted. */
    requests: number
    quietMoments: number
  }

  /** alice's `/codegen go` (or `body`) on pull request 7, the job cancelled as `cancel` decides. */
  async function commentStep(
    cancel: {
      onAnswered?: (request: AnsweredRequest, cancelNow: () => void) => boolean
      atQuiet?: number
      /** Cancelled at the first quiet moment at which this holds. */
      when?: () => boolean
    },
    body = '/codegen go'
  ): Promise<Cancelled> {
    const { github, emulator, clock } = world
    github.addPullRequests(7)
    emulator.queueScript(scenario('success'))
    const stored = github.addComment(7, body, { login: 'alice', type: 'User' })
    const event = issueCommentEvent({ body, pullRequest: true, commentId: stored.id })
    let cancelledAt: number | undefined
    let quiet = 0
    let requests = 0
    let cancelWanted = false
    clock.onAnswered = request => {
      requests++
      if (cancelledAt !== undefined || !cancel.onAnswered) return undefined
      if (!cancel.onAnswered(request, () => (cancelWanted = true))) return undefined
      // Held: the cancellation comes while this answer is on its way back.
      return clock.advance(0)
    }
    const result = await world.step({
      inputs: {
        'api-token': 'emulator-token',
        'org-id': '1',
        'base-url': emulator.baseUrl,
        'github-token': 'github-token'
      },
      env: { GITHUB_API_URL: github.baseUrl },
      event,
      terminateSignal: 'SIGINT',
      terminateAfterMs: 0,
      terminateWhen: () => {
        const due = cancelWanted || quiet++ === cancel.atQuiet || !!cancel.when?.()
        if (due && cancelledAt === undefined) cancelledAt = clock.now()
        return due
      }
    })
    return { result, cancelledAt, requests, quietMoments: quiet }
  }

  /** What must hold whenever the job was cancelled. */
  function expectCleanEnd({ result, cancelledAt }: Cancelled): void {
    const { github, emulator } = world
    expect(result.exitCode).not.toBe(0)
    // Nothing new once cancelled.
    const created = github.requests.filter(
      request => request.method === 'POST' && /\/(check-runs|comments)$/.test(request.path)
    )
    for (const request of created) expect(request.at).toBeLessThanOrEqual(cancelledAt!)
    for (const request of emulator.requests.filter(request => request.route === 'create'))
      expect(request.at).toBeLessThanOrEqual(cancelledAt!)
    // What was created is concluded: no check left in progress, no run left working.
    for (const check of github.checkRuns()) expect(check.status).toBe('completed')
    for (const run of emulator.runs()) expect(classifyStatus(run.status)).not.toBe('working')
    // A run the service created is reported, whatever the moment.
    const run = emulator.runs()[0]
    expect(result.outputs['agent-run-id']).toBe(run ? String(run.id) : '')
    // Within the runner’s grace (it stops the job 7.5 s after SIGINT): 5 s at most.
    expect(result.endedAt - cancelledAt!).toBeLessThanOrEqual(5_000)
    // A warning of a failed write only when one failed.
    // Refused, or never answered (status 0).
    const failedWrites = github.requests.filter(
      request => request.method !== 'GET' && (request.status >= 400 || request.status === 0)
    )
    if (failedWrites.length === 0)
      expect(result.stdout).not.toMatch(/^::warning::Could not (update|write|create)/m)
  }

  /** The moments of a step, each a case: its requests' answers on their way back, its quiet moments. */
  function everyMoment(requests: number, quietMoments: number, body?: string): void {
    test.each(Array.from({ length: requests }, (_, i) => i + 1))(
      'cancelled while the answer to its request %i is on its way back',
      async n => {
        const cancelled = await commentStep(
          {
            onAnswered: (request, cancelNow) => {
              if (request.index !== n) return false
              cancelNow()
              return true
            }
          },
          body
        )
        if (cancelled.cancelledAt === undefined) return // the step made fewer requests
        expectCleanEnd(cancelled)
      }
    )

    test('the cases cover every moment of the step: each of its requests, each quiet moment', async () => {
      const { result, requests: made, quietMoments: quiet } = await commentStep({}, body)
      expect(result.outputs['outcome']).toBe('success')
      expect(made).toBeLessThanOrEqual(requests)
      expect(quiet).toBeLessThanOrEqual(quietMoments)
    })

    test.each(Array.from({ length: quietMoments }, (_, i) => i))(
      'cancelled at its quiet moment %i',
      async k => {
        const cancelled = await commentStep({ atQuiet: k }, body)
        if (cancelled.cancelledAt === undefined) return
        expectCleanEnd(cancelled)
      }
    )
  }

  describe('a comment with a screenshot: its text read with its HTML, the image downloaded before the run', () => {
    let host: FakeImageHost
    beforeEach(async () => {
      host = new FakeImageHost(world.clock)
      await host.start()
      world.clock.imagesFetch = routedToImageHost(host, world.clock.imagesFetch)
      world.github.texts.signWith(id => host.signedUrl('png', id))
    })
    afterEach(() => host.stop())

    test('the screenshot is read with its HTML and downloaded when nothing cancels the step', async () => {
      const { result } = await commentStep({}, SCREENSHOT)
      expect(result.outputs['outcome']).toBe('success')
      expect(host.requests).toHaveLength(1)
      expect(
        (world.emulator.requests.find(r => r.route === 'create')?.body as { images: string[] }).images
      ).toHaveLength(1)
    })

    everyMoment(REQUESTS + 2, QUIET_MOMENTS + 2, SCREENSHOT)
  })

  everyMoment(REQUESTS, QUIET_MOMENTS)

  test('a tracking comment edit that hangs holds neither the check’s conclusion nor the step', async () => {
    const { github } = world
    // Every edit of the tracking comment hangs once the comment exists.
    github.injectHang(100, /^\/repos\/octo-org\/octo-repo\/issues\/comments\/\d+$/, 'PATCH')
    const cancelled = await commentStep({ atQuiet: 8 })
    expect(cancelled.cancelledAt).toBeDefined()
    const [check] = github.checkRuns()
    expect(check).toMatchObject({ status: 'completed', conclusion: 'cancelled' })
    const conclusion = github.requests.find(
      request => request.method === 'PATCH' && request.path.includes('/check-runs/') && request.status === 200
    )
    expect(conclusion!.at).toBe(cancelled.cancelledAt)
    expectCleanEnd(cancelled)
  })

  test('a run the service creates 2.3 s after the cancellation: stopped at 2.5 s, named in the outputs and the tracking comment', async () => {
    const { emulator, github } = world
    emulator.injectFaults({ route: 'create', fault: { kind: 'late', delayMs: 2_300 } })
    const cancelled = await commentStep({ when: () => emulator.requests.some(r => r.route === 'create') })
    const at = (route: string) => emulator.requests.filter(r => r.route === route).map(r => r.at)
    expect(at('create')).toEqual([cancelled.cancelledAt])
    expect(at('stop')).toEqual([cancelled.cancelledAt! + 2_500])
    expectCleanEnd(cancelled)
    const [run] = emulator.runs()
    expect(cancelled.result.outputs).toMatchObject({ 'agent-run-id': String(run!.id), outcome: 'cancelled' })
    // The tracking comment, last edited as the stop is known, names the run and its stop.
    const [tracking] = github.comments(7).filter(comment => comment.body.startsWith(OWN_COMMENT_MARK))
    expect(readerText(tracking!.body)).toContain(
      `Codegen agent run #${run!.id} 🛑 was stopped: the workflow job was cancelled\n\nThe run was stopped: this step asked Codegen to stop it, and it now shows STOPPED.`
    )
    const edits = github.requests.filter(
      request => request.method === 'PATCH' && request.path.includes('/comments/')
    )
    expect(edits.at(-1)!.at).toBe(cancelled.cancelledAt! + 2_500)
    expect(cancelled.result.endedAt).toBe(cancelled.cancelledAt! + 2_500)
  })

  test.each([
    ['mid-run', { atQuiet: 8 }],
    [
      'as its create is answered',
      { onAnswered: (request: AnsweredRequest) => request.url.pathname.endsWith('/agent/run') }
    ]
  ])(
    'cancelled %s, a slow service after it (look-up, stop and last read at their limits): the check concludes at once',
    async (_, when) => {
      const { emulator, github } = world
      emulator.injectFaults(
        { route: 'list-runs', times: 5, fault: { kind: 'slow', delayMs: 900 } },
        { route: 'stop', times: 5, fault: { kind: 'slow', delayMs: 1_900 } },
        { route: 'get', times: 50, fault: { kind: 'slow', delayMs: 2_900 } }
      )
      const cancelled = await commentStep(
        'onAnswered' in when
          ? { onAnswered: (request, cancelNow) => (when.onAnswered(request) ? (cancelNow(), true) : false) }
          : when
      )
      expect(cancelled.cancelledAt).toBeDefined()
      // A check that exists is concluded within a second of the cancellation (its create's answer
      // first, when it was on its way), whatever the service takes to stop the run.
      for (const check of github.checkRuns()) {
        expect(check).toMatchObject({ status: 'completed', conclusion: 'cancelled' })
        const concluded = github.requests.find(
          request =>
            request.method === 'PATCH' &&
            request.path.endsWith(`/check-runs/${check.id}`) &&
            /"completed"/.test(JSON.stringify(request.body))
        )
        expect(concluded!.at - cancelled.cancelledAt!).toBeLessThanOrEqual(1_000)
      }
      expectCleanEnd(cancelled)
    }
  )
})
