import { CancelledError, type Clock } from '../clock.js'

/**
 * How the action treats GitHub's API, on the action's Clock (so that every wait can be tested to
 * the millisecond): writes spaced as GitHub asks of integrations, rate limits waited out when the
 * wait ends before the calls must, and server errors retried (but no create whose answer may have
 * been lost: octokit.ts's `createdOnce` looks for it first). It stands where Octokit's throttling and retry plugins
 * stood; those wait on timers of their own, which no clock or signal reaches.
 */

/** GitHub asks for at least a second between writes (POST, PATCH, PUT, DELETE). */
export const WRITE_SPACING_MS = 1_000
/** Writes that create content people are notified of (a comment, a reply, a review): three seconds. */
export const CONTENT_SPACING_MS = 3_000
/** A secondary rate limit answered without Retry-After: wait a minute, as GitHub advises. */
export const SECONDARY_LIMIT_FALLBACK_S = 60
/** A primary rate limit whose reset GitHub left unreadable: a minute too, rather than "NaN s". */
export const PRIMARY_LIMIT_FALLBACK_S = 60
/** Retries after a secondary rate limit, after the primary one, and after a server error. */
const MAX_SECONDARY_RETRIES = 3
const MAX_PRIMARY_RETRIES = 2
const MAX_SERVER_RETRIES = 3
/** Answers a retry cannot change. */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 410, 422, 451])

/** A request as Octokit's `request` hook sees it: the route's template, not its expanded path. */
export interface RouteOptions {
  method: string
  url: string
  /** A check run's output, when the request writes one. */
  output?: { annotations?: unknown[] }
}

/** What Octokit throws for an answer that is not 2xx (RequestError), as far as the policy reads it. */
interface Failure {
  name?: string
  status?: number
  message?: string
  request?: unknown
  response?: { headers?: Record<string, string | undefined> }
}

/**
 * A write the step did not send: it would have created something after the job was cancelled (or
 * timeout-minutes was reached). Nothing failed on GitHub's side: no warning is due.
 */
export class NotSentError extends Error {
  constructor(why: string) {
    super(`not sent: ${why}`)
    this.name = 'NotSentError'
  }
}

export interface RequestPolicyConfig {
  clock: Clock
  /** Aborted when GitHub's calls must end: every wait gives up then. */
  signal?: AbortSignal
  /**
   * Why the step may create nothing new any more (the job cancelled, timeout-minutes reached): a
   * create not yet sent is not sent then, and the writes that conclude what exists go at once.
   */
  stopped?: () => string | undefined
  /** Aborted when the job is cancelled: a write waiting for its turn stops waiting. */
  cancellation?: AbortSignal
  /** When `signal` aborts at the latest (epoch ms): a rate-limit wait that would end later is not made. */
  stopAt?: number
  warn: (message: string) => void
}

/** Why GitHub calls were stopped, from the signal's reason. */
export function stopReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason
  return reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'the calls were stopped'
}

/** A write that creates content: comments, replies in a review thread, reviews. */
function createsContent({ method, url }: RouteOptions): boolean {
  return method === 'POST' && /\/(comments|replies|reviews)$/.test(url)
}

/**
 * A write that GitHub may have done though its answer was lost (a server error, a reset
 * connection, no answer in time) is not sent again blind: a create (a comment, a reply, a check
 * run, a review) would exist twice, and a check run's annotations (every write's are appended)
 * would show twice. The creates are looked for and sent again only when not there (octokit.ts:
 * `createdOnce`). A reaction is the exception: GitHub answers 200 with the existing one when the
 * same user reacts the same way again, so sending it again creates nothing.
 */
function neverResentBlind(options: RouteOptions): boolean {
  if (options.method === 'POST') return !reacts(options)
  return (options.output?.annotations?.length ?? 0) > 0
}

function reacts({ method, url }: RouteOptions): boolean {
  return method === 'POST' && /\/reactions$/.test(url)
}

/** A write whose second sending changes nothing: an edit (PATCH) that appends nothing, a reaction. */
function repeatable(options: RouteOptions): boolean {
  return (options.method === 'PATCH' || reacts(options)) && !neverResentBlind(options)
}

/**
 * Whether a failure may have hidden GitHub's success: a server error, a lost connection (Octokit
 * throws both as a RequestError of status 500 or more), or an attempt's time limit (an AbortError).
 * A refusal (4xx) or a write the step did not send (NotSentError) is known not to have been done.
 */
export function answerLost(error: unknown): boolean {
  if (error instanceof NotSentError) return false
  const { name, status } = error as Failure
  return name === 'AbortError' || (typeof status === 'number' && status >= 500)
}

/**
 * Whether a 403 or 429 is GitHub's rate limit (primary or secondary), as the policy reads it: one
 * left after its retries says so, never that a permission is missing.
 */
export function isRateLimit(error: unknown): boolean {
  const { status, message, response } = error as Failure
  if (status !== 403 && status !== 429) return false
  const headers = response?.headers ?? {}
  return (
    /\brate limit/i.test(message ?? '') ||
    headers['retry-after'] !== undefined ||
    headers['x-ratelimit-remaining'] === '0'
  )
}

export class GitHubRequestPolicy {
  private nextWrite = Number.NEGATIVE_INFINITY
  private nextContent = Number.NEGATIVE_INFINITY

