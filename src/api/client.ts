import type { Clock } from '../clock.js'
import type { Network } from '../network.js'
import { DeadlineError, ServiceError, UnsupportedEndpointError, type LastTry } from './errors.js'
import { endpoints, type Endpoint, type Endpoints, type Face } from './endpoints.js'
import { RateBudget, type BudgetName, type Pace } from './rate-budget.js'
import {
  backoffDelay,
  retryOrGiveUp,
  parseRetryAfter,
  refusedRetryDelay,
  unrepeatable,
  type Unanswered
} from './retry.js'
import { HttpTransport, type Exchange } from './transport.js'
import { redactText } from '../redact.js'

export { API_RUNS, type LogPath } from './endpoints.js'

/** Per-call bounds: the step's deadline, and how many attempts a call may make. */
export interface CallOptions {
  deadline?: number
  maxAttempts?: number
  /**
   * A last read after the wait ended (timeout or cancellation), or the stop sent then: not aborted
   * by the cancellation, and given up at once when a wait for the budget or a retry could not end
   * before its deadline.
   */
  lastRead?: boolean
  /** A read that sees the run's end (its final read, its last log page): may use the budget's reserve. */
  end?: boolean
}

/** A client method: the row's own arguments, then the call options; its answer, parsed. */
type ClientMethod<R> = R extends (orgId: number, ...args: infer A) => Endpoint<infer T>
  ? (...args: [...A, options?: CallOptions]) => Promise<T>
  : never

/** The methods of one face of the client: a method for each row of the endpoints table it has. */
type CallsOf<F extends Face> = {
  [K in keyof Endpoints as F extends Endpoints[K]['faces'][number] ? K : never]: ClientMethod<Endpoints[K]>
}

/** Every call of the service, as the client's methods (see `endpoints` for what each does). */
export type ServiceCalls = { [K in keyof Endpoints]: ClientMethod<Endpoints[K]> }

/** The Agent Run service as the action uses it. Tests hand in the emulator's address or a fake. */
export interface AgentRunApi extends CallsOf<'runs'> {
  /** How often a look (one log read, or one run read) can go on within the rate budget, from now. */
  lookPace?(look: 'logs' | 'run'): Pace | undefined
}

/** The service's organization operations: who the token is, where it may act, setup commands. */
export type OrganizationApi = CallsOf<'organization'>

/** A request with no answer within this is lost: a read is retried, a write looked for first. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000

export interface HttpApiConfig {
  baseUrl: string
  token: string
  orgId: number
  clock: Clock
  /** Aborted when the job is cancelled. */
  signal?: AbortSignal
  /** One request's time limit (default DEFAULT_REQUEST_TIMEOUT_MS), cut shorter by a deadline. */
  requestTimeoutMs?: number
  /** Shared by the clients of one step (one per organization): the token's limits are the same. */
  budget?: RateBudget
  /** The poll-interval: bounds the wait after a 429 without Retry-After (refusedRetryDelay). */
  pollIntervalMs?: number
  debug?: (message: string) => void
  /** The service's side of the network (default: node-fetch). */
  fetch?: Network['service']
}

/** Attempts of one request that fails (5xx, reset, time-out, unreadable answer), unless the call says. */
const MAX_ATTEMPTS = 6

/**
 * Attempts of one request the service refuses with 429: without Retry-After each wait is at most
 * 10 s (refusedRetryDelay), so twenty of them still span about two minutes, two log windows.
 */
const MAX_RATE_LIMITED_ATTEMPTS = 20

/** Jitter added to a Retry-After, so that jobs sharing a token do not come back in step. */
const RETRY_AFTER_SPREAD_MS = 1_000

/**
 * The largest answer read: a page of 100 log entries of 100 KB each fits ten times over, and what is
 * read stays far below the step's memory target (200 MB) once parsed. Past it the read is stopped.
 */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024

/** A method for each row of the table, sending its call through `send`. */
function serviceCalls(
  orgId: number,
  send: <T>(endpoint: Endpoint<T>, options?: CallOptions) => Promise<T>
): ServiceCalls {
  const methods = Object.entries(endpoints).map(([name, row]) => {
    // The row's own arguments (its length, the organization's id aside), then the call options.
    const own = row.length - 1
    const request = row as (orgId: number, ...args: unknown[]) => Endpoint<unknown>
    const method = (...args: unknown[]): Promise<unknown> =>
      send(request(orgId, ...args.slice(0, own)), args[own] as CallOptions | undefined)
    return [name, method]
  })
  return Object.fromEntries(methods) as ServiceCalls
}

