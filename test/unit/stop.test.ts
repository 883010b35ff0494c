import { UnsupportedEndpointError, ServiceError, DeadlineError } from '../../src/api/errors.js'
import { LogReader } from '../../src/agent-run/log-reader.js'
import { shouldStopRun, stopOutcome, stopWarning } from '../../src/agent-run/stop.js'
import { watchedFields } from '../../src/agent-run/follow.js'
import type { WatchPlan } from '../../src/agent-run/watch-step.js'
import { RunWatcher } from '../../src/agent-run/watcher.js'
import type { StopTrigger } from '../../src/settings/settings.js'
import { FakeApi } from '../support/fake-api.js'
import { FakeClock } from '../support/fake-clock.js'

/** stop-run-on (issue #29, item 1): when the step stops following its run, whether it stops the run too, and what it says. */

const on = (...triggers: StopTrigger[]): ReadonlySet<StopTrigger> => new Set(triggers)

describe('shouldStopRun', () => {
  const ask = { stopRunOn: on('cancel'), status: 'RUNNING', wait: true }

  test('a cancelled job stops its working run by default (cancel)', () => {
    expect(shouldStopRun({ ...ask, ending: 'cancelled' })).toBe(true)
  })

  test('a timeout stops it only when stop-run-on includes timeout', () => {
    expect(shouldStopRun({ ...ask, ending: 'timeout' })).toBe(false)
    expect(shouldStopRun({ ...ask, ending: 'timeout', stopRunOn: on('cancel', 'timeout') })).toBe(true)
    expect(shouldStopRun({ ...ask, ending: 'timeout', stopRunOn: on('timeout') })).toBe(true)
    expect(shouldStopRun({ ...ask, ending: 'cancelled', stopRunOn: on('timeout') })).toBe(false)
  })

  test('stop-run-on: none sends nothing', () => {
    for (const ending of ['cancelled', 'timeout'] as const)
      expect(shouldStopRun({ ...ask, ending, stopRunOn: on() })).toBe(false)
  })

  test('never for a run that ended, by its own end, or with wait: false', () => {
    for (const status of ['COMPLETE', 'FAILED', 'STOPPED', 'CANCELLED', 'PAUSED', 'complete'])
      expect(shouldStopRun({ ...ask, ending: 'cancelled', status })).toBe(false)
    expect(shouldStopRun({ ...ask, ending: 'ended' })).toBe(false)
    expect(shouldStopRun({ ...ask, ending: 'cancelled', wait: false })).toBe(false)
  })

  test('a run still working, whatever its word for it (none yet, PENDING, an unknown one), is stopped', () => {
    for (const status of [null, 'PENDING', 'ACTIVE', 'EVALUATION', 'WARMING_UP'])
      expect(shouldStopRun({ ...ask, ending: 'cancelled', status })).toBe(true)
  })
})

describe('stopOutcome and its warning', () => {
  test('stopped when the service took it and the run then reads ended', () => {
    expect(stopOutcome({}, 'STOPPED')).toEqual({ stopped: true, status: 'STOPPED' })
    expect(stopOutcome({}, 'CANCELLED')).toEqual({ stopped: true, status: 'CANCELLED' })
  })

  test('not stopped: no endpoint, a refusal, no answer in time, or a run still working after', () => {
    expect(stopOutcome({ error: new UnsupportedEndpointError('stop agent run 7', 404) }, 'RUNNING')).toEqual({
      stopped: false,
      status: 'RUNNING',
      why: 'the service has no endpoint to stop a run (HTTP 404)'
    })
    expect(stopOutcome({ error: new ServiceError('Forbidden (403)', 403) }, null).why).toBe(
      'the service refused: Forbidden (403)'
    )
    expect(stopOutcome({ error: new DeadlineError() }, null).why).toBe('the service did not answer in time')
    expect(stopOutcome({}, 'RUNNING').why).toBe('the service took the request but still shows it RUNNING')
    expect(stopOutcome({}, undefined).stopped).toBe(false)
  })

  test('the warning names the run, why, and where it goes on', () => {
    const stop = stopOutcome({ error: new UnsupportedEndpointError('stop agent run 7', 405) }, 'RUNNING')
    expect(stopWarning(7, 'https://app.codegen.com/agent/trace/7', stop)).toBe(
      'Agent run 7 could not be stopped (the service has no endpoint to stop a run (HTTP 405)); it goes on at Codegen: https://app.codegen.com/agent/trace/7'
    )
  })
})

