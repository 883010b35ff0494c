import type { RateLimitConfig, RateLimitWindow } from './types.js'

/**
 * The limits the service documents: "60 requests per 30 seconds" for the standard endpoints,
 * "10 requests per minute" for agent creation, and "60 requests per 60 seconds per API token" for
 * the log endpoint, and "5 requests per minute" for setup commands.
 */
export const DOCUMENTED_RATE_LIMITS: RateLimitConfig = {
  general: { limit: 60, windowMs: 30_000 },
  create: { limit: 10, windowMs: 60_000 },
  logs: { limit: 60, windowMs: 60_000 },
  setup: { limit: 5, windowMs: 60_000 }
}

export type RateLimitName = keyof RateLimitConfig

export type Admission = { admitted: true } | { admitted: false; retryAfterMs: number }

/**
 * Sliding-window limits per key (the bearer token). A request is admitted only when every window it
 * counts in has room; a refused request is not counted, so a client that waits is let in again.
 */
export class SlidingWindowLimiter {
  /** key -> window name -> times of the admitted requests still inside the window. */
  private readonly admitted = new Map<string, Map<RateLimitName, number[]>>()

  constructor(private readonly config: RateLimitConfig) {}

  admit(key: string, windows: RateLimitName[], now: number): Admission {
    const perWindow = this.admitted.get(key) ?? new Map<RateLimitName, number[]>()
    this.admitted.set(key, perWindow)

    let retryAfterMs = 0
    for (const name of windows) {
      const { limit, windowMs } = this.config[name] ?? (DOCUMENTED_RATE_LIMITS[name] as RateLimitWindow)
      const times = (perWindow.get(name) ?? []).filter(time => time > now - windowMs)
      perWindow.set(name, times)
      if (times.length >= limit) {
        // The window frees when its oldest request that keeps it full slides out.
        const oldest = times[times.length - limit] as number
        retryAfterMs = Math.max(retryAfterMs, oldest + windowMs - now)
      }
    }
    if (retryAfterMs > 0) return { admitted: false, retryAfterMs }

    for (const name of windows) perWindow.get(name)?.push(now)
    return { admitted: true }
  }
}
