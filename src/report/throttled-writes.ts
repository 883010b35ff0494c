import { CancelledError } from '../api/errors.js'
import type { Clock } from '../clock.js'

/**
 * The writes of one thing on GitHub that shows the latest state (the tracking comment, the check
 * run): one at a time, in order, and at most one every `minIntervalMs`, counted from the end of the
 * previous write. Marking it out of date many times while a write waits costs one write.
 */
export class ThrottledWrites {
  private lastWrite = Number.NEGATIVE_INFINITY
  private writing: Promise<void> = Promise.resolve()
  private pendingWait?: AbortController
  private dirty = false

  constructor(
    /** Writes the current state; its failures go to `failed`. */
    private readonly write: () => Promise<void>,
    private readonly clock: Clock,
    private readonly minIntervalMs: number,
    private readonly failed: (error: Error) => void
  ) {}

  /** Marks the state out of date: one write is queued, `now` or once the interval has passed. */
  touch(now = false): void {
    this.dirty = true
    if (this.pendingWait) return
    const wait = new AbortController()
    this.pendingWait = wait
    void this.enqueue(async () => {
      const delay = now ? 0 : Math.max(0, this.lastWrite + this.minIntervalMs - this.clock.now())
      try {
        await this.clock.sleep(delay, wait.signal)
      } catch (error) {
        if (error instanceof CancelledError) return
        throw error
      } finally {
        this.pendingWait = undefined
      }
      if (this.dirty) await this.writeNow()
    })
  }

  /** Writes now, behind the write in flight (a waiting one is dropped: this one carries its state). */
  async flush(): Promise<void> {
    this.pendingWait?.abort()
    await this.writing
    await this.enqueue(() => this.writeNow())
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    this.writing = this.writing.then(task).catch((error: Error) => this.failed(error))
    return this.writing
  }

  private async writeNow(): Promise<void> {
    this.dirty = false
    try {
      await this.write()
    } finally {
      // Counted from the end of the write: the client may itself have held the request for a while.
      this.lastWrite = this.clock.now()
    }
  }
}
