import { StringDecoder } from 'node:string_decoder'
import fetch, { type Response } from 'node-fetch'
import type { Clock } from '../clock.js'
import {
  AmbiguousWriteError,
  OversizedAnswerError,
  CancelledError,
  DeadlineError,
  ServiceError,
  describeHttpError,
  serviceMessage
} from './errors.js'
import { RateBudget, type BudgetName, type Pace } from './rate-budget.js'
import { backoffDelay, parseRetryAfter, refusedRetryDelay } from './retry.js'
import { redactText } from '../redact.js'
import {
  parseIntegrations,
  parseLogPage,
  parseOrganization,
  parsePage,
  parseRepo,
  parseRun,
  parseSetupCommandsAnswer,
  parseUser
} from './parse.js'
import type {
  AgentRun,
  CreateRunRequest,
  LogPage,
  Organization,
  OrganizationIntegrations,
  Page,
  Repo,
  ResumeRunRequest,
  SetupCommandsAnswer,
  SetupCommandsRequest,
  User
} from './types.js'

/** The two published paths of the ALPHA log endpoint. */
export type LogPath = 'interface' | 'alpha'

/** Per-call limits: the step's deadline, and how many attempts a call may make. */
export interface CallOptions {
  deadline?: number
  maxAttempts?: number
  /**
   * A last read after the wait ended (timeout or cancellation): not aborted by the cancellation,
   * and given up at once when a wait for the budget or a retry could not end before its deadline.
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
  listRuns(skip: number, limit: number, options?: CallOptions): Promise<Page<AgentRun>>
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

export interface HttpApiConfig {
  baseUrl: string
  token: string
  orgId: number
  clock: Clock
  /** Aborted when the job is cancelled. */
  signal?: AbortSignal
  requestTimeoutMs?: number
  /** Shared by the clients of one step (one per organization): the token's limits are the same. */
  budget?: RateBudget
  /** Default MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number
  debug?: (message: string) => void
}

interface RequestSpec {
  method: 'GET' | 'POST'
  path: string
  query?: Record<string, string | number>
  body?: unknown
  budgets: BudgetName[]
  /** A write may not be repeated when its fate is unknown. */
  write: boolean
  /** What the action was doing, for error messages ("create the agent run"). */
  what: string
  /** Below the client's cap. */
  maxBytes?: number
}

type Attempt<T> =
  { kind: 'done'; value: T } | { kind: 'retry'; reason: string; delayMs?: number; rateLimited?: boolean }

/** Attempts of one request that fails (5xx, reset, time-out, unreadable answer), unless the call says. */
const MAX_ATTEMPTS = 6

/** Attempts of one request the service refuses with 429 (backoff up to 30 s: minutes in all, within the deadline). */
const MAX_RATE_LIMITED_ATTEMPTS = 12

/** Jitter added to a Retry-After, so that jobs sharing a token do not come back in step. */
const RETRY_AFTER_SPREAD_MS = 1_000

/**
 * The largest answer read: a page of 100 log entries of 100 KB each fits ten times over, and what is
 * read stays far below the step's memory target (200 MB) once parsed. Past it the read is stopped.
 */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024

/**
 * A page of the log: far less, as every page is parsed, redacted, mirrored and written in turn. The
 * log reader asks for fewer entries when they are large (pages of about 1 MiB).
 */
export const MAX_LOG_PAGE_BYTES = 8 * 1024 * 1024

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

export class HttpAgentRunApi implements AgentRunApi, OrganizationApi {
  private readonly baseUrl: string
  private readonly budget: RateBudget
  private readonly requestTimeoutMs: number

