import { stepFailReason } from '../../src/agent-run/fail-on.js'

describe('stepFailReason', () => {
  const defaults = new Set(['failure', 'timeout'] as const)
  test('fails on the outcomes fail-on names, and always on cancellation', () => {
    expect(stepFailReason('failure', defaults, 0)).toBe('The agent run failed.')
    expect(stepFailReason('timeout', defaults, 0)).toMatch(/timeout-minutes/)
    expect(stepFailReason('paused', defaults, 0)).toBeUndefined()
    expect(stepFailReason('paused', new Set(['paused'] as const), 0)).toMatch(/paused/)
    expect(stepFailReason('failure', new Set(), 0)).toBeUndefined()
    expect(stepFailReason('cancelled', new Set(), 0)).toMatch(/cancelled/)
    expect(stepFailReason('error', new Set(), 0)).toMatch(/could not be started or followed/)
    expect(stepFailReason('started', defaults, 0)).toBeUndefined()
    expect(stepFailReason('skipped', defaults, 0)).toBeUndefined()
  })

  test('no-pull-request fails a success without pull requests only', () => {
    const strict = new Set(['failure', 'no-pull-request'] as const)
    expect(stepFailReason('success', strict, 0)).toMatch(/without a pull request/)
    expect(stepFailReason('success', strict, 1)).toBeUndefined()
    expect(stepFailReason('success', defaults, 0)).toBeUndefined()
  })

  test('rejected and invalid-output fail by the default fail-on, and pass when it leaves them out', () => {
    const byDefault = new Set(['failure', 'timeout', 'rejected', 'invalid-output'] as const)
    expect(stepFailReason('rejected', byDefault, 0)).toBe("The agent's verdict is fail.")
    expect(stepFailReason('invalid-output', byDefault, 0)).toBe('The agent run ended without a valid answer.')
    expect(stepFailReason('rejected', defaults, 0)).toBeUndefined()
    expect(stepFailReason('invalid-output', defaults, 0)).toBeUndefined()
    expect(stepFailReason('rejected', new Set(), 0)).toBeUndefined()
  })
})
