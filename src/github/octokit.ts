import { getOctokit } from '@actions/github'
import { GitHubRequestPolicy, answerLost, type RouteOptions } from './request-policy.js'
import { timedFetch } from './timed-fetch.js'
import { wellFormed } from './well-formed.js'
import type { Clock } from '../clock.js'

/**
 * @actions/github's client as the step makes it: its requests spaced, waited and retried by the
 * request policy on the action's clock (request-policy.ts), each bounded by the step's GitHub
 * deadline, every parameter well-formed; and a create sent once though GitHub lose its answer.
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

/** Looks for a create whose answer was lost, 1, 4 and 9 s after it, as many as a read's retries. */
const LOOKS_AFTER_A_LOST_ANSWER = 3

/**
 * Sends a create; when its answer is lost (answerLost), waits 1, 4, then 9 s (GitHub may still be
 * doing it), looks for it with `find` and takes it when there, sends it again only when `find`
 * says it is not. A look that fails looks again after the next wait; the failure stands at the
 * end, and when the calls are stopped.
 */
export async function sentOnce(
  send: () => Promise<number>,
  find: () => Promise<number | undefined>,
  { clock, signal }: Pick<OctokitConfig, 'clock' | 'signal'>
): Promise<number> {
  let failure: unknown
  for (let attempt = 0; attempt <= LOOKS_AFTER_A_LOST_ANSWER; attempt++) {
    if (attempt > 0) {
      await clock.sleep(attempt ** 2 * 1000, signal).catch(() => Promise.reject(failure))
      const found = await find().then(
        id => ({ id }),
        () => undefined
      )
      if (found === undefined) continue
      if (found.id !== undefined) return found.id
    }
    try {
      return await send()
    } catch (error) {
      if (!answerLost(error) || signal?.aborted) throw error
      failure = error
    }
  }
  throw failure
}
