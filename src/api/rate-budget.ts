/**
 * Client-side budgets matching the service's documented limits, so that one action alone never
 * draws a 429, and spends what a window allows evenly rather than in a burst. Pure: every method
 * takes the time from the caller, so the policy is unit-tested without a clock.
 *
 * Three rules per window:
 * - hard: at most `limit - reserve` requests in any window (the service's sliding window, with a
 *   margin); a request that sees the end of the run (the final run read, the last log page) may
 *   use the reserve, so seeing the end never waits on a window that the polling emptied;
 * - pace: the watcher asks `paceAt` how often it can look without ever meeting the hard rule, and
 *   looks no sooner: past the first few requests, what is left of the window is spread over the
 *   time until it frees;
 * - congestion: a 429 (other jobs share the token) cuts the rate this job allows itself to half of
 *   what it was sending, never below an eighth of the limit; successes win it back slowly. The
 *   cut slows the looks (the pace), never stalls a whole window. The refused request itself is
 *   retried after Retry-After when the service sends one; without it, a refused read waits for the
 *   moment its own oldest request leaves the window (`slotFreedIn`): the window is full, and a slot
 *   is sure to free only then; a retry after a second or two mostly meets it still full.
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

/**
 * Kept back for the end in each window: the last log page (logs, general) and the final run read
 * (general). Creates have nothing to keep back.
 */
export const END_RESERVE: Record<BudgetName, number> = { general: 2, create: 0, logs: 1, setup: 0 }

/** Under congestion a window keeps at least 1/CONGESTION_FLOOR of its limit: enough to follow a run. */
const CONGESTION_FLOOR = 8

/**
 * Requests a window lets go at the caller's own pace before it spreads the rest: a short run (or a
 * test) is followed as closely as asked, and ten of sixty never empty a window.
 */
export const FREE_REQUESTS = 10

/**
 * A refused read waits for its own oldest request to leave the window only when that is at most
 * this share of the window away: a job that has sent for most of a window is among those that
 * filled it. A younger one (a short step, a single refusal) keeps the ordinary back-off.
 */
export const SLOT_WAIT_SHARE = 1 / 4

/** Our clock and the service's disagree by the network's latency: keep a margin. */
export const SKEW_MARGIN_MS = 500

/** The steady pace a window allows, and whether congestion set it. */
export interface Pace {
  /** Milliseconds from now to the next request, then between requests, that never meet the limit. */
  gapMs: number
  /** True when the pace is the congestion's (429s from other jobs on the token), not the limit's. */
  congested: boolean
}

/** A sliding window of the moments requests were sent, with the congestion seen on it. */
export class SlidingWindow {
  /** Times of the requests still inside the window, oldest first. */
  private readonly sent: number[] = []
  /** Requests per window this job allows itself after the 429s seen (the limit when none). */
  private allowed: number
  /** When the first request was recorded: a young window's rate is measured over its age. */
  private firstAt?: number

  constructor(
    private readonly window: RateWindow,
    private readonly reserve = 0
  ) {
    this.allowed = window.limit
  }

  /** The rate in force now, in requests per window, after the congestion seen. */
  get limit(): number {
    return Math.max(1, Math.floor(this.allowed))
  }

  /** Requests per window a caller other than the end may send: the limit less the reserve. */
  private get usable(): number {
    return Math.max(1, this.window.limit - this.reserve)
  }

  /** Milliseconds to wait from `now` until one more request fits; `end` may use the reserve. */
  delayAt(now: number, end = false): number {
    this.forget(now)
    const room = end ? this.window.limit : this.usable
    const hard =
      this.sent.length < room ? 0 : (this.sent[this.sent.length - room] as number) + this.span - now
    return Math.max(0, hard)
  }

  /**
   * How often requests can follow one another from `now` on without ever waiting on the hard rule,
   * and within the rate congestion left: the steady gap (window / usable), what is left of the
   * window spread over the time until its oldest request leaves, or window / allowed rate, whichever
   * is longest.
   */
  paceAt(now: number): Pace {
    this.forget(now)
    const congestion = this.allowed < this.window.limit ? this.window.windowMs / this.limit : 0
    if (this.sent.length < Math.min(FREE_REQUESTS, this.usable))
      return { gapMs: Math.ceil(congestion), congested: congestion > 0 }
    const steady = this.span / this.usable
    const room = this.usable - this.sent.length
    const oldest = this.sent[0] as number
    const spread = room <= 0 ? this.delayAt(now) : (oldest + this.span - now) / room
    return {
      gapMs: Math.ceil(Math.max(steady, spread, congestion)),
      congested: congestion > Math.max(steady, spread)
    }
  }

