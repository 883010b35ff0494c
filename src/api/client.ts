import type { Clock } from '../clock.js'
import type { Network } from '../network.js'
import { DeadlineError, ServiceError, UnsupportedEndpointError, type LastTry } from './errors.js'
import { endpoints, type Endpoint, type LogPath } from './endpoints.js'
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
import type {
  AgentRun,
  CreateRunRequest,
  LogPage,
  Organization,
  OrganizationIntegrations,
  Page,
  Repo,
  ResumeRunRequest,
  RunFilter,
  SetupCommandsAnswer,
  SetupCommandsRequest,
  User
} from './types.js'

export type { LogPath } from './endpoints.js'

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

/** The Agent Run service as the action uses it. Tests hand in the emulator's address or a fake. */
export interface AgentRunApi {
  createRun(body: CreateRunRequest, options?: CallOptions): Promise<AgentRun>
  resumeRun(body: ResumeRunRequest, options?: CallOptions): Promise<AgentRun>
  getRun(runId: number, options?: CallOptions): Promise<AgentRun>
  getLogs(runId: number, path: LogPath, skip: number, limit: number, options?: CallOptions): Promise<LogPage>
  listRepos(skip: number, limit: number, options?: CallOptions): Promise<Page<Repo>>
  /**
   * The organization's runs, newest first; `filter` (default API_RUNS, the action's own kind)
   * replaces the default: `{}` lists every run.
   */
  listRuns(skip: number, limit: number, options?: CallOptions, filter?: RunFilter): Promise<Page<AgentRun>>
  /**
   * Asks the service to stop a run, through the beta path Codegen's own client uses (no published
   * document describes it). Safe to send again. Its answer is undocumented: the run when it reads
   * as one, else undefined; read the run afterwards for its status. UnsupportedEndpointError when
   * the service has no such path (404, 405); other refusals are ServiceErrors as for any call.
   */
  stopRun(runId: number, options?: CallOptions): Promise<AgentRun | undefined>
  /** How often a look (one log read, or one run read) can go on within the rate budget, from now. */
  lookPace?(look: 'logs' | 'run'): Pace | undefined
}

/** The service's organization operations: who the token is, where it may act, setup commands. */
export interface OrganizationApi {
  /** The token's organizations (not scoped to the client's org id). */
  listOrganizations(skip: number, limit: number, options?: CallOptions): Promise<Page<Organization>>
  /** The token's user. */
  getCurrentUser(options?: CallOptions): Promise<User>
  /** One user of the organization (with their role in it). */
  getUser(userId: number, options?: CallOptions): Promise<User>
  getIntegrations(options?: CallOptions): Promise<OrganizationIntegrations>
  listRepos(skip: number, limit: number, options?: CallOptions): Promise<Page<Repo>>
  /** Starts the run that generates a repository's setup commands (5 a minute). */
  generateSetupCommands(body: SetupCommandsRequest, options?: CallOptions): Promise<SetupCommandsAnswer>
}

/** The runs the action starts: listRuns' filter when none is given. */
export const API_RUNS: RunFilter = { source_type: 'API' }

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

export class HttpAgentRunApi implements AgentRunApi, OrganizationApi {
  private readonly baseUrl: string
  private readonly budget: RateBudget
  private readonly requestTimeoutMs: number
  private readonly transport: HttpTransport

  constructor(private readonly config: HttpApiConfig) {
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

  createRun(body: CreateRunRequest, options?: CallOptions): Promise<AgentRun> {
    return this.call(endpoints.createRun(this.config.orgId, body), options)
  }

  resumeRun(body: ResumeRunRequest, options?: CallOptions): Promise<AgentRun> {
    return this.call(endpoints.resumeRun(this.config.orgId, body), options)
  }

  getRun(runId: number, options?: CallOptions): Promise<AgentRun> {
    return this.call(endpoints.getRun(this.config.orgId, runId), options)
  }

  getLogs(
    runId: number,
    path: LogPath,
    skip: number,
    limit: number,
    options?: CallOptions
  ): Promise<LogPage> {
    return this.call(endpoints.getLogs(this.config.orgId, runId, path, skip, limit), options)
  }

  listRepos(skip: number, limit: number, options?: CallOptions): Promise<Page<Repo>> {
    return this.call(endpoints.listRepos(this.config.orgId, skip, limit), options)
  }

  listRuns(
    skip: number,
    limit: number,
    options?: CallOptions,
    filter: RunFilter = API_RUNS
  ): Promise<Page<AgentRun>> {
    return this.call(endpoints.listRuns(this.config.orgId, skip, limit, filter), options)
  }

  stopRun(runId: number, options?: CallOptions): Promise<AgentRun | undefined> {
    return this.call(endpoints.stopRun(this.config.orgId, runId), options)
  }

  listOrganizations(skip: number, limit: number, options?: CallOptions): Promise<Page<Organization>> {
    return this.call(endpoints.listOrganizations(skip, limit), options)
  }

  getCurrentUser(options?: CallOptions): Promise<User> {
    return this.call(endpoints.getCurrentUser(), options)
  }

  getUser(userId: number, options?: CallOptions): Promise<User> {
    return this.call(endpoints.getUser(this.config.orgId, userId), options)
  }

  getIntegrations(options?: CallOptions): Promise<OrganizationIntegrations> {
    return this.call(endpoints.getIntegrations(this.config.orgId), options)
  }

  generateSetupCommands(body: SetupCommandsRequest, options?: CallOptions): Promise<SetupCommandsAnswer> {
    return this.call(endpoints.generateSetupCommands(this.config.orgId, body), options)
  }

  lookPace(look: 'logs' | 'run'): Pace {
    const names: BudgetName[] = look === 'logs' ? ['general', 'logs'] : ['general']
    return this.budget.paceAt(names, this.config.clock.now())
  }

  /** Sends one call with budgets, retries and time limits; returns its parsed answer. */
  private async call<T>(endpoint: Endpoint<T>, options: CallOptions = {}): Promise<T> {
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
