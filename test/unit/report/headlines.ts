import { SEVERITY, type RunReport } from '../../../src/model.js'
import { endingHeadline, type Surface } from '../../../src/report/headlines.js'

/** The headline of a run's ending on the summary, the tracking comment and the check run (src/report/headlines.ts). */

type Headed = Pick<RunReport, 'outcome' | 'stop' | 'run' | 'runs' | 'httpStatus' | 'limit'>
const run = { id: 12, organization_id: 1 }
const SURFACES: Surface[] = ['summary', 'comment', 'check']

test('every outcome has words on every surface; the summary’s name the agent run', () => {
  for (const outcome of SEVERITY) {
    const words = SURFACES.map(surface => endingHeadline(surface, { outcome, run }))
    expect(words.every(Boolean)).toBe(true)
    expect(words[0]).toMatch(/agent run|Agent run/)
  }
})

test('the summary names the agent run; the comment and the check follow "Codegen agent run #N"', () => {
  expect(endingHeadline('summary', { outcome: 'success', run })).toBe('✅ Agent run succeeded')
  expect(endingHeadline('comment', { outcome: 'success', run })).toBe('✅ **succeeded**')
  expect(endingHeadline('check', { outcome: 'success', run })).toBe('✅ succeeded')
})

test('a run never started: not "left running", nor followed', () => {
  const headed: Headed = { outcome: 'cancelled' }
  expect(endingHeadline('summary', headed)).toBe('🛑 Job cancelled before an agent run started')
  expect(endingHeadline('comment', headed)).toBe('🛑 was not started: the workflow job was cancelled')
  expect(endingHeadline('check', headed)).toBe('🛑 was not started: the workflow job was cancelled')
  expect(endingHeadline('check', { outcome: 'cancelled', runs: [] })).toBe(
    '🛑 was left running: the workflow job was cancelled'
  )
})

test('a run the step stopped: the comment and the check say so; the summary has its own line for it', () => {
  const headed: Headed = { outcome: 'timeout', run, stop: { stopped: true, status: 'STOPPED' } }
  expect(endingHeadline('comment', headed)).toBe('⏱️ was stopped when the workflow stopped waiting')
  expect(endingHeadline('check', headed)).toBe('⏱️ was stopped when the workflow stopped waiting')
  expect(endingHeadline('summary', headed)).toBe('⏱️ Agent run still working when the wait timed out')
  const notStopped: Headed = { ...headed, stop: { stopped: false, status: '', why: 'refused' } }
  expect(endingHeadline('comment', notStopped)).toBe('⏱️ was still working when the workflow stopped waiting')
})

test('a CI fix at max-fix-attempts is no daily limit', () => {
  expect(endingHeadline('comment', { outcome: 'limited', limit: 'daily-run-limit' })).toBe(
    '🚦 was **not started**: a daily run limit is reached'
  )
  expect(endingHeadline('comment', { outcome: 'limited', limit: 'max-fix-attempts' })).toBe(
    '🚦 was not started: max-fix-attempts is reached'
  )
  expect(endingHeadline('summary', { outcome: 'limited', limit: 'max-fix-attempts' })).toBe(
    '🚦 No agent run started: max-fix-attempts reached'
  )
})

test('an error says what the service answered', () => {
  expect(endingHeadline('check', { outcome: 'error', run, httpStatus: 503 })).toBe(
    '⚠️ could not be followed (the service answered 503)'
  )
  expect(endingHeadline('summary', { outcome: 'error', httpStatus: 402 })).toBe(
    '⚠️ Agent run could not be started (the service answered 402)'
  )
})