  constructor(private readonly config: HttpApiConfig) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '')
    this.budget = config.budget ?? new RateBudget()
    this.requestTimeoutMs = config.requestTimeoutMs ?? 30_000
  }

  private get org(): string {
    return `/v1/organizations/${this.config.orgId}`
  }

  async createRun(body: CreateRunRequest, options?: CallOptions): Promise<AgentRun> {
    const spec: RequestSpec = {
      method: 'POST',
      path: `${this.org}/agent/run`,
      body,
      budgets: ['general', 'create'],
      write: true,
      what: 'create the agent run'
    }
    return this.send(spec, parseRun, options)
  }

  async resumeRun(body: ResumeRunRequest, options?: CallOptions): Promise<AgentRun> {
    const spec: RequestSpec = {
      method: 'POST',
      path: `${this.org}/agent/run/resume`,
      body,
      budgets: ['general'],
      write: true,
      what: `resume agent run ${body.agent_run_id}`
    }
    return this.send(spec, parseRun, options)
  }

  async getRun(runId: number, options?: CallOptions): Promise<AgentRun> {
    const spec: RequestSpec = {
      method: 'GET',
      path: `${this.org}/agent/run/${runId}`,
      budgets: ['general'],
      write: false,
      what: `read agent run ${runId}`
    }
    return this.send(spec, parseRun, options)
  }

  async getLogs(
    runId: number,
    path: LogPath,
    skip: number,
    limit: number,
    options?: CallOptions
  ): Promise<LogPage> {
    const prefix = path === 'alpha' ? `/v1/alpha/organizations/${this.config.orgId}` : this.org
    const spec: RequestSpec = {
      method: 'GET',
      path: `${prefix}/agent/run/${runId}/logs`,
      query: { skip, limit },
      budgets: ['general', 'logs'],
      write: false,
      what: `read the log of agent run ${runId}`,
      maxBytes: MAX_LOG_PAGE_BYTES
    }
    return this.send(spec, (body, size) => ({ ...parseLogPage(body, runId), bytes: size }), options)
  }

  async listRepos(skip: number, limit: number, options?: CallOptions): Promise<Page<Repo>> {
    const spec: RequestSpec = {
      method: 'GET',
      path: `${this.org}/repos`,
      query: { skip, limit },
      budgets: ['general'],
      write: false,
      what: 'list the organization repositories'
    }
    return this.send(spec, body => parsePage(body, parseRepo), options)
  }

  async listRuns(skip: number, limit: number, options?: CallOptions): Promise<Page<AgentRun>> {
    const spec: RequestSpec = {
      method: 'GET',
      path: `${this.org}/agent/runs`,
      query: { skip, limit, source_type: 'API' },
      budgets: ['general'],
      write: false,
      what: 'list agent runs'
    }
    return this.send(spec, body => parsePage(body, parseRun), options)
  }

  lookPace(look: 'logs' | 'run'): Pace {
    const names: BudgetName[] = look === 'logs' ? ['general', 'logs'] : ['general']
    return this.budget.paceAt(names, this.config.clock.now())
  }

  async listOrganizations(skip: number, limit: number, options?: CallOptions): Promise<Page<Organization>> {
    const spec: RequestSpec = {
      method: 'GET',
      path: '/v1/organizations',
      query: { skip, limit },
      budgets: ['general'],
      write: false,
      what: "list the token's organizations"
    }
    return this.send(spec, body => parsePage(body, parseOrganization), options)
  }

  async getCurrentUser(options?: CallOptions): Promise<User> {
    const spec: RequestSpec = {
      method: 'GET',
      path: '/v1/users/me',
      budgets: ['general'],
      write: false,
      what: "read the token's user"
    }
    return this.send(spec, parseUser, options)
  }

  async getUser(userId: number, options?: CallOptions): Promise<User> {
    const spec: RequestSpec = {
      method: 'GET',
      path: `${this.org}/users/${userId}`,
      budgets: ['general'],
      write: false,
      what: `read user ${userId}`
    }
    return this.send(spec, parseUser, options)
  }

  async getIntegrations(options?: CallOptions): Promise<OrganizationIntegrations> {
    const spec: RequestSpec = {
      method: 'GET',
      path: `${this.org}/integrations`,
      budgets: ['general'],
      write: false,
      what: "read the organization's integrations"
    }
    return this.send(spec, parseIntegrations, options)
  }

  async generateSetupCommands(
    body: SetupCommandsRequest,
    options?: CallOptions
  ): Promise<SetupCommandsAnswer> {
    const spec: RequestSpec = {
      method: 'POST',
      path: `${this.org}/setup-commands/generate`,
      body,
      budgets: ['general', 'setup'],
      write: true,
      what: `generate the setup commands of repository ${body.repo_id}`
    }
    return this.send(spec, parseSetupCommandsAnswer, options)
  }

  /** Sends one request with budgets, retries and time limits; returns the parsed JSON body. */
  private async send<T>(
    spec: RequestSpec,
    parse: (body: unknown, size: number) => T,
    options: CallOptions = {}
  ): Promise<T> {
    const maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS
    // A 429 on a shared token means "wait your turn", not "broken": refusals get a larger allowance.
    const maxRefusals = options.maxAttempts ?? MAX_RATE_LIMITED_ATTEMPTS
    let lastReason: string
    let failures = 0
    let refusals = 0
    for (let attempt = 1; ; attempt++) {
      await this.waitForBudget(spec.budgets, options)
      const outcome = await this.attempt(spec, parse, attempt, options)
      if (outcome.kind === 'done') {
        this.budget.relieved(spec.budgets)
        return outcome.value
      }
      lastReason = outcome.reason
      if (outcome.rateLimited) {
        this.budget.congested(spec.budgets, this.config.clock.now())
        if (++refusals >= maxRefusals) break
      } else if (++failures >= maxAttempts) break
      const delay = outcome.rateLimited
        ? this.refusedDelay(spec, refusals, outcome.delayMs, options)
        : (outcome.delayMs ?? backoffDelay(failures, Math.random()))
      this.debug(`${spec.method} ${spec.path}: ${outcome.reason}; retry ${attempt} in ${delay} ms`)
      await this.sleepWithin(delay, options)
    }
    throw new ServiceError(
      this.redact(`Could not ${spec.what} after ${failures + refusals} attempts: ${lastReason}`),
      undefined,
      true
    )
  }

  private async attempt<T>(
    spec: RequestSpec,
    parse: (body: unknown, size: number) => T,
    attempt: number,
    options: CallOptions
  ): Promise<Attempt<T>> {
    const url = new URL(this.baseUrl + spec.path)
    for (const [key, value] of Object.entries(spec.query ?? {})) url.searchParams.set(key, String(value))
    const timeoutMs = this.timeoutWithin(options.deadline)
    const timeout = AbortSignal.timeout(timeoutMs)
    const cancellation = this.cancellation(options)
    // node-fetch handed an aborted signal destroys the request body with no listener: an uncaught
    // 'error' that would crash the step. A job cancelled before the request is never sent it.
    if (cancellation?.aborted) throw new CancelledError()
    const signal = cancellation ? AbortSignal.any([cancellation, timeout]) : timeout
    const started = this.config.clock.now()
    this.budget.record(spec.budgets, started)

    let response: Response
    let text: string
    try {
      response = await fetch(url.toString(), {
        method: spec.method,
        headers: {
          authorization: `Bearer ${this.config.token}`,
          accept: 'application/json',
          'user-agent': 'codegen-agent-run-action',
          ...(spec.body === undefined ? {} : { 'content-type': 'application/json' })
        },
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        // A redirect would carry the prompt (or the token) to wherever the answer points.
        redirect: 'manual',
        signal
      })
      if (response.status >= 300 && response.status < 400) {
        discard(response)
        throw new ServiceError(
          this.redact(redirectMessage(spec.what, response, this.baseUrl)),
          response.status,
          false
        )
      }
      text = await readCapped(
        response,
        Math.min(spec.maxBytes ?? Infinity, this.config.maxResponseBytes ?? MAX_RESPONSE_BYTES)
      )
      // The service counted it at some moment before its answer: it counts here from the answer.
      // A 429 was refused, not processed, and does not count at all: refusals alone would fill a
      // window that congestion has shrunk.
      this.budget.settle(spec.budgets, started, response.status === 429 ? undefined : this.config.clock.now())
    } catch (error) {
      this.budget.settle(spec.budgets, started, this.config.clock.now())
      if (error instanceof ServiceError) throw error
      if (cancellation?.aborted) throw new CancelledError()
      if (error instanceof TooLargeError) {
        // Stopped by us, not lost: the answer was there, too large to be one we can use; sent
        // again, the same request would get it again.
        const reason = error.message
        this.debug(`${spec.method} ${url.pathname} -> ${reason} (attempt ${attempt})`)
        if (spec.write) throw new AmbiguousWriteError(`Could not ${spec.what}: ${reason}`)
        throw new OversizedAnswerError(`Could not ${spec.what}: ${reason}`)
      }
      const code = (error as { code?: string }).code ?? ''
      const reason = timeout.aborted
        ? `no answer within ${timeoutMs} ms`
        : `connection failed (${code || String(error)})`
      this.debug(`${spec.method} ${url.pathname} -> ${reason} (attempt ${attempt})`)
      if (spec.write && !NOT_SENT_CODES.has(code))
        throw new AmbiguousWriteError(`Could not ${spec.what}: ${reason}`)
      return { kind: 'retry', reason }
    }

    const elapsed = this.config.clock.now() - started
    this.debug(
      `${spec.method} ${url.pathname}${url.search} -> ${response.status} in ${elapsed} ms (attempt ${attempt})`
    )
    if (response.ok) {
      try {
        return { kind: 'done', value: parse(JSON.parse(text), text.length) }
      } catch (error) {
        const reason =
          error instanceof SyntaxError
            ? `the answer was not valid JSON (${text.length} bytes)`
            : (error as Error).message
        if (spec.write) throw new AmbiguousWriteError(`Could not ${spec.what}: ${reason}`, response.status)
        return { kind: 'retry', reason }
      }
    }
    // Redact before cutting: a token cut in two by the length cap would no longer match.
    const detail = serviceMessage(this.redact(text))
    if (response.status === 429) {
      // A rate-limited request was refused, not processed: safe to send again, writes included.
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'), this.config.clock.now())
      return {
        kind: 'retry',
        reason: `rate limited (429): ${detail}`,
        // Jobs refused together are told the same moment: spread them over the second after it.
        delayMs:
          retryAfter === undefined
            ? undefined
            : retryAfter + Math.round(Math.random() * RETRY_AFTER_SPREAD_MS),
        rateLimited: true
      }
    }
    if (response.status >= 500) {
      const reason = `service error ${response.status}: ${detail}`
      if (spec.write) throw new AmbiguousWriteError(`Could not ${spec.what}: ${reason}`, response.status)
      return { kind: 'retry', reason }
    }
    throw new ServiceError(describeHttpError(response.status, spec.what, detail), response.status, false)
  }

  /** The wait before a request refused with 429 is sent again (see refusedRetryDelay). */
  private refusedDelay(
    spec: RequestSpec,
    refusals: number,
    retryAfterMs: number | undefined,
    options: CallOptions
  ): number {
    const now = this.config.clock.now()
    return refusedRetryDelay({
      retryAfterMs,
      backoffMs: backoffDelay(refusals, Math.random()),
      write: spec.write,
      slotFreedInMs: this.budget.slotFreedIn(spec.budgets, now),
      leftMs: options.deadline === undefined ? Infinity : options.deadline - now
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
