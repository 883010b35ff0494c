import type { Clock } from './clock.js'

/** How long past timeout-minutes GitHub's calls (the tracking comment's last edit) may take. */
const GITHUB_PAST_DEADLINE_MS = 3_000
/**
 * How long a cancelled job waits for GitHub's calls: the runner escalates 7.5 s after SIGINT. The
 * check concludes at once; the service's last calls (a look-up of a create cut off, the stop, the
 * last read) take 4 s at most, and the last edits of the comment and the check get what is left.
 */
const GITHUB_AFTER_CANCEL_MS = 5_000
/** When the service's last calls end: 4 s after the cancellation, 3 s past timeout-minutes. */
export const SERVICE_AFTER_CANCEL_MS = 4_000
const SERVICE_PAST_DEADLINE_MS = 3_000
/**
 * Of the service's last calls, what the stop and the last read of a run found late keep: a create
 * or a resume cut off is looked for until then (3 s after a cancellation, 2 s past the deadline).
 */
export const STOP_AND_READ_KEPT_MS = 1_000

/**
 * The step's deadlines, in one place: timeout-minutes counted from the step's start (the run is
 * followed until then; GitHub's calls before the run come out of it), and when GitHub's calls must
 * end, whatever they wait for (an answer, a retry, a rate limit): 3 s past that deadline, or 5 s
 * after the job is cancelled.
 */
export class Deadlines {
  /** Epoch ms at which the step stops waiting for the run. */
  readonly step: number
  /** The latest moment GitHub's calls are stopped. */
  readonly githubStopAt: number
  private readonly stop = new AbortController()
  private readonly done = new AbortController()
  private cancelledAt?: Promise<void>
  /** Epoch ms of the cancellation, once it came. */
  private cancelledAtMs?: number
  private startBy?: AbortSignal

  constructor(
    private readonly clock: Clock,
    /** Aborted when the job is cancelled. */
    private readonly cancellation: AbortSignal,
    timeoutMs: number
  ) {
    this.step = clock.now() + timeoutMs
    this.githubStopAt = this.step + GITHUB_PAST_DEADLINE_MS
    this.after(this.githubStopAt - clock.now()).then(() =>
      this.stop.abort(new Error('timeout-minutes was reached'))
    )
    void this.afterCancelled().then(() => this.stop.abort(new Error('the job was cancelled')))
  }

  /**
   * Why the step may start nothing new (no check run, no tracking comment, no run): the job was
   * cancelled, or timeout-minutes was reached; undefined while neither.
   */
  stopped(): 'cancelled' | 'timeout' | undefined {
    if (this.cancellation.aborted) return 'cancelled'
    return this.clock.now() >= this.step ? 'timeout' : undefined
  }

  /**
   * When the service's last calls (a look-up of a create or resume cut off, the stop, the last read)
   * must end: 4 s after the cancellation, or 3 s past the deadline, whichever comes first.
   */
  lastCallsBy(): number {
    const afterCancel =
      this.cancelledAtMs === undefined ? Infinity : this.cancelledAtMs + SERVICE_AFTER_CANCEL_MS
    return Math.min(afterCancel, this.step + SERVICE_PAST_DEADLINE_MS)
  }

  /**
   * Aborts when nothing new may start (stopped): the job cancelled, or timeout-minutes reached.
   * What is done before the run (the thread's images downloaded) ends with it.
   */
  get startSignal(): AbortSignal {
    if (!this.startBy) {
      const timeout = new AbortController()
      void this.after(this.step - this.clock.now()).then(() =>
        timeout.abort(new Error('timeout-minutes was reached'))
      )
      this.startBy = AbortSignal.any([this.cancellation, timeout.signal])
    }
    return this.startBy
  }

  /** Aborts when GitHub's calls must end. */
  get githubSignal(): AbortSignal {
    return this.stop.signal
  }

  /** Resolves when GitHub's calls must end after a cancellation (at once counted from now if it already is); else never. */
  afterCancelled(): Promise<void> {
    this.cancelledAt ??= new Promise(resolve => {
      const wait = (): void => {
        this.cancelledAtMs = this.clock.now()
        void this.after(GITHUB_AFTER_CANCEL_MS).then(resolve)
      }
      if (this.cancellation.aborted) wait()
      else {
        this.cancellation.addEventListener('abort', wait, { once: true })
        this.done.signal.addEventListener('abort', () => this.cancellation.removeEventListener('abort', wait))
      }
    })
    return this.cancelledAt
  }

  /** Clears the timers, once the step is done. */
  dispose(): void {
    this.done.abort()
  }

  /** Resolves after `ms` unless disposed first (then never). */
  private after(ms: number): Promise<void> {
    return new Promise(resolve => void this.clock.sleep(ms, this.done.signal).then(resolve, () => undefined))
  }
}
