import { DOCS, gitHubError, json, type Answer } from './answers.js'

/**
 * What the fake injects in front of GitHub's answers, as GitHub's front end would: secondary rate
 * limits, server and client errors, calls never answered (hangs) or answered late (holds); and the
 * primary rate limit headers every answer carries.
 */

const SECONDARY_RATE_LIMIT_MESSAGE =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'
const SECONDARY_RATE_LIMIT_DOCS = `${DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits`

/** Primary rate limits per hour: a GitHub App installation's and an unauthenticated client's. */
export const AUTHENTICATED_LIMIT = 5000
export const ANONYMOUS_LIMIT = 60

/** GitHub's primary rate limit headers for one bucket. Counted, never enforced. */
export class PrimaryRateLimit {
  private used = 0
  /** Epoch seconds at which the hour window ends. */
  private reset = 0

  constructor(private readonly limit: number) {}

  /** Counts a request and returns the headers of its answer. */
  count(now: number): Record<string, string> {
    if (now >= this.reset * 1000) {
      this.used = 0
      this.reset = Math.ceil(now / 1000) + 3600
    }
    this.used++
    return {
      'x-ratelimit-limit': String(this.limit),
      'x-ratelimit-remaining': String(Math.max(0, this.limit - this.used)),
      'x-ratelimit-reset': String(this.reset),
      'x-ratelimit-used': String(this.used),
      'x-ratelimit-resource': 'core'
    }
  }
}

interface InjectedFault {
  hitsLeft: number
  pathPattern: RegExp | undefined
  /** Only requests of this method, when given. */
  method?: string
  answer: () => Answer
}

/** A hang, or a hold: answered as usual once `released` resolves (a hang never is). */
export interface Hang {
  hitsLeft: number
  pathPattern?: RegExp
  method?: string
  released?: Promise<void>
}

/** The first of `injected` this request matches (its method, when one is given, and path), counted as taken. */
function take<T extends { hitsLeft: number; pathPattern?: RegExp | undefined; method?: string | undefined }>(
  injected: T[],
  method: string,
  path: string
): T | undefined {
  const found = injected.find(
    candidate =>
      candidate.hitsLeft > 0 &&
      (!candidate.method || candidate.method === method) &&
      (!candidate.pathPattern || path.search(candidate.pathPattern) >= 0)
  )
  if (found) found.hitsLeft--
  return found
}

function checkTimes(times: number): void {
  if (!Number.isInteger(times) || times < 1) throw new Error(`times must be an integer >= 1, got ${times}`)
}

/**
 * How GitHub loses the answer of a request it did the work of: its front end answers 502, the
 * connection is reset, or the answer comes later than the client's time limit (LATE_ANSWER_MS).
 */
export type LostAnswer = '502' | 'reset' | 'late'

/** When a late answer comes: well past the client's 30 s (it has given up by then). */
export const LATE_ANSWER_MS = 60_000

interface InjectedLoss {
  hitsLeft: number
  pathPattern?: RegExp
  method?: string
  how: LostAnswer
}

/** The faults injected so far, each taken by the next requests it matches. */
export class Faults {
  private readonly faults: InjectedFault[] = []
  private readonly hangs: Hang[] = []
  private readonly losses: InjectedLoss[] = []

  /**
   * The next `times` requests (matching `pathPattern`, tested against the path without prefix and
   * query, when given) get GitHub's secondary rate limit answer: 403 with retry-after.
   */
  injectSecondaryRateLimit(times: number, pathPattern?: RegExp, retryAfterSeconds = 1): void {
    checkTimes(times)
    if (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 0) {
      throw new Error(`retryAfterSeconds must be an integer >= 0, got ${retryAfterSeconds}`)
    }
    this.faults.push({
      hitsLeft: times,
      pathPattern,
      answer: () => ({
        ...gitHubError(403, SECONDARY_RATE_LIMIT_MESSAGE, SECONDARY_RATE_LIMIT_DOCS),
        headers: { 'retry-after': String(retryAfterSeconds) }
      })
    })
  }

  /**
   * The next `times` matching requests (and of `method`, when given) get a transient server error
   * (`{"message":"Server Error"}`), the work not done.
   */
  injectServerError(times: number, pathPattern?: RegExp, status = 500, method?: string): void {
    checkTimes(times)
    if (!Number.isInteger(status) || status < 500 || status > 599) {
      throw new Error(`A server error status is 500-599, got ${status}`)
    }
    this.faults.push({
      hitsLeft: times,
      pathPattern,
      ...(method ? { method } : {}),
      answer: () => json({ message: 'Server Error' }, status)
    })
  }

