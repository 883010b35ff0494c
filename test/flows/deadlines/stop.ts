import { watchedFields } from '../../../src/agent-run/follow.js'
import { LogReader } from '../../../src/agent-run/log-reader.js'
import type { WatchBrief } from '../../../src/agent-run/watch-state.js'
import { RunWatcher } from '../../../src/agent-run/watcher.js'
import type { StopTrigger } from '../../../src/settings/settings.js'
import type { ModeName } from '../../../emulator/index.js'
import { entries, ScriptedWorld } from '../../support/scripted-service.js'

describe('stop', () => {
  /**
   * stop-run-on (issue #29, item 1): a watch cut short by the job's cancellation or the step's
   * deadline stops its run when asked, on the emulator's stop path (and a service without one) over
   * loopback, on the virtual clock. Whether to stop and what that says, pure: test/unit/agent-run/stop.ts.
   */

  const world = new ScriptedWorld()

  const on = (...triggers: StopTrigger[]): ReadonlySet<StopTrigger> => new Set(triggers)

  /** A run working since now, watched with stop-run-on as `stop` says, until `deadlineMs` from now. */
  async function setUp(stop: WatchBrief['stop'], deadlineMs = 60 * 60_000, modes: ModeName[] = []) {
    const clock = world.clock
    const service = await world.service({ modes })
    const runId = service.seed({ steps: [{ at: 0, status: 'RUNNING' }, ...entries(0, 1)] })
    const warnings: string[] = []
    const events = {
      newEntries: () => undefined,
      statusChanged: () => undefined,
      heartbeat: () => undefined,
      warning: (message: string) => warnings.push(message),
      repairAsked: () => undefined
    }
    const logs = new LogReader(service.api, runId, message => warnings.push(message))
    const cancel = new AbortController()
    const start = clock.now()
    const brief: WatchBrief = {
      runId,
      deadline: start + deadlineMs,
      pollIntervalMs: 5_000,
      earlierEntries: 0,
      initialStatus: 'RUNNING',
      guard: { restarted: true },
      ...(stop ? { stop } : {})
    }
    const watch = () =>
      clock.run(() => new RunWatcher(clock, cancel.signal).watch(brief, { api: service.api, logs }, events))
    /** When the stop reached the service, from the watch's start. */
    const stopSentAfter = () =>
      service.emulator.requests.filter(request => request.route === 'stop').map(request => request.at - start)
    return { ...service, runId, warnings, cancel, watch, stopSentAfter }
  }

  describe('a watch cut short', () => {
    test('cancelled: the stop is sent, then the run read once; the result says it was stopped', async () => {
      const { calls, warnings, cancel, watch, stopSentAfter } = await setUp({ on: on('cancel'), wait: true })
      cancel.abort()
      const result = await watch()
      expect(calls()).toEqual(['stop', 'get'])
      expect(stopSentAfter()).toEqual([0])
      expect(result).toMatchObject({ ending: 'cancelled', status: 'STOPPED', stop: { stopped: true } })
      expect(warnings).toEqual([])
    })

    test('a service without the endpoint: one warning, the run as read after', async () => {
      const { calls, emulator, runId, warnings, cancel, watch } = await setUp(
        { on: on('cancel'), wait: true, webUrl: 'https://x/7' },
        60 * 60_000,
        ['no-stop']
      )
      cancel.abort()
      const result = await watch()
      expect(calls()).toEqual(['stop', 'get'])
      expect(emulator.requests.map(request => request.status)).toEqual([404, 200])
      expect(result).toMatchObject({ ending: 'cancelled', status: 'RUNNING', stop: { stopped: false } })
      expect(warnings).toEqual([
        `Agent run ${runId} could not be stopped (the service has no endpoint to stop a run (HTTP 404)); it goes on at Codegen: ${emulator.run(runId)?.web_url}`
      ])
    })

    test('a timeout stops only with stop-run-on: timeout, at the deadline; the outcome stays timeout', async () => {
      const plain = await setUp({ on: on('cancel'), wait: true }, 20_000)
      expect(await plain.watch()).toMatchObject({ ending: 'timeout', status: 'RUNNING' })
      expect(plain.calls()).not.toContain('stop')

      const asked = await setUp({ on: on('cancel', 'timeout'), wait: true }, 20_000)
      const result = await asked.watch()
      expect(asked.calls().slice(-2)).toEqual(['stop', 'get'])
      expect(asked.stopSentAfter()).toEqual([20_000])
      expect(result).toMatchObject({ ending: 'timeout', status: 'STOPPED' })
      const run = { id: asked.runId, organization_id: 1, status: 'RUNNING' }
      expect(watchedFields(run, result)).toMatchObject({
        outcome: 'timeout',
        status: 'STOPPED',
        stop: { stopped: true }
      })
    })

    test('without stop-run-on in the brief nothing is sent', async () => {
      const { calls, cancel, watch } = await setUp(undefined)
      cancel.abort()
      await watch()
      expect(calls()).toEqual(['get'])
    })
  })
})
