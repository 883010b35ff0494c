import { Deadlines } from '../../../src/deadlines.js'
import { VirtualClock } from '../../support/virtual-clock.js'

/**
 * The step's deadlines on the virtual clock, to the millisecond on either side: GitHub's calls end
 * 3 s past timeout-minutes, or 5 s after the job is cancelled, whichever comes first (the service's
 * last calls 3 s past it, or 4 s after); nothing fires once the step is done.
 */

const MINUTE = 60_000

/** The virtual time at which `signal` aborts, once it has. */
function abortedAt(clock: VirtualClock, signal: AbortSignal): () => number | undefined {
  let at: number | undefined
  signal.addEventListener('abort', () => (at = clock.now()), { once: true })
  return () => at
}

/** The virtual time at which `promise` settles, once it has. */
function settledAt(clock: VirtualClock, promise: Promise<unknown>): () => number | undefined {
  let at: number | undefined
  const settle = (): void => void (at = clock.now())
  void promise.then(settle, settle)
  return () => at
}

test('the step ends at timeout-minutes from its start; GitHub is stopped 3 s past it, saying why', async () => {
  const clock = new VirtualClock()
  const start = clock.now()
  const deadlines = new Deadlines(clock, new AbortController().signal, 10 * MINUTE)
  expect(deadlines.step).toBe(start + 10 * MINUTE)
  expect(deadlines.githubStopAt).toBe(start + 10 * MINUTE + 3_000)
  const stopped = abortedAt(clock, deadlines.githubSignal)

  await clock.run(async () => {
    await clock.advance(10 * MINUTE + 2_999)
    expect(deadlines.githubSignal.aborted).toBe(false)
    await clock.advance(1)
    expect(deadlines.githubSignal.aborted).toBe(true)
  })
  expect(stopped()).toBe(deadlines.githubStopAt)
  expect((deadlines.githubSignal.reason as Error).message).toBe('timeout-minutes was reached')
  deadlines.dispose()
})

test('a cancelled job: GitHub is stopped 5 s after the cancellation, long before the deadline', async () => {
  const clock = new VirtualClock()
  const cancellation = new AbortController()
  const deadlines = new Deadlines(clock, cancellation.signal, 10 * MINUTE)
  const afterCancelled = deadlines.afterCancelled()
  const cancelledEnds = settledAt(clock, afterCancelled)
  const stopped = abortedAt(clock, deadlines.githubSignal)
  let cancelledAt = 0

  await clock.run(async () => {
    await clock.advance(MINUTE)
    expect(cancelledEnds()).toBeUndefined()
    cancellation.abort()
    cancelledAt = clock.now()
    await clock.advance(4_999)
    expect(cancelledEnds()).toBeUndefined()
    expect(deadlines.githubSignal.aborted).toBe(false)
    await clock.advance(1)
    expect(deadlines.githubSignal.aborted).toBe(true)
  })
  expect(cancelledEnds()).toBe(cancelledAt + 5_000)
  expect(stopped()).toBe(cancelledAt + 5_000)
  expect((deadlines.githubSignal.reason as Error).message).toBe('the job was cancelled')
  // Asked again, the same wait.
  expect(deadlines.afterCancelled()).toBe(afterCancelled)
  deadlines.dispose()
})

test('a job already cancelled when the step starts: 5 s counted from then', async () => {
  const clock = new VirtualClock()
  const start = clock.now()
  const cancellation = new AbortController()
  cancellation.abort()
  const deadlines = new Deadlines(clock, cancellation.signal, 10 * MINUTE)
  const cancelledEnds = settledAt(clock, deadlines.afterCancelled())
  await clock.run(async () => {
    await clock.advance(4_999)
    expect(cancelledEnds()).toBeUndefined()
    await clock.advance(1)
    expect(cancelledEnds()).toBe(start + 5_000)
  })
  expect((deadlines.githubSignal.reason as Error).message).toBe('the job was cancelled')
  deadlines.dispose()
})

test('disposed: neither the deadline nor a later cancellation fires', async () => {
  const clock = new VirtualClock()
  const cancellation = new AbortController()
  const deadlines = new Deadlines(clock, cancellation.signal, MINUTE)
  const cancelledEnds = settledAt(clock, deadlines.afterCancelled())
  deadlines.dispose()
  cancellation.abort()
  await clock.run(async () => {
    await clock.advance(10 * MINUTE)
  })
  expect(cancelledEnds()).toBeUndefined()
  expect(deadlines.githubSignal.aborted).toBe(false)
  // Its waits were taken off the clock: a work waiting on them alone waits for good.
  await expect(clock.run(() => deadlines.afterCancelled())).rejects.toThrow('The work waits for good')
})

test("the service's last calls end 3 s past the deadline, or 4 s after a cancellation, whichever comes first", async () => {
  const clock = new VirtualClock()
  const start = clock.now()
  const cancellation = new AbortController()
  const deadlines = new Deadlines(clock, cancellation.signal, MINUTE)
  expect(deadlines.lastCallsBy()).toBe(start + MINUTE + 3_000)
  await clock.run(async () => {
    await clock.advance(MINUTE - 2_000)
    cancellation.abort()
    // Cancelled 2 s before the deadline: 4 s from then comes before 3 s past the deadline.
    expect(deadlines.lastCallsBy()).toBe(start + MINUTE + 2_000)
  })
  deadlines.dispose()
  const early = new AbortController()
  const another = new Deadlines(clock, early.signal, MINUTE)
  const cancelledAt = clock.now()
  early.abort()
  expect(another.lastCallsBy()).toBe(cancelledAt + 4_000)
  another.dispose()
})
