import { timeLimit, type Clock } from '../clock.js'
import { TailBuffer } from './log-tail.js'
import { stopReason } from './request-policy.js'

/**
 * GitHub's side of the network within a time limit: every answer read whole (or, for a log, its end
 * as it streams) before GITHUB_REQUEST_TIMEOUT_MS on the clock, or when the step stops GitHub's calls.
 */

/** How long one request to GitHub may take (a retry or a rate-limit wait starts a new one). */
export const GITHUB_REQUEST_TIMEOUT_MS = 30_000

/**
 * GitHub's side of the network, each call ending after GITHUB_REQUEST_TIMEOUT_MS on the clock or
 * when `stop` aborts. Stopped, it fails as an AbortError, which the request policy does not retry.
 */
export function timedFetch(
  fetch: typeof globalThis.fetch,
  clock: Clock,
  stop: AbortSignal | undefined
): typeof globalThis.fetch {
  return async (input, init) => {
    const limit = timeLimit(clock, GITHUB_REQUEST_TIMEOUT_MS, new Error('time limit'))
    const signals = [init?.signal, stop, limit.signal]
    try {
      // The whole answer within the limit: Octokit reads the body once fetch has resolved.
      const response = await fetch(input, {
        ...init,
        signal: AbortSignal.any(signals.filter(signal => !!signal))
      })
      const body = await response.arrayBuffer()
      const read = new Response(nullBodyStatus(response.status) ? null : body, response)
      return Object.defineProperty(read, 'url', { value: response.url })
    } catch (error) {
      // An AbortError: neither the request policy nor Octokit retries it.
      const lost = (message: string): Error => Object.assign(new Error(message), { name: 'AbortError' })
      if (stop?.aborted) throw lost(`GitHub did not answer in time (${stopReason(stop)})`)
      if (limit.signal.aborted)
        throw lost(`GitHub did not answer within ${GITHUB_REQUEST_TIMEOUT_MS / 1000} s`)
      throw error
    } finally {
      limit.clear()
    }
  }
}

/** What a stream read within its time limit kept: the answer's status and headers, its body's end. */
export interface TailRead {
  status: number
  headers: Headers
  tail: TailBuffer
}

/**
 * Reads an answer's body as a stream, keeping only its end (TailBuffer), within
 * GITHUB_REQUEST_TIMEOUT_MS on the clock or until `stop` aborts: a job's log of any size, in
 * bounded memory. Sends what `init` holds and nothing more (no token unless `init` has one).
 */
export async function readTail(
  fetch: typeof globalThis.fetch,
  clock: Clock,
  stop: AbortSignal | undefined,
  input: Parameters<typeof globalThis.fetch>[0],
  init: RequestInit
): Promise<TailRead> {
  const limit = timeLimit(clock, GITHUB_REQUEST_TIMEOUT_MS, new Error('time limit'))
  const signals = [init.signal ?? undefined, stop, limit.signal].filter(
    (signal): signal is AbortSignal => !!signal
  )
  try {
    const response = await fetch(input, { ...init, signal: AbortSignal.any(signals) })
    const tail = new TailBuffer()
    const reader = response.body?.getReader()
    for (let read = await reader?.read(); read && !read.done; read = await reader?.read())
      tail.push(read.value)
    return { status: response.status, headers: response.headers, tail }
  } catch (error) {
    const lost = (message: string): Error => Object.assign(new Error(message), { name: 'AbortError' })
    if (stop?.aborted) throw lost(`GitHub did not answer in time (${stopReason(stop)})`)
    if (limit.signal.aborted) throw lost(`the log was not read within ${GITHUB_REQUEST_TIMEOUT_MS / 1000} s`)
    throw error
  } finally {
    limit.clear()
  }
}

/** Statuses whose answer has no body (a Response built with one throws). */
export function nullBodyStatus(status: number): boolean {
  return status === 101 || status === 204 || status === 205 || status === 304
}

/** An answer's headers without those of the body as it came (its length, its encoding): the body is its end now. */
export function withoutLength(headers: Headers): Headers {
  const kept = new Headers(headers)
  kept.delete('content-length')
  kept.delete('content-encoding')
  return kept
}
