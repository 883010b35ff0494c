import { AmbiguousWriteError, OversizedAnswerError, type ServiceError } from './errors.js'
import type { Exchange } from './transport.js'

/**
 * Retry policy (which requests are sent again, and which writes are ambiguous) and timing:
 * exponential backoff with jitter, and the service's Retry-After when it sends one.
 */

export const RETRY_BASE_MS = 1_000
export const RETRY_CAP_MS = 30_000
/**
 * The longest wait after a 429 without Retry-After (or poll-interval, when longer): the service's
 * windows may be shorter than documented, and a job that waits longer than one sees its run's end
 * late for nothing (five jobs on 20-per-20 s windows: 16 s waits, the end seen 25 s late).
 */
export const REFUSED_WAIT_CAP_MS = 10_000
/** A Retry-After longer than this is not waited for in one go: the budget and deadline still apply. */
export const RETRY_AFTER_CAP_MS = 60_000

/** Delay before retry number `attempt` (1 for the first retry); `random` in [0, 1). */
export function backoffDelay(attempt: number, random: number): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1))
  // Half fixed, half jitter: spreads jobs that share a token without ever retrying at once.
  return Math.round(ceiling / 2 + (random * ceiling) / 2)
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null | undefined, now: number): number | undefined {
  if (!header) return undefined
  const trimmed = header.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(RETRY_AFTER_CAP_MS, Math.round(Number(trimmed) * 1000))
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(0, date - now))
}

/** What is known when a request was refused with 429, for the wait before its retry. */
export interface Refusal {
  /** The service's Retry-After with its jitter, when it sent one. */
  retryAfterMs?: number
  /** The ordinary back-off for this refusal. */
  backoffMs: number
  /** A write (create, resume): keeps the ordinary back-off. */
  write: boolean
  /** For a read: until the job's own oldest request leaves the full window (RateBudget.slotFreedIn). */
  slotFreedInMs?: number
  /** Milliseconds left before the step's deadline (Infinity when none). */
  leftMs: number
  /** The poll-interval: a wait without Retry-After is at most this or REFUSED_WAIT_CAP_MS, the longer. */
  pollIntervalMs?: number
}

/**
 * The wait before a refused request is sent again. Retry-After is obeyed. Without it a 429 means the
 * service's window is full: a read retried after a second or two mostly meets it still full (another
 * 429 per job when several jobs share the token), so it waits until a slot it holds frees, when that
 * is near and before the deadline; otherwise (writes, a young job, a deadline close by) the back-off.
 * Either is cut to 10 s (or poll-interval, when longer): the live windows may be shorter than the
 * documented ones, and a longer wait only sees the run's end later.
 */
export function refusedRetryDelay(refusal: Refusal): number {
  if (refusal.retryAfterMs !== undefined) return refusal.retryAfterMs
  const cap = Math.max(REFUSED_WAIT_CAP_MS, refusal.pollIntervalMs ?? 0)
  const slot = refusal.slotFreedInMs
  if (refusal.write || slot === undefined || slot >= refusal.leftMs) return Math.min(cap, refusal.backoffMs)
  return Math.min(cap, Math.max(refusal.backoffMs, slot))
}

/**
 * What sending a call a second time does, for the policy below. A read: nothing. A write (create,
 * resume): it again (a second run, a second follow-up), so a write whose fate is unknown is never
 * sent again blind. A repeatable write does once what it does however often it is sent: stopping a
 * run (a stopped run stays stopped, and a stop of a run that has ended changes nothing). It is sent
 * again like a read, after a lost answer as after a 429: a stop is sent in the few seconds after the
 * job is cancelled, when a reset or a 502 is exactly what a second try is for, and a look-up first
 * would be the read of the run its caller makes afterwards anyway.
 */
export type Effect = 'read' | 'write' | 'repeatable-write'

/** Whether a call that may have reached the service must not be sent again blind (retryOrGiveUp's `write`). */
export const unrepeatable = (effect: Effect): boolean => effect === 'write'

/** A request that got no usable answer, but might on another try. */
export type Unanswered = Extract<Exchange, { kind: 'refused' | 'failed' }>

export type Next = { kind: 'retry'; rateLimited: boolean } | { kind: 'give-up'; error: ServiceError }

/**
 * What follows a request without a usable answer. A refusal (429) was not processed: sent again,
 * writes included. A read (or a repeatable write) is sent again. A write (`write`: unrepeatable, see
 * Effect) that may have reached the service is never sent again blind: it ends as
 * AmbiguousWriteError, for its caller to look it up first. An answer too large to read is final:
 * the same request would get it again.
 */
export function retryOrGiveUp(exchange: Unanswered, write: boolean, what: string): Next {
  if (exchange.kind === 'refused') return { kind: 'retry', rateLimited: true }
  const message = `Could not ${what}: ${exchange.reason}`
  if (exchange.tooLarge) {
    const error = write ? new AmbiguousWriteError(message) : new OversizedAnswerError(message)
    return { kind: 'give-up', error }
  }
  if (write && exchange.sent)
    return { kind: 'give-up', error: new AmbiguousWriteError(message, exchange.status) }
  return { kind: 'retry', rateLimited: false }
}