  constructor(private readonly config: RequestPolicyConfig) {}

  /** Sends `options` through `request`, spaced and retried as the policy says. */
  async send<T>(request: (options: RouteOptions) => Promise<T>, options: RouteOptions): Promise<T> {
    const retries = { secondary: 0, primary: 0, server: 0 }
    const write = options.method !== 'GET' && options.method !== 'HEAD'
    for (;;) {
      if (write) await this.spaced(options)
      try {
        return await request(options)
      } catch (error) {
        const waitMs = this.retryWait(error as Failure, options, retries)
        if (waitMs === undefined) throw error
        // A wait cut by the end of GitHub's calls: the failure stands.
        await this.config.clock.sleep(waitMs, this.config.signal).catch(() => Promise.reject(error))
      }
    }
  }

  /**
   * Waits for the write's turn: each a second after the one before, content three seconds apart.
   * Once the step is stopped, a create is not sent, and any other write (the one that concludes a
   * check run or a comment) goes at once: a cancelled job has seconds left.
   */
  private async spaced(options: RouteOptions): Promise<void> {
    const { clock, signal, cancellation } = this.config
    const creates = options.method === 'POST'
    if (!this.stopped()) {
      const content = createsContent(options)
      const now = clock.now()
      const at = Math.max(now, this.nextWrite, content ? this.nextContent : now)
      this.nextWrite = at + WRITE_SPACING_MS
      if (content) this.nextContent = at + CONTENT_SPACING_MS
      const waits = [signal, cancellation].filter((one): one is AbortSignal => !!one)
      if (at > now)
        await clock
          .sleep(at - now, waits.length ? AbortSignal.any(waits) : undefined)
          .catch((error: unknown) => {
            // The end of GitHub's calls ends the call unsent; the cancellation ends only the wait for its turn.
            if (signal?.aborted) throw new Error(`no time was left to send it (${stopReason(signal)})`)
            if (!(error instanceof CancelledError) || !cancellation?.aborted) throw error
          })
    }
    const stopped = this.stopped()
    if (stopped && creates) throw new NotSentError(stopped)
    if (signal?.aborted) throw new Error(`no time was left to send it (${stopReason(signal)})`)
  }

  private stopped(): string | undefined {
    return this.config.stopped?.()
  }

  /** How long to wait before sending again, or undefined when the failure stands. */
  private retryWait(
    failure: Failure,
    options: RouteOptions,
    retries: { secondary: number; primary: number; server: number }
  ): number | undefined {
    // Stopped (the deadline, the cancellation): nothing to retry. Past one attempt's time limit, a
    // write that may be sent twice is sent again (an edit rewrites, a reaction GitHub makes once):
    // a check run's conclusion lost so would leave it in progress.
    if (this.config.signal?.aborted) return undefined
    if (failure.name === 'AbortError') return repeatable(options) ? this.serverRetry(retries) : undefined
    const status = failure.status ?? 0
    const headers = failure.response?.headers ?? {}
    if (status === 403 || status === 429) {
      if (/\bsecondary rate\b/i.test(failure.message ?? '') || headers['retry-after'] !== undefined) {
        // Retry-After: 0 means at once; only a missing or unreadable one means a minute.
        const given = Number(headers['retry-after'] ?? NaN)
        const seconds = headers['retry-after'] !== '' && given >= 0 ? given : SECONDARY_LIMIT_FALLBACK_S
        if (retries.secondary++ >= MAX_SECONDARY_RETRIES) return undefined
        return this.rateLimitWait('secondary rate limit', seconds, options)
      }
      if (headers['x-ratelimit-remaining'] === '0') {
        const reset = headers['x-ratelimit-reset']
        const resetMs = /^\d+$/.test(reset ?? '') ? Number(reset) * 1000 : Number.NaN
        const seconds = Number.isFinite(resetMs)
          ? Math.max(0, Math.ceil((resetMs - this.config.clock.now()) / 1000) + 1)
          : PRIMARY_LIMIT_FALLBACK_S
        if (retries.primary++ >= MAX_PRIMARY_RETRIES) return undefined
        return this.rateLimitWait('rate limit', seconds, options)
      }
    }
    // A server error or a lost connection (Octokit throws a RequestError of status 500 for both),
    // and a refusal a retry may change (409, say): retried after 1, 4 and 9 s; not a write sent once.
    if (failure.request === undefined || status < 400 || FINAL_STATUSES.has(status)) return undefined
    if (neverResentBlind(options) && answerLost(failure)) return undefined
    return this.serverRetry(retries)
  }

  /** A server error's retry: after 1, 4 and 9 s, then none. */
  private serverRetry(retries: { server: number }): number | undefined {
    if (retries.server >= MAX_SERVER_RETRIES) return undefined
    retries.server++
    return retries.server ** 2 * 1000
  }

  /** A rate limit's wait, said in a warning; undefined when there is no time left for it. */
  private rateLimitWait(kind: string, seconds: number, { method, url }: RouteOptions): number | undefined {
    const { clock, stopAt, warn } = this.config
    if (clock.now() + seconds * 1000 >= (stopAt ?? Infinity)) {
      warn(`GitHub ${kind} on ${method} ${url}: no time left to wait ${seconds} s`)
      return undefined
    }
    warn(`GitHub ${kind} on ${method} ${url}: retrying in ${seconds} s`)
    return seconds * 1000
  }
}
