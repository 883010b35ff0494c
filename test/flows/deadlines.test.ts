import { Deadlines } from '../../src/deadlines.js'
import { FakeClock } from '../support/fake-clock.js'

/**
 * The step's deadlines on the fake clock: GitHub's calls end 3 s past timeout-minutes, or 4 s after
 * the job is cancelled, whichever comes first; nothing fires once the step is done.
 */

const MINUTE = 60_000

/** Whether `promise` has settled, after the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  void promise.then(
    () => (done = true),
    () => (done = true)
  )
  await new Promise(resolve => setImmediate(resolve))
  return done
}

test('the step ends at timeout-minutes from its start; GitHub is stopped 3 s past it, saying why', async () => {
  const clock = new FakeClock()
  const start = clock.now()
  const deadlines = new Deadlines(clock, new AbortController().signal, 10 * MINUTE)
  expect(deadlines.step).toBe(start + 10 * MINUTE)
  expect(deadlines.githubStopAt).toBe(start + 10 * MINUTE + 3_000)

  await clock.sleep(10 * MINUTE + 2_999)
  await settled(Promise.resolve())
  expect(deadlines.githubSignal.aborted).toBe(false)
  await clock.sleep(1)
  await settled(Promise.resolve())
  expect(deadlines.githubSignal.aborted).toBe(true)
  expect((deadlines.githubSignal.reason as Error).message).toBe('timeout-minutes was reached')
  deadlines.dispose()
})

test('a cancelled job: GitHub is stopped 4 s after the cancellation, long before the deadline', async () => {
  const clock = new FakeClock()
  const cancellation = new AbortController()
  const deadlines = new Deadlines(clock, cancellation.signal, 10 * MINUTE)
  const afterCancelled = deadlines.afterCancelled()
  await clock.sleep(MINUTE)
  expect(await settled(afterCancelled)).toBe(false)

  cancellation.abort()
  await settled(Promise.resolve())
  await clock.sleep(3_999)
  expect(await settled(afterCancelled)).toBe(false)
  expect(deadlines.githubSignal.aborted).toBe(false)
  await clock.sleep(1)
  expect(await settled(afterCancelled)).toBe(true)
  expect(deadlines.githubSignal.aborted).toBe(true)
  expect((deadlines.githubSignal.reason as Error).message).toBe('the job was cancelled')
  // Asked again, the same wait.
  expect(deadlines.afterCancelled()).toBe(afterCancelled)
  deadlines.dispose()
})

test('a job already cancelled when the step starts: 4 s counted from then', async () => {
  const clock = new FakeClock()
  const cancellation = new AbortController()
  cancellation.abort()
  const deadlines = new Deadlines(clock, cancellation.signal, 10 * MINUTE)
  await settled(Promise.resolve())
  await clock.sleep(3_999)
  expect(await settled(deadlines.afterCancelled())).toBe(false)
  await clock.sleep(1)
  expect(await settled(deadlines.afterCancelled())).toBe(true)
  expect((deadlines.githubSignal.reason as Error).message).toBe('the job was cancelled')
  deadlines.dispose()
})

test('disposed: neither the deadline nor a later cancellation fires', async () => {
  const clock = new FakeClock()
  const cancellation = new AbortController()
  const deadlines = new Deadlines(clock, cancellation.signal, MINUTE)
  const afterCancelled = deadlines.afterCancelled()
  deadlines.dispose()
  cancellation.abort()
  await clock.sleep(10 * MINUTE)
  expect(await settled(afterCancelled)).toBe(false)
  expect(deadlines.githubSignal.aborted).toBe(false)
})
