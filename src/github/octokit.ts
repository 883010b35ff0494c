import { getOctokit } from '@actions/github'
import { timeLimit, type Clock } from '../clock.js'
import { TailBuffer } from './log-tail.js'
import { GitHubRequestPolicy, answerLost, stopReason, type RouteOptions } from './request-policy.js'
import { wellFormed } from './well-formed.js'

/**
 * @actions/github's client as the step makes it: its requests spaced, waited and retried by the
 * request policy on the action's clock (request-policy.ts), every parameter well-formed, each answer
 * read whole (or, for a log, its end as it streams) within GITHUB_REQUEST_TIMEOUT_MS and the step's
 * GitHub deadline; and a create sent once though GitHub lose its answer (`createdOnce`).
 */

export type Octokit = ReturnType<typeof getOctokit>

/** The repository every call names. */
export interface RepoParams {
  owner: string
  repo: string
}

export interface OctokitConfig {
  token: string
  repository: string
  /** GITHUB_API_URL: GitHub Enterprise Server has its own. */
  apiUrl: string
  warn: (message: string) => void
  /**
   * Aborted when GitHub calls must end (the step's deadline, or soon after a cancellation): every
   * request, retry and rate-limit wait gives up then.
   */
  signal?: AbortSignal
  /** When `signal` aborts at the latest (epoch ms): a rate-limit wait that would end later is not made. */
  stopAt?: number
  /** Every wait (write spacing, rate limits, retries, time limits) is a sleep on it. */
  clock: Clock
  /** Why nothing new may be created any more (request-policy.ts: such a create is not sent). */
  stopped?: () => string | undefined
  /** Aborted when the job is cancelled: the writes that conclude go at once. */
  cancellation?: AbortSignal
  /** GitHub's side of the network (default: the platform's fetch). */
  fetch?: typeof globalThis.fetch
}

/** The client of `config`, its requests through the request policy. */
export function policedOctokit(config: OctokitConfig): Octokit {
  const octokit = getOctokit(config.token, {
    baseUrl: config.apiUrl,
    // Each attempt has its own time limit, and every one is aborted with the signal.
    request: { fetch: timedFetch(config.fetch ?? globalThis.fetch, config.clock, config.signal) }
  })
  const policy = new GitHubRequestPolicy(config)
  octokit.hook.wrap('request', (request, options) =>
    policy.send(async next => request(next as typeof options), options as unknown as RouteOptions)
  )
  // Every request's parameters (bodies included) well-formed, here at the boundary, whoever wrote them.
  octokit.hook.before('request', options => {
    const params = options as unknown as Record<string, unknown>
    for (const key of Object.keys(params))
      if (key !== 'request' && key !== 'headers') params[key] = wellFormed(params[key])
  })
  return octokit
}

/** When a create whose answer was lost is looked for: 1, 4 and 9 s after it, as a read's retries wait. */
const LOOKS_AFTER_A_LOST_ANSWER_MS = [1_000, 4_000, 9_000]
/** A create is sent at most this often: again only once every look said it is not there. */
const MAX_SENDS = 2

/**
 * Sends a create; when its answer is lost (answerLost), looks for it with `find` 1, 4 and 9 s later
 * (GitHub may still be doing it) and takes it as soon as it is there. It is sent again only when no
 * look found it and at least one could read (a look that fails tells nothing), and at most once:
 * a second answer lost is looked for as the first was, and its failure stands after the last look.
 * Every wait ends when GitHub's calls are stopped, the failure standing.
 */
export async function createdOnce(
  send: () => Promise<number>,
  find: () => Promise<number | undefined>,
  { clock, signal }: Pick<OctokitConfig, 'clock' | 'signal'>
): Promise<number> {
  let failure: unknown
  for (let sends = 0; sends < MAX_SENDS; sends++) {
    try {
      return await send()
    } catch (error) {
      if (!answerLost(error) || signal?.aborted) throw error
      failure = error
    }
    let seenAbsent = false
    for (const wait of LOOKS_AFTER_A_LOST_ANSWER_MS) {
      await clock.sleep(wait, signal).catch(() => Promise.reject(failure))
      const found = await find().then(
        id => ({ id }),
        () => undefined
      )
      if (found?.id !== undefined) return found.id
      if (found) seenAbsent = true
    }
    if (!seenAbsent) break
  }
  throw failure
}

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