describe('a watch cut short', () => {
  function setUp(stop: WatchPlan['stop'], deadlineMs = 60 * 60_000) {
    const clock = new FakeClock()
    const api = new FakeApi(clock, [{ at: 0, status: 'RUNNING', entries: 1 }])
    const warnings: string[] = []
    const events = {
      newEntries: () => undefined,
      statusChanged: () => undefined,
      heartbeat: () => undefined,
      warning: (message: string) => warnings.push(message),
      repairAsked: () => undefined
    }
    const logs = new LogReader(api, api.runId, message => warnings.push(message))
    const cancel = new AbortController()
    const plan: WatchPlan = {
      runId: api.runId,
      deadline: clock.now() + deadlineMs,
      pollIntervalMs: 5_000,
      earlierEntries: 0,
      initialStatus: 'RUNNING',
      guard: { restarted: true },
      ...(stop ? { stop } : {})
    }
    const watch = () => new RunWatcher(clock, cancel.signal).watch(plan, { api, logs }, events)
    return { api, warnings, cancel, watch }
  }

  test('cancelled: the stop is sent, then the run read once; the result says it was stopped', async () => {
    const { api, warnings, cancel, watch } = setUp({ on: on('cancel'), wait: true })
    api.stopWith = 'STOPPED'
    cancel.abort()
    const result = await watch()
    expect(api.calls).toEqual(['stop', 'get'])
    expect(result).toMatchObject({ ending: 'cancelled', status: 'STOPPED', stop: { stopped: true } })
    expect(warnings).toEqual([])
  })

  test('a service without the endpoint: one warning, the run as read after', async () => {
    const { api, warnings, cancel, watch } = setUp({ on: on('cancel'), wait: true, webUrl: 'https://x/7' })
    api.stopWith = new UnsupportedEndpointError('stop agent run 7', 404)
    cancel.abort()
    const result = await watch()
    expect(api.calls).toEqual(['stop', 'get'])
    expect(result).toMatchObject({ ending: 'cancelled', status: 'RUNNING', stop: { stopped: false } })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('Agent run 7 could not be stopped')
  })

  test('a timeout stops only with stop-run-on: timeout; the outcome stays timeout', async () => {
    const plain = setUp({ on: on('cancel'), wait: true }, 20_000)
    plain.api.stopWith = 'STOPPED'
    expect(await plain.watch()).toMatchObject({ ending: 'timeout', status: 'RUNNING' })
    expect(plain.api.calls).not.toContain('stop')

    const asked = setUp({ on: on('cancel', 'timeout'), wait: true }, 20_000)
    asked.api.stopWith = 'STOPPED'
    const result = await asked.watch()
    expect(asked.api.calls.slice(-2)).toEqual(['stop', 'get'])
    expect(result).toMatchObject({ ending: 'timeout', status: 'STOPPED' })
    const run = { id: 7, organization_id: 1, status: 'RUNNING' }
    expect(watchedFields(run, result)).toMatchObject({
      outcome: 'timeout',
      status: 'STOPPED',
      stop: { stopped: true }
    })
  })

  test('without stop-run-on in the plan nothing is sent', async () => {
    const { api, cancel, watch } = setUp(undefined)
    cancel.abort()
    await watch()
    expect(api.calls).toEqual(['get'])
  })
})
