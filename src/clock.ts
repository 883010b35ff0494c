/** The job was cancelled (SIGINT or SIGTERM): every wait on the clock ends with it. */
export class CancelledError extends Error {
  constructor(
    /** A request was on the wire when it came: the service may have done it, its answer lost. */
    readonly inFlight = false
  ) {
    super('the job was cancelled')
    this.name = 'CancelledError'
  }
}

/**
 * Time as the action sees it: every wait of the action is a sleep on it, deadlines and request time
 * limits included. main.ts hands in the system's; tests a virtual one that moves when nothing else
 * can happen (test/support/virtual-clock.ts), so hours of a run take milliseconds.
 */
export interface Clock {
  now(): number
  /** Resolves after `ms`; rejects with CancelledError as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError())
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(new CancelledError())
    }
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      },
      Math.max(0, ms)
    )
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: wait
}

/** A time limit on the clock: `signal` aborts with `reason` after `ms`, unless `clear` came first. */
export interface TimeLimit {
  readonly signal: AbortSignal
  /** Ends the wait once the work is done: no timer outlives it. */
  clear(): void
}

/** Why a time limit's wait ended early; abort() without a reason builds a DOMException each time. */
const CLEARED = new Error('the work ended within its time limit')

export function timeLimit(clock: Clock, ms: number, reason: Error): TimeLimit {
  const limit = new AbortController()
  const done = new AbortController()
  clock.sleep(ms, done.signal).then(
    () => limit.abort(reason),
    () => undefined
  )
  return { signal: limit.signal, clear: () => done.abort(CLEARED) }
}
