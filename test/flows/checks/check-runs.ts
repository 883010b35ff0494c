import { createHook } from 'node:async_hooks'
import type { CheckRunWrite } from '../../../src/github/api.js'
import { OctokitGitHubApi } from '../../../src/github/octokit-api.js'
import { CheckRun } from '../../../src/report/check-run.js'
import { readTrigger } from '../../../src/thread/trigger.js'
import { FakeGitHub, type FakeGitHubOptions } from '../../../scripts/github-fake/index.js'
import { VirtualClock } from '../../support/virtual-clock.js'
import { labeledEvent } from '../../support/webhooks.js'

describe('check-runs', () => {
  /**
   * The action's check-run writes through its own Octokit client, against the fake GitHub (which holds
   * every body to GitHub's REST description), on the virtual clock: what is sent and when, and a
   * refusal or a failure as one warning.
   */

  let clock: VirtualClock
  let github: FakeGitHub
  let warnings: string[]

  async function start(options: FakeGitHubOptions = {}): Promise<void> {
    clock = new VirtualClock()
    github = new FakeGitHub({ clock, ...options })
    await github.start()
    github.addPullRequest({ number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' })
    warnings = []
  }

  afterEach(async () => {
    await github.stop()
  })

  function client(signal?: AbortSignal): OctokitGitHubApi {
    return new OctokitGitHubApi({
      token: 'github-token',
      repository: 'octo-org/octo-repo',
      apiUrl: github.baseUrl,
      warn: message => warnings.push(message),
      signal,
      clock,
      fetch: clock.network.github
    })
  }

  /** The check-run requests: method, virtual ms since `since`, GitHub's status. */
  const checkRequests = (since: number): Array<[string, number, number]> =>
    github.requests
      .filter(request => request.path.includes('/check-runs'))
      .map(request => [request.method, request.at - since, request.status])

  /** A create's external_id: its own random mark, whatever the write says (the run id comes with an update). */
  const OWN_EXTERNAL_ID = expect.stringMatching(/^codegen-[0-9a-f]{32}$/)

  const working: CheckRunWrite = {
    status: 'in_progress',
    title: 'Working',
    summary: 'Agent run **#41** is working',
    detailsUrl: 'https://app.codegen.com/agent/trace/41',
    externalId: '41'
  }

  test("created on the pull request's head as read from it, then concluded; every body as GitHub describes it", async () => {
    await start()
    const started = clock.now()
    await clock.run(async () => {
      const api = client()
      const { headSha } = await api.pullRequestBranches(7)
      expect(headSha).toBe(github.headSha(7))
      const id = await api.createCheckRun('Codegen', headSha!, working)
      expect(id).toBeGreaterThan(0)
      expect(
        await api.updateCheckRun(id!, {
          status: 'completed',
          conclusion: 'success',
          title: 'Succeeded',
          summary: 'Done'
        })
      ).toBe(true)
      expect(github.checkRuns()).toEqual([
        expect.objectContaining({
          id,
          name: 'Codegen',
          head_sha: headSha,
          status: 'completed',
          conclusion: 'success',
          details_url: 'https://app.codegen.com/agent/trace/41',
          // The create's own mark, which finds it again if GitHub loses its answer (issue #43).
          external_id: OWN_EXTERNAL_ID,
          output: { title: 'Succeeded', summary: 'Done', text: null },
          writes: 2
        })
      ])
      const bodies = github.requests
        .filter(request => request.path.includes('/check-runs'))
        .map(request => request.body)
      expect(bodies).toEqual([
        {
          name: 'Codegen',
          head_sha: headSha,
          status: 'in_progress',
          details_url: 'https://app.codegen.com/agent/trace/41',
          external_id: OWN_EXTERNAL_ID,
          output: { title: 'Working', summary: 'Agent run **#41** is working' }
        },
        { status: 'completed', conclusion: 'success', output: { title: 'Succeeded', summary: 'Done' } }
      ])
    })
    // The read is not spaced; the update comes GitHub's second after the create.
    expect(checkRequests(started)).toEqual([
      ['POST', 0, 201],
      ['PATCH', 1_000, 200]
    ])
    expect(github.invalidCheckRunRequests).toEqual([])
    expect(warnings).toEqual([])
  })

  test('a pull request event carries its head commit: nothing to read', () => {
    const event = labeledEvent({
      label: 'codegen',
      eventName: 'pull_request_target',
      pullRequest: { number: 3 }
    })
    const trigger = readTrigger(event.name, event.payload, { phrase: '/codegen', labelTrigger: 'codegen' })
    expect(trigger).toMatchObject({ pullRequest: { headSha: event.payload.pull_request.head.sha } })
    expect(event.payload.pull_request.head.sha).toMatch(/^[0-9a-f]{40}$/)
  })

  test('a token without checks: write: one warning naming the permission, then no more check writes', async () => {
    await start({ checks: 'read' })
    await clock.run(async () => {
      const api = client()
      expect(await api.createCheckRun('Codegen', github.headSha(7), working)).toBeUndefined()
      expect(await api.createCheckRun('Codegen', github.headSha(7), working)).toBeUndefined()
      expect(await api.updateCheckRun(1, { ...working, status: 'completed', conclusion: 'failure' })).toBe(
        false
      )
    })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^Could not create the check run Codegen: GitHub answered 403 \(Resource not accessible by integration/
    )
    expect(warnings[0]).toContain("add the line `checks: write` under the job's `permissions:`")
    expect(warnings[0]).toContain('The run goes on without a check.')
    expect(github.requests.filter(request => request.path.includes('/check-runs'))).toHaveLength(1)
  })

  test('other failures are warnings too, a few at most; a stalled GitHub ends with the stop signal', async () => {
    await start()
    const started = clock.now()
    await clock.run(async () => {
      const api = client()
      // An unknown commit is GitHub's 422: not retried.
      expect(await api.createCheckRun('Codegen', 'f'.repeat(40), working)).toBeUndefined()
      expect(warnings).toEqual([
        expect.stringMatching(/^Could not create the check run Codegen: No commit found for SHA: f{40}/)
      ])
      // GitHub's writes are a second apart: four failures (none retried), three warnings.
      for (let i = 0; i < 3; i++) expect(await api.updateCheckRun(999, working)).toBe(false)
      expect(warnings).toHaveLength(3)
      expect(warnings[1]).toMatch(/^Could not update the check run 999: Not Found/)
    })
    expect(checkRequests(started)).toEqual([
      ['POST', 0, 422],
      ['PATCH', 1_000, 404],
      ['PATCH', 2_000, 404],
      ['PATCH', 3_000, 404]
    ])

    const stop = new AbortController()
    const stalled = client(stop.signal)
    github.injectHang(1, /check-runs/)
    const stalledAt = clock.now()
    await clock.run(async () => {
      const write = stalled.createCheckRun('Codegen', github.headSha(7), working)
      void clock.sleep(200).then(() => stop.abort(new Error('the step is out of time')))
      expect(await write).toBeUndefined()
    })
    // Ended as the signal aborted, not at the attempt's 30 s time limit.
    expect(clock.now() - stalledAt).toBe(200)
    expect(warnings.at(-1)).toMatch(/GitHub did not answer in time \(the step is out of time\)/)
  })

  /** Counts the timers started from now on that are still alive, and keep the process alive. */
  function watchTimers(): { alive: () => number; stop: () => void } {
    const timers = new Map<number, { hasRef: () => boolean }>()
    const hook = createHook({
      init: (id, type, _trigger, resource) => {
        if (type === 'Timeout') timers.set(id, resource as { hasRef: () => boolean })
      },
      destroy: id => void timers.delete(id)
    })
    hook.enable()
    return {
      alive: () => [...timers.values()].filter(timer => timer.hasRef()).length,
      stop: () => hook.disable()
    }
  }

  test('a call stopped before GitHub answered leaves no retry behind (they outlived the test, 1, 4 and 9 s)', async () => {
    await start()
    const stop = new AbortController()
    const stopped = client(stop.signal)
    stop.abort(new Error('the step is out of time'))
    const timers = watchTimers()
    try {
      await clock.run(async () => {
        expect(await stopped.createCheckRun('Codegen', github.headSha(7), working)).toBeUndefined()
        // Past the second between writes and the retries' 1, 4 and 9 s: nothing more is sent or waited.
        await clock.advance(20_000)
      })
      // The test's own wait alone: the call was never sent (no attempt, no time limit), no spacing, no retry.
      expect(clock.sleeps).toEqual([20_000])
      expect(github.requests).toEqual([])
      // Nor any timer of the system's.
      expect(timers.alive()).toBe(0)
    } finally {
      timers.stop()
    }
  })

  describe('the check run of a step', () => {
    const run = {
      id: 1000,
      organization_id: 1,
      status: 'ACTIVE',
      web_url: 'https://app.codegen.com/agent/trace/1000'
    }
    const WORKFLOW_RUN = 'https://github.com/octo-org/octo-repo/actions/runs/4242'

    function checkRun(): CheckRun {
      return new CheckRun({
        github: client(),
        name: 'Codegen review',
        headSha: github.headSha(7),
        state: {
          entriesSeen: 0,
          resumed: false,
          workflowRunUrl: WORKFLOW_RUN,
          triggerPhrase: '/codegen',
          policy: { failOn: new Set(['failure', 'timeout']), triggerPhrase: '/codegen' }
        },
        clock,
        warn: message => warnings.push(message)
      })
    }
    const checkWrites = () =>
      github.requests
        .filter(request => request.path.includes('/check-runs'))
        .map(request => request.body as Record<string, unknown>)

    test('created in progress on the workflow run, pointed at the run once it exists, throttled, concluded', async () => {
      await start()
      const started = clock.now()
      await clock.run(async () => {
        const check = checkRun()
        check.open()
        const id = await check.whenCreated(new AbortController().signal)
        expect(id).toBe(github.checkRuns()[0]!.id)
        check.started(run)
        // The update that points at the run goes out at once (GitHub's second after the create).
        while (checkWrites().length < 2) await clock.advance(100)
        for (let i = 0; i < 20; i++) {
          check.newEntries([{ agent_run_id: 1000, message_type: 'ACTION', thought: `step ${i}` }])
          check.statusChanged('ACTIVE', 'ACTIVE')
        }
        check.heartbeat()
        await check.finish({
          outcome: 'success',
          mode: 'create',
          run: { ...run, status: 'COMPLETE', result: 'Fixed the parser.\nDetails follow.' },
          status: 'COMPLETE',
          startedAt: clock.now(),
          endedAt: clock.now() + 65_000,
          entriesSeen: 20
        })
      })
      const bodies = checkWrites()
      expect(bodies[0]).toMatchObject({
        name: 'Codegen review',
        status: 'in_progress',
        details_url: WORKFLOW_RUN
      })
      expect(bodies[0]).toMatchObject({ external_id: OWN_EXTERNAL_ID })
      expect(bodies[1]).toMatchObject({
        status: 'in_progress',
        details_url: run.web_url,
        external_id: '1000'
      })
      // Twenty entries and status changes: no write of their own (the next was 5 s away), the
      // conclusion carries them, GitHub's second after the update before it.
      expect(checkRequests(started)).toEqual([
        ['POST', 0, 201],
        ['PATCH', 1_000, 200],
        ['PATCH', 2_000, 200]
      ])
      expect(bodies.at(-1)).toMatchObject({
        status: 'completed',
        conclusion: 'success',
        output: { title: 'Succeeded: Fixed the parser.' }
      })
      expect(github.checkRuns()).toEqual([
        expect.objectContaining({
          status: 'completed',
          conclusion: 'success',
          external_id: '1000',
          details_url: run.web_url
        })
      ])
      expect(github.invalidCheckRunRequests).toEqual([])
      expect(warnings).toEqual([])
    })

    test('a check run GitHub refused is never updated, and the reporter ends quietly', async () => {
      await start({ checks: 'none' })
      await clock.run(async () => {
        const check = checkRun()
        check.open()
        expect(await check.whenCreated(new AbortController().signal)).toBeUndefined()
        check.started(run)
        await check.finish({
          outcome: 'failure',
          mode: 'create',
          run,
          status: 'ERROR',
          startedAt: 0,
          endedAt: 0,
          entriesSeen: 0
        })
      })
      expect(checkWrites()).toHaveLength(1)
      expect(warnings).toEqual([expect.stringContaining('`checks: write`')])
    })
  })
})
