import { CancelledError } from '../../src/api/errors.js'
import type { Clock } from '../../src/clock.js'

interface Alarm {
  due: number
  resolve: () => void
}

/**
 * A clock whose sleeps return at once and move time forward: hours of polling in milliseconds.
 * Alarms (deadlines kept beside the work) do not move it: they fire when the sleeps pass their time.
 */
export class FakeClock implements Clock {
  readonly sleeps: number[] = []
  private alarms: Alarm[] = []
  constructor(public time = 1_700_000_000_000) {}
  now(): number {
    return this.time
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new CancelledError()
    this.sleeps.push(ms)
    this.time += Math.max(0, ms)
    const due = this.alarms.filter(alarm => alarm.due <= this.time)
    this.alarms = this.alarms.filter(alarm => alarm.due > this.time)
    due.forEach(alarm => alarm.resolve())
  }
  alarm(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError())
      const alarm: Alarm = { due: this.time + Math.max(0, ms), resolve }
      this.alarms.push(alarm)
      signal?.addEventListener(
        'abort',
        () => {
          this.alarms = this.alarms.filter(other => other !== alarm)
          reject(new CancelledError())
        },
        { once: true }
      )
    })
  }
}