/** The client's methods, one a row of the table, set by the constructor: each sends through `call`. */
abstract class ServiceCallsBase {
  constructor(orgId: number) {
    Object.assign(
      this,
      serviceCalls(orgId, (endpoint, options) => this.call(endpoint, options))
    )
  }

  protected abstract call<T>(endpoint: Endpoint<T>, options?: CallOptions): Promise<T>
}

const WithServiceCalls = ServiceCallsBase as abstract new (orgId: number) => ServiceCallsBase & ServiceCalls

export class HttpAgentRunApi extends WithServiceCalls implements AgentRunApi, OrganizationApi {
  private readonly baseUrl: string
  private readonly budget: RateBudget
  private readonly requestTimeoutMs: number
  private readonly transport: HttpTransport

  constructor(private readonly config: HttpApiConfig) {
    super(config.orgId)
    this.baseUrl = config.baseUrl.replace(/\/+$/, '')
    this.budget = config.budget ?? new RateBudget()
    this.requestTimeoutMs = config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
    this.transport = new HttpTransport({
      baseUrl: this.baseUrl,
      token: config.token,
      clock: config.clock,
      budget: this.budget,
      redact: text => this.redact(text),
      debug: message => this.debug(message),
      ...(config.fetch ? { fetch: config.fetch } : {})
    })
  }

  lookPace(look: 'logs' | 'run'): Pace {
    const names: BudgetName[] = look === 'logs' ? ['general', 'logs'] : ['general']
    return this.budget.paceAt(names, this.config.clock.now())
  }

  /** Sends one call with budgets, retries and time limits; returns its parsed answer. */
  protected async call<T>(endpoint: Endpoint<T>, options: CallOptions = {}): Promise<T> {
    const maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS
    // A 429 on a shared token means "wait your turn", not "broken": refusals get a larger allowance.
    const maxRefusals = options.maxAttempts ?? MAX_RATE_LIMITED_ATTEMPTS
    let last: LastTry | undefined
    let failures = 0
    let refusals = 0
    try {
      for (let attempt = 1; ; attempt++) {
        await this.waitForBudget(endpoint.budgets, options)
        const outcome = await this.attempt(endpoint, attempt, options)
        if (outcome.kind === 'done') {
          this.budget.relieved(endpoint.budgets)
          return outcome.value
        }
        if (outcome.kind === 'fatal') throw unsupported(endpoint, outcome.error) ?? outcome.error
        const next = retryOrGiveUp(outcome, unrepeatable(endpoint.effect), endpoint.what)
        if (next.kind === 'give-up') throw next.error
        last = this.lastTry(outcome)
        if (next.rateLimited) {
          this.budget.congested(endpoint.budgets, this.config.clock.now())
          if (++refusals >= maxRefusals) break
        } else if (++failures >= maxAttempts) break
        const delay =
          outcome.kind === 'refused'
            ? this.refusedDelay(endpoint, refusals, outcome.retryAfter, options)
            : backoffDelay(failures, Math.random())
        this.debug(`${endpoint.method} ${endpoint.path}: ${outcome.reason}; retry ${attempt} in ${delay} ms`)
        await this.sleepWithin(delay, options)
      }
    } catch (error) {
      // Out of time while trying again: what the last try met is what happened, not the time alone.
      if (error instanceof DeadlineError && last && !error.lastTry) throw new DeadlineError(last)
      throw error
    }
    throw new ServiceError(
      this.redact(`Could not ${endpoint.what} after ${failures + refusals} attempts: ${last?.reason}`),
      undefined,
      last
    )
  }

  /** What a try without a usable answer met, in the service's words (redacted). */
  private lastTry(outcome: Unanswered): LastTry {
    const redacted = (text: string | undefined): string | undefined =>
      text === undefined ? undefined : this.redact(text)
    if (outcome.kind === 'refused')
      return { reason: this.redact(outcome.reason), httpStatus: 429, detail: redacted(outcome.detail) }
    return {
      reason: this.redact(outcome.reason),
      httpStatus: outcome.status,
      detail: redacted(outcome.detail),
      connection: redacted(outcome.connection),
      timedOut: outcome.timedOut
    }
  }