  /**
   * The service refused a request with 429: others share the token. This job halves the rate it
   * was sending (or its allowance, when lower), down to the floor.
   */
  congested(now: number): void {
    this.forget(now)
    // The requests sent in the window, and the refused one, over the window (or its age when younger).
    const age = Math.min(this.window.windowMs, now - (this.firstAt ?? now))
    const sending = ((this.sent.length + 1) * this.window.windowMs) / Math.max(1, age)
    this.allowed = Math.max(1, this.window.limit / CONGESTION_FLOOR, Math.min(this.allowed, sending) / 2)
  }

  /** One more request per window for a window's worth of successes. */
  relieved(): void {
    this.allowed = Math.min(this.window.limit, this.allowed + 1 / Math.max(1, this.limit))
  }

  /**
   * After a 429: milliseconds from `now` until this job's oldest request in the window leaves it,
   * freeing a slot that the service counted; undefined when the window holds none of ours, or when
   * that is further off than SLOT_WAIT_SHARE of the window.
   */
  slotFreedIn(now: number): number | undefined {
    this.forget(now)
    const oldest = this.sent[0]
    if (oldest === undefined) return undefined
    const wait = Math.max(0, oldest + this.span - now)
    return wait <= this.span * SLOT_WAIT_SHARE ? Math.ceil(wait) : undefined
  }

  record(now: number): void {
    this.firstAt ??= now
    let index = this.sent.length
    while (index > 0 && (this.sent[index - 1] as number) > now) index--
    this.sent.splice(index, 0, now)
  }

  /**
   * The request recorded at `sentAt` got its answer at `answeredAt`: the service counted it at
   * some moment in between, so it counts here from the answer (the later bound), whatever the
   * latency. A refused request (429) is not counted by the service: `answeredAt` undefined.
   */
  recordAnswer(sentAt: number, answeredAt?: number): void {
    const index = this.sent.lastIndexOf(sentAt)
    if (index < 0) return
    this.sent.splice(index, 1)
    if (answeredAt !== undefined) this.record(Math.max(sentAt, answeredAt))
  }

  /** The window with its margin. */
  private get span(): number {
    return this.window.windowMs + SKEW_MARGIN_MS
  }

  private forget(now: number): void {
    const horizon = now - this.span
    while (this.sent.length > 0 && (this.sent[0] as number) <= horizon) this.sent.shift()
  }
}

export class RateBudget {
  private readonly windows: Record<BudgetName, SlidingWindow>

  /** A window left out (a budget set made before `setup` existed) keeps its documented limit. */
  constructor(
    budgets: Partial<Record<BudgetName, RateWindow>> = DOCUMENTED_BUDGETS,
    reserve: Partial<Record<BudgetName, number>> = END_RESERVE
  ) {
    const window = (name: BudgetName): SlidingWindow =>
      new SlidingWindow(budgets[name] ?? DOCUMENTED_BUDGETS[name], reserve[name] ?? 0)
    this.windows = {
      general: window('general'),
      create: window('create'),
      logs: window('logs'),
      setup: window('setup')
    }
  }

  /** How long a request counted in `names` must wait from `now`; `end` may use the reserve. */
  delayAt(names: BudgetName[], now: number, end = false): number {
    return Math.max(0, ...names.map(name => this.windows[name].delayAt(now, end)))
  }

  /** The pace at which requests counted in `names` can go on from `now`: the slowest window's. */
  paceAt(names: BudgetName[], now: number): Pace {
    return names
      .map(name => this.windows[name].paceAt(now))
      .reduce((slowest, pace) => (pace.gapMs > slowest.gapMs ? pace : slowest), {
        gapMs: 0,
        congested: false
      })
  }

  record(names: BudgetName[], now: number): void {
    for (const name of names) this.windows[name].record(now)
  }

  /** The request counted in `names`, recorded at `sentAt`, was answered at `answeredAt` (undefined: refused). */
  recordAnswer(names: BudgetName[], sentAt: number, answeredAt?: number): void {
    for (const name of names) this.windows[name].recordAnswer(sentAt, answeredAt)
  }

  /**
   * The service refused a request counted in `names` with 429: others share the token. The create
   * and setup windows stay as they are: a step sends a few of them at most, and slowing them would only
   * hold the step's one run back by a minute (or end a short step at once, the wait being past its deadline).
   */
  congested(names: BudgetName[], now: number): void {
    for (const name of names) if (name !== 'create' && name !== 'setup') this.windows[name].congested(now)
  }

  /**
   * After a 429 without Retry-After on a request counted in `names`: how long until a slot the
   * service counted for this job frees in the windows that may be full (the longest of those in
   * reach), or undefined when none is in reach and the ordinary back-off applies.
   */
  slotFreedIn(names: BudgetName[], now: number): number | undefined {
    const waits = names
      .map(name => this.windows[name].slotFreedIn(now))
      .filter((wait): wait is number => wait !== undefined)
    return waits.length === 0 ? undefined : Math.max(...waits)
  }

  /** A request counted in `names` got through. */
  relieved(names: BudgetName[]): void {
    for (const name of names) this.windows[name].relieved()
  }
}
