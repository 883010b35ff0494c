/**
 * Client-side budgets matching the service's documented limits, so that one action alone never
 * draws a 429: every request waits until each window it counts in has room.
 */

export interface RateWindow {
  limit: number
  windowMs: number
}

export type BudgetName = 'general' | 'create' | 'logs' | 'setup'

/**
 * The documented limits: 60 requests per 30 s overall, 10 creates per minute, 60 log reads per 60 s,
 * 5 setup-command generations per minute.
 */
export const DOCUMENTED_BUDGETS: Record<BudgetName, RateWindow> = {
  general: { limit: 60, windowMs: 30_000 },
  create: { limit: 10, windowMs: 60_000 },
  logs: { limit: 60, windowMs: 60_000 },
  setup: { limit: 5, windowMs: 60_000 }
}

/** Under congestion a window keeps at least 1/CONGESTION_FLOOR of its limit: enough to follow a run. */
const CONGESTION_FLOOR = 8

/** Our clock and the service's disagree by the network's latency: keep a margin. */
const SKEW_MARGIN_MS = 500

/**
 * A sliding window of the moments requests were sent. Pure: the caller passes the time.
 *
 * Its limit shrinks when the service answers 429 (other jobs share the token and the window is full
 * on the service's side) and grows back as requests get through: halve on a refusal, one more
 * request per window for a window's worth of successes, never below an eighth of the documented limit.
 */
export class SlidingWindow {
  private readonly sent: number[] = []
  private allowed: number

  constructor(private readonly window: RateWindow) {
    this.allowed = window.limit
  }

  /** The limit in force now, after the congestion seen. */
  get limit(): number {
    return Math.max(1, Math.floor(this.allowed))
  }

  /** Milliseconds to wait from `now` until one more request fits. */
  delayAt(now: number): number {
    this.forget(now)
    if (this.sent.length < this.limit) return 0
    const oldest = this.sent[this.sent.length - this.limit] as number
    return Math.max(0, oldest + this.window.windowMs + SKEW_MARGIN_MS - now)
  }

  congested(): void {
    this.allowed = Math.max(1, this.window.limit / CONGESTION_FLOOR, this.allowed / 2)
  }

  relieved(): void {
    this.allowed = Math.min(this.window.limit, this.allowed + 1 / Math.max(1, this.limit))
  }

  record(now: number): void {
    this.sent.push(now)
  }

  /** The request recorded at `sentAt` was refused (429): it did not get through, and does not count. */
  refused(sentAt: number): void {
    const index = this.sent.lastIndexOf(sentAt)
    if (index >= 0) this.sent.splice(index, 1)
  }

  private forget(now: number): void {
    const horizon = now - this.window.windowMs - SKEW_MARGIN_MS
    while (this.sent.length > 0 && (this.sent[0] as number) <= horizon) this.sent.shift()
  }
}

export class RateBudget {
  private readonly windows: Record<BudgetName, SlidingWindow>

  /** A window left out (a budget set made before `setup` existed) keeps its documented limit. */
  constructor(budgets: Partial<Record<BudgetName, RateWindow>> = DOCUMENTED_BUDGETS) {
    const window = (name: BudgetName): SlidingWindow =>
      new SlidingWindow(budgets[name] ?? DOCUMENTED_BUDGETS[name])
    this.windows = {
      general: window('general'),
      create: window('create'),
      logs: window('logs'),
      setup: window('setup')
    }
  }

  /** How long a request counted in `names` must wait from `now`. */
  delayAt(names: BudgetName[], now: number): number {
    return Math.max(0, ...names.map(name => this.windows[name].delayAt(now)))
  }

  record(names: BudgetName[], now: number): void {
    for (const name of names) this.windows[name].record(now)
  }

  /** The request counted in `names` and recorded at `sentAt` was refused (429): it does not count. */
  refused(names: BudgetName[], sentAt: number): void {
    for (const name of names) this.windows[name].refused(sentAt)
  }

  /**
   * The service refused a request counted in `names` with 429: others share the token. The create
   * and setup windows stay as they are: a step sends a few creates at most, and shrinking it would only hold the
   * step's one run back by a minute (or end a short step at once, the wait being past its deadline).
   */
  congested(names: BudgetName[]): void {
    for (const name of names) if (name !== 'create' && name !== 'setup') this.windows[name].congested()
  }

  /** A request counted in `names` got through. */
  relieved(names: BudgetName[]): void {
    for (const name of names) this.windows[name].relieved()
  }
}
