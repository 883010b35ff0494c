/** Retry timing: exponential backoff with full jitter, and the service's Retry-After when it sends one. */

export const RETRY_BASE_MS = 1_000
export const RETRY_CAP_MS = 30_000
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
