import { StringDecoder } from 'node:string_decoder'
import nodeFetch, { type Response } from 'node-fetch'
import { CancelledError, timeLimit, type Clock } from '../clock.js'
import { ServiceError, describeHttpError, serviceMessage } from './errors.js'
import type { BudgetName, RateBudget } from './rate-budget.js'

/**
 * One request on the wire, and what became of it, classified: the client's policy decides what
 * follows (a retry, a look-up before a write is sent again, an error) without catching anything.
 */
export type Exchange =
  /** 2xx: the whole body, read within its cap. */
  | { kind: 'answered'; status: number; text: string }
  /** 429: refused, not processed: safe to send again, writes included. */
  | { kind: 'refused'; reason: string; retryAfter: string | null; detail?: string }
  /**
   * Failed, having maybe reached the service (a 5xx, a reset, a time-out, an unreadable answer);
   * `sent: false` when the connection never opened. `tooLarge`: stopped by us, not lost: the same
   * request would get the same answer.
   */
  | {
      kind: 'failed'
      reason: string
      sent: boolean
      status?: number
      tooLarge?: boolean
      /** The service's words with its status. */
      detail?: string
      /** The connection's error, when no answer came. */
      connection?: string
      /** No answer within the request's time limit. */
      timedOut?: boolean
    }
  /** Nothing a retry can change: a redirect, a 4xx, the job cancelled. */
  | { kind: 'fatal'; error: Error }

/** Any a row of the endpoints table may name: a new call's method needs nothing here. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'

export interface WireRequest {
  method: HttpMethod
  url: URL
  body?: unknown
  budgets: BudgetName[]
  /** What the action was doing, for error messages ("create the agent run"). */
  what: string
  maxBytes: number
  timeoutMs: number
  /** The job's cancellation, when it applies to this request. */
  cancellation?: AbortSignal
  /** For the debug line. */
  attempt: number
}

export interface TransportConfig {
  baseUrl: string
  token: string
  clock: Clock
  budget: RateBudget
  redact: (text: string) => string
  debug: (message: string) => void
  /** The service's side of the network (default: node-fetch). */
  fetch?: typeof nodeFetch
}

/** An answer larger than the cap: the read was stopped there. */
class TooLargeError extends Error {}

/** Stops reading an answer we will not use (node-fetch's body is a Node stream). */
function discard(response: Response): void {
  ;(response.body as unknown as { destroy?: () => void } | null)?.destroy?.()
}

/** The body as text, read as it arrives and stopped past `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'))
  const tooLarge = (): TooLargeError =>
    new TooLargeError(`the answer was larger than ${maxBytes / 1024 / 1024} MiB`)
  const body = response.body
  if (declared > maxBytes) {
    discard(response)
    throw tooLarge()
  }
  if (!body) return ''
  // Decoded as it arrives: no second copy of the whole answer outside the heap.
  const decoder = new StringDecoder('utf8')
  const parts: string[] = []
  let size = 0
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    size += buffer.length
    if (size > maxBytes) {
      discard(response)
      throw tooLarge()
    }
    parts.push(decoder.write(buffer))
  }
  parts.push(decoder.end())
  return parts.join('')
}

/** Connection errors that prove the request never left: even a write may be sent again. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])

/** A 3xx is never followed: it names where it pointed, so a wrong base-url can be told from a hostile one. */
function redirectMessage(what: string, response: Response, baseUrl: string): string {
  const location = response.headers.get('location') ?? ''
  let target = 'no Location'
  try {
    const url = new URL(location, baseUrl)
    target = url.host === new URL(baseUrl).host ? `${url.protocol}//${url.host} (the same host)` : url.host
  } catch {
    if (location) target = 'an invalid Location'
  }
  return `Could not ${what}: the service answered ${response.status} redirecting to ${target.slice(0, 200)}; redirects are not followed (check base-url).`
}

/** Sends requests with the token; records each in the rate budget and its answer once, however it ends. */
export class HttpTransport {
  constructor(private readonly config: TransportConfig) {}

