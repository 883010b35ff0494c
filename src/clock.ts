/** The job was cancelled (SIGINT or SIGTERM): every wait on the clock ends with it. */
export class CancelledError extends Error {
  constructor() {
    super('the job was cancelled')
    this.name = 'CancelledError'
  }
}

/** Time as the action sees it; tests hand in a fake to step through hours in milliseconds. */
export interface Clock {
  now(): number
  /** Resolves after `ms`; rejects with CancelledError as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  /**
   * The same wait, for a deadline kept beside the work rather than by it: a fake clock does not move
   * forward for it, but fires it once the work's own sleeps have taken the time past it.
   */
  alarm(ms: number, signal?: AbortSignal): Promise<void>
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
  sleep: wait,
  alarm: wait
}
