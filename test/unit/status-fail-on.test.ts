import { failureReason } from '../../src/agent-run/fail-on.js'
import { classifyStatus, isKnownStatus } from '../../src/agent-run/status.js'

describe('classifyStatus', () => {
  test.each([
    ['COMPLETE', 'success'],
    ['completed', 'success'],
    ['Complete', 'success'],
    ['ERROR', 'failure'],
    ['failed', 'failure'],
    ['CANCELLED', 'failure'],
    ['STOPPED', 'failure'],
    ['TIMEOUT', 'failure'],
    ['MAX_ITERATIONS_REACHED', 'failure'],
    ['out_of_tokens', 'failure'],
    ['PAUSED', 'paused'],
    ['ACTIVE', 'working'],
    ['EVALUATION', 'working'],
    ['SOMETHING_NEW', 'working'],
    [null, 'working'],
    [undefined, 'working'],
    ['', 'working']
  ])('%s is %s', (status, expected) => {
    expect(classifyStatus(status)).toBe(expected)
  })

  test('knows which statuses are new to it', () => {
    expect(isKnownStatus('pending')).toBe(true)
    expect(isKnownStatus(null)).toBe(true)
    expect(isKnownStatus('WARMING_UP')).toBe(false)
  })
})

describe('failureReason', () => {
  const defaults = new Set(['failure', 'timeout'] as const)
  test('fails on the outcomes fail-on names, and always on cancellation', () => {
    expect(failureReason('failure', defaults, 0)).toBe('The agent run failed.')
    expect(failureReason('timeout', defaults, 0)).toMatch(/timeout-minutes/)
    expect(failureReason('paused', defaults, 0)).toBeUndefined()
    expect(failureReason('paused', new Set(['paused'] as const), 0)).toMatch(/paused/)
    expect(failureReason('failure', new Set(), 0)).toBeUndefined()
    expect(failureReason('cancelled', new Set(), 0)).toMatch(/cancelled/)
    expect(failureReason('error', new Set(), 0)).toMatch(/could not be started or followed/)
    expect(failureReason('started', defaults, 0)).toBeUndefined()
    expect(failureReason('skipped', defaults, 0)).toBeUndefined()
  })

  test('no-pull-request fails a success without pull requests only', () => {
    const strict = new Set(['failure', 'no-pull-request'] as const)
    expect(failureReason('success', strict, 0)).toMatch(/without a pull request/)
    expect(failureReason('success', strict, 1)).toBeUndefined()
    expect(failureReason('success', defaults, 0)).toBeUndefined()
  })

  test('rejected and invalid-output fail by the default fail-on, and pass when it leaves them out', () => {
    const byDefault = new Set(['failure', 'timeout', 'rejected', 'invalid-output'] as const)
    expect(failureReason('rejected', byDefault, 0)).toBe("The agent's verdict is fail.")
    expect(failureReason('invalid-output', byDefault, 0)).toBe('The agent run ended without a valid answer.')
    expect(failureReason('rejected', defaults, 0)).toBeUndefined()
    expect(failureReason('invalid-output', defaults, 0)).toBeUndefined()
    expect(failureReason('rejected', new Set(), 0)).toBeUndefined()
  })
})