  async exchange(request: WireRequest): Promise<Exchange> {
    const { clock, budget } = this.config
    // node-fetch handed an aborted signal destroys the request body with no listener: an uncaught
    // 'error' that would crash the step. A job cancelled before the request is never sent it.
    if (request.cancellation?.aborted) return { kind: 'fatal', error: new CancelledError() }
    const timeout = timeLimit(clock, request.timeoutMs, new Error(`no answer within ${request.timeoutMs} ms`))
    const started = clock.now()
    budget.record(request.budgets, started)
    const exchange = await this.fetchAndRead(request, timeout.signal).finally(() => timeout.clear())
    // The service counted it at some moment before its answer: it counts here from the answer. A 429
    // was refused, not processed, and does not count at all: refusals alone would fill a window that
    // congestion has shrunk.
    budget.recordAnswer(request.budgets, started, exchange.kind === 'refused' ? undefined : clock.now())
    if ('status' in exchange && exchange.status !== undefined) {
      const { url } = request
      this.config.debug(
        `${request.method} ${url.pathname}${url.search} -> ${exchange.status} in ${clock.now() - started} ms (attempt ${request.attempt})`
      )
    }
    return exchange
  }

  /** The answer read and classified; a request that got none says why. */
  private async fetchAndRead(
    request: WireRequest,
    timeout: AbortSignal
  ): Promise<Exchange & { status?: number }> {
    const { cancellation } = request
    let response: Response
    let text: string
    try {
      response = await (this.config.fetch ?? nodeFetch)(request.url.toString(), {
        method: request.method,
        headers: {
          authorization: `Bearer ${this.config.token}`,
          accept: 'application/json',
          'user-agent': 'codegen-agent-run-action',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' })
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        // A redirect would carry the prompt (or the token) to wherever the answer points.
        redirect: 'manual',
        signal: cancellation ? AbortSignal.any([cancellation, timeout]) : timeout
      })
      if (response.status >= 300 && response.status < 400) {
        discard(response)
        const message = this.config.redact(redirectMessage(request.what, response, this.config.baseUrl))
        return { kind: 'fatal', error: new ServiceError(message, response.status) }
      }
      text = await readCapped(response, request.maxBytes)
    } catch (error) {
      return this.lost(request, error, timeout)
    }
    return this.classify(request.what, response, text)
  }

  private lost(request: WireRequest, error: unknown, timeout: AbortSignal): Exchange {
    // Sent, its answer lost to the cancellation: a write may have been done (agent-run/send-once.ts, resume.ts look).
    if (request.cancellation?.aborted) return { kind: 'fatal', error: new CancelledError(true) }
    const code = (error as { code?: string }).code ?? ''
    const tooLarge = error instanceof TooLargeError
    const reason = tooLarge
      ? error.message
      : timeout.aborted
        ? `no answer within ${request.timeoutMs} ms`
        : `connection failed (${code || String(error)})`
    this.config.debug(`${request.method} ${request.url.pathname} -> ${reason} (attempt ${request.attempt})`)
    if (tooLarge) return { kind: 'failed', reason, sent: true, tooLarge }
    const sent = !NOT_SENT_CODES.has(code)
    if (timeout.aborted) return { kind: 'failed', reason, sent, timedOut: true }
    return { kind: 'failed', reason, sent, connection: code || String(error) }
  }

  private classify(what: string, response: Response, text: string): Exchange & { status: number } {
    const { status } = response
    if (response.ok) return { kind: 'answered', status, text }
    // Redact before cutting: a token cut in two by the length cap would no longer match.
    const detail = serviceMessage(this.config.redact(text))
    if (status === 429) {
      const retryAfter = response.headers.get('retry-after')
      return { kind: 'refused', status, reason: `rate limited (429): ${detail}`, retryAfter, detail }
    }
    if (status >= 500)
      return { kind: 'failed', status, reason: `service error ${status}: ${detail}`, sent: true, detail }
    return { kind: 'fatal', status, error: new ServiceError(describeHttpError(status, what, detail), status) }
  }
}
