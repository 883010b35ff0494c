import { checkInThread } from '../../../src/answer/check.js'

/** The answer's check in the step's own thread (the worker that can be stopped: flows/checks/check-worker.ts). */

const running = { timeoutMs: 60_000, signal: new AbortController().signal }

test('in the thread: a schema that refers to itself is reported, not thrown', async () => {
  const answer = await checkInThread({ allOf: [{ $ref: '#' }] }, {}, running)
  expect(answer).toEqual({
    unchecked: expect.stringMatching(/^\(the check threw RangeError: Maximum call stack/)
  })
})
