import { workerChecker } from '../../../src/answer/check-worker.js'

/**
 * The answer's check where the step can stop it (issue 26): a worker thread, stopped at its time or
 * at the job's cancellation. The bundle's own worker is tested end to end (answer-bounds.test.ts);
 * here a plain worker stands in for it.
 */

const check = workerChecker(new URL('../../support/check-worker-fixture.mjs', import.meta.url))
const running = { timeoutMs: 60_000, signal: new AbortController().signal }

test('what the worker answers is the check', async () => {
  expect(await check({ mode: 'answer' }, { a: [1] }, running)).toEqual({
    errors: [{ pointer: '', message: 'read {"a":[1]}' }]
  })
})

test('a check that never ends is stopped at its time', async () => {
  expect(await check({ mode: 'loop' }, {}, { ...running, timeoutMs: 300 })).toEqual({
    unchecked: 'within 0.3 s'
  })
})

test('a cancelled job stops the check, or never starts it', async () => {
  const cancellation = new AbortController()
  const checking = check({ mode: 'loop' }, {}, { ...running, signal: cancellation.signal })
  cancellation.abort()
  expect(await checking).toEqual({ unchecked: 'before the job was cancelled' })
  expect(await check({ mode: 'answer' }, {}, { ...running, signal: cancellation.signal })).toEqual({
    unchecked: 'before the job was cancelled'
  })
})

test('a worker that throws or ends without an answer: one line of why, no stack', async () => {
  expect(await check({ mode: 'throw' }, {}, running)).toEqual({
    unchecked:
      '(the check threw RangeError: Maximum call stack size exceeded; does the schema refer to itself without end?)'
  })
  expect(await check({ mode: 'exit' }, {}, running)).toEqual({
    unchecked: '(the check ended without an answer)'
  })
})
