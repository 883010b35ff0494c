import { CancelledError } from '../../src/api/errors.js'
import type { Clock } from '../../src/runner/clock.js'

/** A clock whose sleeps return at once and move time forward: hours of polling in milliseconds. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = []
  constructor(public time = 1_700_000_000_000) {}
  now(): number {
    return this.time
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new CancelledError()
    this.sleeps.push(ms)
    this.time += Math.max(0, ms)
  }
}