  /**
   * The next `times` matching requests get a client error as GitHub words it (404 Not Found by
   * default), e.g. a token that cannot see the resource. Clients do not retry these.
   */
  injectClientError(times: number, pathPattern?: RegExp, status = 404, message = 'Not Found'): void {
    checkTimes(times)
    if (!Number.isInteger(status) || status < 400 || status > 499) {
      throw new Error(`A client error status is 400-499, got ${status}`)
    }
    this.faults.push({ hitsLeft: times, pathPattern, answer: () => gitHubError(status, message) })
  }

  /**
   * Hostile: the next `times` matching requests are answered 302 with `location` (none when
   * undefined), as a broken front end might redirect a log read.
   */
  injectRedirect(times: number, pathPattern?: RegExp, location?: string): void {
    checkTimes(times)
    const headers: Record<string, string> = location === undefined ? {} : { location }
    this.faults.push({
      hitsLeft: times,
      pathPattern,
      answer: () => ({ status: 302, value: undefined, headers })
    })
  }

  /**
   * Hostile: the next `times` matching requests (path as for the other faults, and method when
   * given) are never answered; the connection stays open until the fake stops.
   */
  injectHang(times: number, pathPattern?: RegExp, method?: string): void {
    checkTimes(times)
    this.hangs.push({ hitsLeft: times, pathPattern, method })
  }

  /**
   * Slow: the next `times` matching requests (as for injectHang) are answered as usual, but only once
   * `release()` is called; `answeredAt` on their records tells when.
   */
  injectHold(times: number, pathPattern?: RegExp, method?: string): { release: () => void } {
    checkTimes(times)
    let release = (): void => undefined
    const released = new Promise<void>(resolve => (release = resolve))
    this.hangs.push({ hitsLeft: times, pathPattern, method, released })
    return { release }
  }

  /**
   * The work done, the answer lost: the next `times` matching requests (as for injectHang) are
   * handled as usual (a comment created, a check run written), and then `how` their answer is lost.
   */
  injectLostAnswer(times: number, how: LostAnswer, pathPattern?: RegExp, method?: string): void {
    checkTimes(times)
    this.losses.push({ hitsLeft: times, pathPattern, method, how })
  }

  /** How this request's answer is lost, counted as taken; undefined when it is not. */
  takeLoss(method: string, path: string): LostAnswer | undefined {
    return take(this.losses, method, path)?.how
  }

  /** The hang or hold this request meets, counted as taken. */
  takeHang(method: string, path: string): Hang | undefined {
    return take(this.hangs, method, path)
  }

  /** The answer of the fault this request meets, counted as taken. */
  takeFault(method: string, path: string): Answer | undefined {
    return take(this.faults, method, path)?.answer()
  }
}

/** The faults a fake GitHub can be told to inject (Faults says what each does): its base class. */
export class FaultInjection {
  protected readonly faults = new Faults()

  injectSecondaryRateLimit(times: number, pathPattern?: RegExp, retryAfterSeconds = 1): void {
    this.faults.injectSecondaryRateLimit(times, pathPattern, retryAfterSeconds)
  }

  injectServerError(times: number, pathPattern?: RegExp, status = 500, method?: string): void {
    this.faults.injectServerError(times, pathPattern, status, method)
  }

  injectClientError(times: number, pathPattern?: RegExp, status = 404, message = 'Not Found'): void {
    this.faults.injectClientError(times, pathPattern, status, message)
  }

  injectRedirect(times: number, pathPattern?: RegExp, location?: string): void {
    this.faults.injectRedirect(times, pathPattern, location)
  }

  injectHang(times: number, pathPattern?: RegExp, method?: string): void {
    this.faults.injectHang(times, pathPattern, method)
  }

  injectHold(times: number, pathPattern?: RegExp, method?: string): { release: () => void } {
    return this.faults.injectHold(times, pathPattern, method)
  }

  injectLostAnswer(times: number, how: LostAnswer, pathPattern?: RegExp, method?: string): void {
    this.faults.injectLostAnswer(times, how, pathPattern, method)
  }
}