  /** One request on the wire, its answer parsed: an unreadable one fails like a lost one. */
  private async attempt<T>(
    endpoint: Endpoint<T>,
    attempt: number,
    options: CallOptions
  ): Promise<Exclude<Exchange, { kind: 'answered' }> | { kind: 'done'; value: T }> {
    const url = new URL(this.baseUrl + endpoint.path)
    for (const [key, value] of Object.entries(endpoint.query ?? {})) url.searchParams.set(key, String(value))
    const exchange = await this.transport.exchange({
      method: endpoint.method,
      url,
      body: endpoint.body,
      budgets: endpoint.budgets,
      what: endpoint.what,
      maxBytes: Math.min(endpoint.maxBytes ?? Infinity, MAX_RESPONSE_BYTES),
      timeoutMs: this.timeoutWithin(options.deadline),
      cancellation: this.cancellation(options),
      attempt
    })
    if (exchange.kind !== 'answered') return exchange
    const { text, status } = exchange
    try {
      return { kind: 'done', value: endpoint.parse(readJson(text, endpoint.undocumented), text.length) }
    } catch (error) {
      const reason =
        error instanceof SyntaxError
          ? `the answer was not valid JSON (${text.length} bytes)`
          : (error as Error).message
      return { kind: 'failed', reason, sent: true, status }
    }
  }

  /** The wait before a request refused with 429 is sent again (see refusedRetryDelay). */
  private refusedDelay(
    endpoint: Endpoint<unknown>,
    refusals: number,
    retryAfter: string | null,
    options: CallOptions
  ): number {
    const now = this.config.clock.now()
    const retryAfterMs = parseRetryAfter(retryAfter, now)
    return refusedRetryDelay({
      // Jobs refused together are told the same moment: spread them over the second after it.
      retryAfterMs:
        retryAfterMs === undefined
          ? undefined
          : retryAfterMs + Math.round(Math.random() * RETRY_AFTER_SPREAD_MS),
      backoffMs: backoffDelay(refusals, Math.random()),
      write: unrepeatable(endpoint.effect),
      slotFreedInMs: this.budget.slotFreedIn(endpoint.budgets, now),
      leftMs: options.deadline === undefined ? Infinity : options.deadline - now,
      pollIntervalMs: this.config.pollIntervalMs
    })
  }

  private async waitForBudget(budgets: BudgetName[], options: CallOptions): Promise<void> {
    for (;;) {
      const delay = this.budget.delayAt(budgets, this.config.clock.now(), options.end)
      if (delay <= 0) return
      this.debug(`waiting ${delay} ms to stay within the service's rate limits`)
      await this.sleepWithin(delay, options)
    }
  }

  /** Waits `ms`, or until the deadline and then gives up: the step keeps its time limit, to the end. */
  private async sleepWithin(ms: number, options: CallOptions): Promise<void> {
    const left = options.deadline === undefined ? Infinity : options.deadline - this.config.clock.now()
    if (ms >= left && options.lastRead) throw new DeadlineError()
    await this.config.clock.sleep(Math.min(ms, Math.max(0, left)), this.cancellation(options))
    if (ms >= left) throw new DeadlineError()
  }

  private cancellation(options: CallOptions): AbortSignal | undefined {
    return options.lastRead ? undefined : this.config.signal
  }

  private timeoutWithin(deadline?: number): number {
    if (deadline === undefined) return this.requestTimeoutMs
    const left = deadline - this.config.clock.now()
    if (left <= 0) throw new DeadlineError()
    return Math.max(1, Math.min(this.requestTimeoutMs, left))
  }

  /** Error bodies may echo the request (headers included): the token never leaves through them, in any form. */
  private redact(text: string): string {
    return this.config.token ? redactText(text, [this.config.token]) : text
  }

  private debug(message: string): void {
    this.config.debug?.(this.redact(message))
  }
}

/** The answer's JSON; an undocumented answer that is not JSON is undefined, not unreadable. */
function readJson(text: string, undocumented = false): unknown {
  if (!undocumented) return JSON.parse(text)
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A 404 or 405 on an undocumented path: the service has no such endpoint. */
function unsupported(endpoint: Endpoint<unknown>, error: Error): UnsupportedEndpointError | undefined {
  const status = error instanceof ServiceError ? error.httpStatus : undefined
  if (!endpoint.undocumented || (status !== 404 && status !== 405)) return undefined
  return new UnsupportedEndpointError(endpoint.what, status)
}
