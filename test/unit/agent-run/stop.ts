import { UnsupportedEndpointError, ServiceError, DeadlineError } from '../../../src/api/errors.js'
import { shouldStopRun, stopOutcome, stopWarning } from '../../../src/agent-run/stop.js'
import type { StopTrigger } from '../../../src/settings/settings.js'

/**
 * stop-run-on (issue #29, item 1): when the step stops following its run, whether it stops the run
 * too, and what it says. A watch cut short, on the emulator: test/flows/deadlines/stop.ts.
 */

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
