import { CancelledError, systemClock, timeLimit } from '../../../src/clock.js'

/** The Clock every wait is a sleep on (src/clock.ts): a cancellation ends a sleep, a time limit aborts on it. */

test('a cancellation ends a sleep at once, and one already given never starts it', async () => {
  const cancel = new AbortController()
  const sleep = systemClock.sleep(60_000, cancel.signal)
  cancel.abort()
  await expect(sleep).rejects.toBeInstanceOf(CancelledError)
  await expect(systemClock.sleep(60_000, cancel.signal)).rejects.toThrow('the job was cancelled')
})

test('a sleep of the system clock resolves after its time, a negative one at once', async () => {
  await expect(systemClock.sleep(1)).resolves.toBeUndefined()
  await expect(systemClock.sleep(-5)).resolves.toBeUndefined()
})

test('CancelledError says whether a request was on the wire', () => {
  expect(new CancelledError().inFlight).toBe(false)
  expect(new CancelledError(true).inFlight).toBe(true)
})

test('a time limit aborts with its reason when its time passes on the clock', async () => {
  const reason = new Error('no answer within 1 ms')
  const limit = timeLimit(systemClock, 1, reason)
  expect(limit.signal.aborted).toBe(false)
  // Timers of the same clock end in the order of their ends.
  await systemClock.sleep(20)
  expect(limit.signal.aborted).toBe(true)
  expect(limit.signal.reason).toBe(reason)
})

test('a time limit cleared first never aborts, and leaves no timer behind', async () => {
  const limit = timeLimit(systemClock, 1, new Error('late'))
  limit.clear()
  await systemClock.sleep(20)
  expect(limit.signal.aborted).toBe(false)
})
