import { classifyStatus, isKnownStatus } from '../../../src/agent-run/status.js'

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
