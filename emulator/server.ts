import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { close, listen } from './loopback-server.js'
import { FaultPlan } from './faults.js'
import { DOCUMENTED_RATE_LIMITS, SlidingWindowLimiter, type RateLimitName } from './rate-limits.js'
import { defaultRepos } from './repos.js'
import { checkScript, EmulatedRun, type RunInput } from './runs.js'
import { scenario, scenarioDirective } from './scenarios.js'
import type {
  EmulatedOrganization,
  EmulatedRunView,
  IntegrationStatus,
  Organization,
  OrganizationIntegrations,
  SetupCommandsResponse,
  User,
  EmulatorOptions,
  Fault,
  FaultRule,
  LogPathName,
  Page,
  RecordedRequest,
  Repo,
  RouteName,
  RunScript,
  ServiceErrorBody
} from './types.js'
import { readBody, recordedBody, Validator, type RequestBody } from './validation.js'

// ---------------------------------------------------------------------------------------------
// Routes

interface Route {
  name: RouteName
  method: 'GET' | 'POST'
  pattern: RegExp
  /** Path parameters in the order FastAPI validates (and reports) them: the OpenAPI listing's. */
  params: string[]
}

function route(
  name: RouteName,
  method: Route['method'],
  template: string,
  params: string[] = ['org_id']
): Route {
  const source = template.replace(/\{(\w+)\}/g, (_, param: string) => `(?<${param}>[^/]+)`)
  return { name, method, pattern: new RegExp(`^${source}$`), params }
}

/** In FastAPI's registration order: the first route whose path and method match takes the request. */
const ROUTES: Route[] = [
  route('create', 'POST', '/v1/organizations/{org_id}/agent/run'),
  route('resume', 'POST', '/v1/organizations/{org_id}/agent/run/resume'),
  route('get', 'GET', '/v1/organizations/{org_id}/agent/run/{agent_run_id}', ['agent_run_id', 'org_id']),
  route('logs', 'GET', '/v1/organizations/{org_id}/agent/run/{agent_run_id}/logs', [
    'org_id',
    'agent_run_id'
  ]),
  route('logs-alpha', 'GET', '/v1/alpha/organizations/{org_id}/agent/run/{agent_run_id}/logs', [
    'agent_run_id',
    'org_id'
  ]),
  route('list-runs', 'GET', '/v1/organizations/{org_id}/agent/runs'),
  route('repos', 'GET', '/v1/organizations/{org_id}/repos'),
  route('organizations', 'GET', '/v1/organizations', []),
  route('me', 'GET', '/v1/users/me', []),
  route('users', 'GET', '/v1/organizations/{org_id}/users'),
  route('user', 'GET', '/v1/organizations/{org_id}/users/{user_id}', ['org_id', 'user_id']),
  route('integrations', 'GET', '/v1/organizations/{org_id}/integrations'),
  route('setup-commands', 'POST', '/v1/organizations/{org_id}/setup-commands/generate')
]

const LOG_PATH_OF: Partial<Record<RouteName, LogPathName>> = { logs: 'interface', 'logs-alpha': 'alpha' }

/** The rate-limit windows a request counts in, besides `general`. */
const EXTRA_WINDOWS: Partial<Record<RouteName, RateLimitName>> = {
  create: 'create',
  logs: 'logs',
  'logs-alpha': 'logs',
  'setup-commands': 'setup'
}

const SOURCE_TYPES = [
  'LOCAL',
  'SLACK',
  'GITHUB',
  'GITHUB_CHECK_SUITE',
  'GITHUB_PR_REVIEW',
  'LINEAR',
  'API',
  'CHAT',
  'JIRA',
  'CLICKUP',
  'MONDAY',
  'SETUP_COMMANDS'
] as const

const AGENT_TYPES = ['codegen', 'claude_code'] as const

// ---------------------------------------------------------------------------------------------
// Answers

/** What a handler produces; `value` is sent as JSON, `text` as is. */
interface Answer {
  status: number
  value?: unknown
  text?: string
  contentType?: string
  headers?: Record<string, string>
}

const json = (value: unknown, status = 200, headers?: Record<string, string>): Answer => ({
  status,
  value,
  headers
})

/** The live service's own errors: `{"message": ..., "status_code": ...}` (OpenAPI's defaults). */
const MESSAGES: Record<number, string> = {
  401: 'Invalid or missing API token.',
  402: 'Alloted agent runs for the current billing plan have been reached. Please upgrade your plan to continue.',
  403: 'You do not have access to this organization.',
  404: 'Agent run not found.',
  429: 'Rate limit exceeded. Please try again later.'
}

const serviceError = (
  status: number,
  message = MESSAGES[status] ?? STATUS_CODES[status] ?? 'Error'
): Answer => json({ message, status_code: status } satisfies ServiceErrorBody, status)

const NO_REPOS_FOUND = 'No repos found in the organization. Please add some repos and try again.'

/** Default bodies of injected status faults: what each status looks like when it comes from where it would. */
function faultAnswer(fault: Extract<Fault, { kind: 'status' }>): Answer {
  const headers = fault.retryAfter === undefined ? undefined : { 'retry-after': String(fault.retryAfter) }
  const { status } = fault
  if (fault.body !== undefined) {
    return typeof fault.body === 'string'
      ? { status, text: fault.body, contentType: 'text/plain; charset=utf-8', headers }
      : json(fault.body, status, headers)
  }
  if (MESSAGES[status]) return { ...serviceError(status), headers }
  // Starlette's answer to an unhandled exception.
  if (status === 500)
    return { status, text: 'Internal Server Error', contentType: 'text/plain; charset=utf-8', headers }
  // Gateway errors come from the load balancer in front of the service, as HTML.
  if (status >= 502 && status <= 504) {
    const title = `${status} ${STATUS_CODES[status]}`
    const text = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n</body>\r\n</html>\r\n`
    return { status, text, contentType: 'text/html', headers }
  }
  return json({ detail: STATUS_CODES[status] ?? 'Error' }, status, headers)
}

function encode(answer: Answer): { body: string; contentType: string } {
  if (answer.text !== undefined) return { body: answer.text, contentType: answer.contentType ?? 'text/plain' }
  return { body: JSON.stringify(answer.value), contentType: 'application/json' }
}

function pageOf<T>(all: T[], skip: number, limit: number): Page<T> {
  return {
    items: all.slice(skip, skip + limit),
    total: all.length,
    page: Math.floor(skip / limit) + 1,
    size: limit,
    pages: Math.ceil(all.length / limit)
  }
}

/** A path segment as FastAPI sees it (percent-decoded); a broken escape stays as it came. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

// ---------------------------------------------------------------------------------------------
// The emulator

/** One routed request as the handlers see it. */
interface Call {
  route: Route
  params: Record<string, string>
  query: Record<string, string>
  body: RequestBody
  authorization: string | undefined
  now: number
}

type Admission = { admitted: true; userId: number } | { admitted: false; answer: Answer }

/** The refusal of a create in an organization whose GitHub integration is inactive (an assumption: not documented). */
const GITHUB_INACTIVE = 'The GitHub integration of this organization is not active.'

/**
 * The Agent Run service on a loopback port: the routes of the interface and OpenAPI documents with
 * their auth, validation, pagination, rate limits and error bodies, runs that follow scripts, and
 * injectable faults. Runs live in memory for the life of the object.
 */
export class AgentRunEmulator {
  /** Every request, in order of arrival. */
  readonly requests: RecordedRequest[] = []

  private readonly tokens: Map<string, { orgIds: number[]; userId: number }>
  private readonly organizations: Map<number, EmulatedOrganization>
  private readonly repos: Repo[]
  private readonly limiter: SlidingWindowLimiter | undefined
  private readonly logPaths: LogPathName[]
  private readonly defaultScenario: string
  private readonly speed: number
  private readonly runAllowance: number
  private readonly retryAfterHeader: boolean
  private readonly webBaseUrl: string
  private readonly clock: () => number

  private readonly runsById = new Map<number, EmulatedRun>()
  private readonly queuedScripts: RunScript[] = []
  private readonly faults = new FaultPlan()
  private nextRunId: number
  private server: Server | undefined
  private url: string | undefined
  /** Answers held back by `slow` faults, cancelled on stop. */
  private readonly heldAnswers = new Set<NodeJS.Timeout>()

  constructor(options: EmulatorOptions = {}) {
    // Each token stands for one user; list-runs' user_id filter refers to these ids (1, 2, ...).
    const tokens = Object.entries(options.tokens ?? { 'emulator-token': [1] })
    this.tokens = new Map(tokens.map(([token, orgIds], index) => [token, { orgIds, userId: index + 1 }]))
    const named = options.organizations ?? [{ id: 1, name: 'Octo Org' }]
    this.organizations = new Map(named.map(org => [org.id, { githubIntegration: true, ...org }]))
    for (const { orgIds } of this.tokens.values()) {
      for (const id of orgIds)
        if (!this.organizations.has(id)) this.organizations.set(id, { id, name: `Organization ${id}` })
    }
    this.repos = options.repos ?? defaultRepos(options.manyRepos)
    const rateLimits = options.rateLimits ?? DOCUMENTED_RATE_LIMITS
    this.limiter = rateLimits === false ? undefined : new SlidingWindowLimiter(rateLimits)
    this.logPaths = options.logPaths ?? ['interface', 'alpha']
    this.defaultScenario = options.defaultScenario ?? 'success'
    this.speed = options.speed ?? 1
    // Fail at construction, not at the first create, on a bad name or speed.
    scenario(this.defaultScenario, this.speed)
    this.runAllowance = options.runAllowance ?? Number.POSITIVE_INFINITY
    this.retryAfterHeader = options.retryAfterHeader ?? false
    this.webBaseUrl = (options.webBaseUrl ?? 'https://app.codegen.com').replace(/\/+$/, '')
    this.clock = options.now ?? Date.now
    this.nextRunId = options.firstRunId ?? 1000
  }

  /** Listens (default: any free port on 127.0.0.1) and resolves to the base URL. */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) throw new Error(`The emulator is already listening on ${this.url}`)
    const { server, url } = await listen((request, response) => this.receive(request, response), port, host)
    this.server = server
    this.url = url
    return this.url
  }

  /** Closes the server and every open connection, keep-alive ones included. */
  async stop(): Promise<void> {
    const server = this.server
    if (!server) return
    this.server = undefined
    this.url = undefined
    for (const timer of this.heldAnswers) clearTimeout(timer)
    this.heldAnswers.clear()
    await close(server)
  }

  get baseUrl(): string {
    if (!this.url) throw new Error('The emulator is not started: call start() first')
    return this.url
  }

  /** The next create or resume follows this script (first in, first out). */
  queueScript(script: RunScript): void {
    checkScript(script)
    this.queuedScripts.push(script)
  }

  injectFaults(...rules: FaultRule[]): void {
    this.faults.add(rules)
  }

  /**
   * A run of another job on the same organization, created as if through the API but without a
   * request (no fault, no rate limit, no queued script): the fault suite's neighbours of the step's run.
   */
  addRun(
    metadata: Record<string, unknown> | null,
    script: RunScript = scenario(this.defaultScenario, this.speed)
  ): number {
    const id = this.nextRunId++
    const now = this.clock()
    const input: RunInput = {
      prompt: 'Another job',
      images: null,
      repo_id: null,
      model: null,
      agent_type: null,
      metadata
    }
    this.runsById.set(
      id,
      new EmulatedRun(id, 1, 1, now, input, `${this.webBaseUrl}/agent/trace/${id}`, script)
    )
    return id
  }

  /** The run as the service would show it now, with its inputs and every log entry revealed so far. */
  run(id: number): EmulatedRunView | undefined {
    return this.runsById.get(id)?.view(this.clock())
  }

  /** Every run, oldest first. */
  runs(): EmulatedRunView[] {
    const now = this.clock()
    return [...this.runsById.values()].map(run => run.view(now))
  }

  // -- HTTP plumbing

  private receive(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://emulator')
    const query: Record<string, string> = {}
    // FastAPI reads the last value of a repeated query parameter.
    for (const [name, value] of url.searchParams) query[name] = value
    const match = this.match(request.method ?? 'GET', url.pathname)
    const record: RecordedRequest = {
      at: this.clock(),
      method: request.method ?? 'GET',
      path: url.pathname,
      route: match.route?.name ?? 'unknown',
      query,
      body: undefined,
      authorization: request.headers.authorization,
      status: 0
    }
    this.requests.push(record)

    const fault = this.faults.take(record.route)
    if (fault) record.fault = fault.kind
    if (fault?.kind === 'reset-before') {
      request.socket.destroy()
      return
    }

    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('error', () => undefined)
    request.on('end', () => {
      const body = readBody(Buffer.concat(chunks).toString('utf8'), request.headers['content-type'])
      record.body = recordedBody(body)
      let answer: Answer
      if (fault?.kind === 'status') {
        answer = faultAnswer(fault)
      } else if (fault?.kind === 'redirect') {
        answer = { status: fault.status, text: '', headers: { location: fault.location } }
      } else if (!match.route) {
        answer = match.allowed
          ? json({ detail: 'Method Not Allowed' }, 405, { allow: match.allowed })
          : json({ detail: 'Not Found' }, 404)
      } else {
        const call: Call = {
          route: match.route,
          params: match.params,
          query,
          body,
          authorization: record.authorization,
          now: this.clock()
        }
        answer = this.handle(call)
      }
      record.status = answer.status
      const retryAfter = answer.headers?.['retry-after']
      if (retryAfter !== undefined) record.retryAfter = Number(retryAfter)
      this.deliver(response, answer, fault, record)
    })
  }

  /** The route of a request, or (for a path that exists under another method) the allowed method. */
  private match(
    method: string,
    path: string
  ): { route?: Route; params: Record<string, string>; allowed?: string } {
    let allowed: string | undefined
    for (const candidate of ROUTES) {
      const found = candidate.pattern.exec(path)
      if (!found) continue
      if (candidate.method !== method) {
        allowed ??= candidate.method
        continue
      }
      const params = Object.fromEntries(
        Object.entries(found.groups ?? {}).map(([name, value]) => [name, decodePathSegment(value)])
      )
      return { route: candidate, params }
    }
    return { params: {}, allowed }
  }

  private deliver(
    response: ServerResponse,
    answer: Answer,
    fault: Fault | undefined,
    record: RecordedRequest
  ): void {
    switch (fault?.kind) {
      case 'reset-after':
        response.socket?.destroy()
        return
      case 'slow': {
        const timer = setTimeout(() => {
          this.heldAnswers.delete(timer)
          this.write(response, answer)
        }, fault.delayMs)
        this.heldAnswers.add(timer)
        return
      }
      case 'malformed':
        // A proxy's error page under a JSON content type: the header is not to be trusted.
        record.status = 200
        this.write(response, {
          status: 200,
          text: '<html><body><h1>Upstream connect error</h1></body></html>',
          contentType: 'application/json'
        })
        return
      case 'truncated': {
        const full = Buffer.from(encode(answer).body)
        record.status = 200
        this.writeRaw(
          response,
          200,
          full.subarray(0, Math.floor(full.length / 2)),
          'application/json',
          answer.headers
        )
        return
      }
      case 'drift':
        if (isObject(answer.value))
          answer = { ...answer, value: fault.mutate(structuredClone(answer.value), record.query) }
        break
      case 'huge':
        record.status = 200
        this.writeHuge(response, fault.bytes)
        return
    }
    const logs = isObject(answer.value) ? answer.value.logs : undefined
    if (answer.status === 200 && Array.isArray(logs) && !response.destroyed) record.served = logs.length
    this.write(response, answer)
  }

  private write(response: ServerResponse, answer: Answer): void {
    const { body, contentType } = encode(answer)
    this.writeRaw(response, answer.status, Buffer.from(body), contentType, answer.headers)
  }

  /** `{"padding":"xxx…"}` of exactly `bytes` bytes, written as the socket drains. */
  private writeHuge(response: ServerResponse, bytes: number): void {
    if (response.destroyed || response.socket?.destroyed) return
    const head = '{"padding":"'
    const tail = '"}'
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes) })
    response.write(head)
    const chunk = Buffer.alloc(64 * 1024, 'x')
    let left = Math.max(0, bytes - head.length - tail.length)
    const pump = (): void => {
      while (left > 0 && !response.destroyed) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left)
        left -= piece.length
        if (!response.write(piece)) return void response.once('drain', pump)
      }
      if (!response.destroyed) response.end(tail)
    }
    response.on('error', () => undefined)
    pump()
  }

  private writeRaw(
    response: ServerResponse,
    status: number,
    body: Buffer,
    contentType: string,
    headers: Record<string, string> = {}
  ): void {
    // A client that gave up (or a stopped emulator) has no socket left to answer on.
    if (response.destroyed || response.socket?.destroyed) return
    response.writeHead(status, {
      ...headers,
      'content-type': contentType,
      'content-length': String(body.length)
    })
    response.end(body)
  }

  // -- the service

  private handle(call: Call): Answer {
    const logPath = LOG_PATH_OF[call.route.name]
    // A log path the service does not have is an unknown route to FastAPI.
    if (logPath && !this.logPaths.includes(logPath)) return json({ detail: 'Not Found' }, 404)
    switch (call.route.name) {
      case 'create':
        return this.createRun(call)
      case 'resume':
        return this.resumeRun(call)
      case 'get':
        return this.getRun(call)
      case 'logs':
      case 'logs-alpha':
        return this.getLogs(call)
      case 'list-runs':
        return this.listRuns(call)
      case 'repos':
        return this.listRepos(call)
      case 'organizations':
        return this.listOrganizations(call)
      case 'me':
        return this.currentUser(call)
      case 'users':
        return this.listUsers(call)
      case 'user':
        return this.getUser(call)
      case 'integrations':
        return this.integrations(call)
      case 'setup-commands':
        return this.generateSetupCommands(call)
    }
  }

  /**
   * Auth, rate limits and organization access, after validation as in FastAPI (the token is read in
   * the endpoint, which runs only once the parameters are valid). A request counts toward its token's
   * windows from here on, refused ones excepted.
   */
  private admit(call: Call, orgId: number | undefined): Admission {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(call.authorization ?? '')?.[1]
    const holder = token === undefined ? undefined : this.tokens.get(token)
    if (token === undefined || !holder) return { admitted: false, answer: serviceError(401) }

    if (this.limiter) {
      const extra = EXTRA_WINDOWS[call.route.name]
      const admission = this.limiter.admit(token, extra ? ['general', extra] : ['general'], call.now)
      if (!admission.admitted) {
        const answer = serviceError(429)
        if (this.retryAfterHeader) {
          answer.headers = { 'retry-after': String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000))) }
        }
        return { admitted: false, answer }
      }
    }

    if (orgId !== undefined && !holder.orgIds.includes(orgId))
      return { admitted: false, answer: serviceError(403) }
    return { admitted: true, userId: holder.userId }
  }

  /** Path ids in the route's validation order. */
  private pathIds(v: Validator, call: Call): { orgId: number; runId: number } {
    const ids: Record<string, number> = {}
    for (const name of call.route.params) ids[name] = v.pathInteger(call.params, name)
    return { orgId: ids.org_id ?? Number.NaN, runId: ids.agent_run_id ?? Number.NaN }
  }

  /** A run of that organization (another organization's run is as unknown as a missing one). */
  private findRun(orgId: number, runId: number): EmulatedRun | undefined {
    const run = this.runsById.get(runId)
    return run?.organizationId === orgId ? run : undefined
  }

  /** A queued script first; else the scenario the prompt names; else the default scenario. */
  private nextScript(prompt: string): RunScript {
    return (
      this.queuedScripts.shift() ?? scenario(scenarioDirective(prompt) ?? this.defaultScenario, this.speed)
    )
  }

  private createRun(call: Call): Answer {
    const v = new Validator()
    const { orgId } = this.pathIds(v, call)
    const body = v.bodyObject(call.body)
    // In CreateAgentRunInput's field order, which is the order pydantic reports errors in.
    const input: RunInput | undefined = body && {
      prompt: v.requiredString(body, 'prompt'),
      images: v.optionalImages(body, 'images'),
      metadata: v.optionalObject(body, 'metadata'),
      repo_id: v.optionalInteger(body, 'repo_id'),
      model: v.optionalString(body, 'model'),
      agent_type: v.optionalLiteral(body, 'agent_type', AGENT_TYPES)
    }
    if (v.failed || !input) return json(v.body, 422)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    if (
      input.repo_id !== null &&
      !this.repos.some(repo => repo.id === input.repo_id && repo.organization_id === orgId)
    ) {
      return serviceError(404, NO_REPOS_FOUND)
    }
    if (this.organizations.get(orgId)?.githubIntegration === false) return serviceError(403, GITHUB_INACTIVE)
    const orgRuns = [...this.runsById.values()].filter(run => run.organizationId === orgId).length
    if (orgRuns >= this.runAllowance) return serviceError(402)

    const id = this.nextRunId++
    const run = new EmulatedRun(
      id,
      orgId,
      admission.userId,
      call.now,
      input,
      `${this.webBaseUrl}/agent/trace/${id}`,
      this.nextScript(input.prompt)
    )
    this.runsById.set(id, run)
    return json(run.response(call.now))
  }

  private resumeRun(call: Call): Answer {
    const v = new Validator()
    const { orgId } = this.pathIds(v, call)
    const body = v.bodyObject(call.body)
    const input = body && {
      runId: v.requiredInteger(body, 'agent_run_id'),
      prompt: v.requiredString(body, 'prompt'),
      images: v.optionalImages(body, 'images')
    }
    if (v.failed || !input) return json(v.body, 422)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const run = this.findRun(orgId, input.runId)
    if (!run) return serviceError(404)
    const script = this.queuedScripts.shift() ?? run.nextFollowUp() ?? this.nextScript(input.prompt)
    run.resume(script, input.prompt, input.images, call.now)
    return json(run.response(call.now))
  }

  private getRun(call: Call): Answer {
    const v = new Validator()
    const { orgId, runId } = this.pathIds(v, call)
    if (v.failed) return json(v.body, 422)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const run = this.findRun(orgId, runId)
    return run ? json(run.response(call.now)) : serviceError(404)
  }

  private getLogs(call: Call): Answer {
    const v = new Validator()
    const { orgId, runId } = this.pathIds(v, call)
    const skip = v.queryInteger(call.query, 'skip', 0, { ge: 0 })
    const limit = v.queryInteger(call.query, 'limit', 100, { ge: 1, le: 100 })
    // Only the OpenAPI (alpha) path has `reverse`; elsewhere it is an unknown parameter, ignored.
    const reverse = call.route.name === 'logs-alpha' ? v.queryBoolean(call.query, 'reverse', false) : false
    if (v.failed) return json(v.body, 422)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const run = this.findRun(orgId, runId)
    return run ? json(run.withLogs(call.now, skip, limit, reverse)) : serviceError(404)
  }

  private listRuns(call: Call): Answer {
    const v = new Validator()
    const { orgId } = this.pathIds(v, call)
    const userId = v.queryOptionalInteger(call.query, 'user_id')
    const sourceType = v.queryEnum(call.query, 'source_type', SOURCE_TYPES)
    const skip = v.queryInteger(call.query, 'skip', 0, { ge: 0 })
    const limit = v.queryInteger(call.query, 'limit', 100, { ge: 1, le: 100 })
    if (v.failed) return json(v.body, 422)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const runs = [...this.runsById.values()]
      .filter(run => run.organizationId === orgId && (userId === null || run.userId === userId))
      .map(run => run.response(call.now))
      .filter(run => sourceType === null || run.source_type === sourceType)
      .sort((a, b) => b.id - a.id)
    return json(pageOf(runs, skip, limit))
  }

  private listRepos(call: Call): Answer {
    const v = new Validator()
    const { orgId } = this.pathIds(v, call)
    const skip = v.queryInteger(call.query, 'skip', 0, { ge: 0 })
    const limit = v.queryInteger(call.query, 'limit', 100, { ge: 1, le: 100 })
    if (v.failed) return json(v.body, 422)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    return json(
      pageOf(
        this.repos.filter(repo => repo.organization_id === orgId),
        skip,
        limit
      )
    )
  }

  // -- organizations, users, integrations, setup commands

  /** The user a token stands for: user 1 is octocat, the others member-N. */
  private user(userId: number, orgId?: number): User {
    const login = userId === 1 ? 'octocat' : `member-${userId}`
    const admin = userId === 1
    return {
      id: userId,
      email: `${login}@example.com`,
      github_user_id: String(583_230 + userId),
      github_username: login,
      avatar_url: `https://avatars.githubusercontent.com/u/${583_230 + userId}`,
      full_name: userId === 1 ? 'The Octocat' : `Member ${userId}`,
      role: orgId === undefined ? null : admin ? 'ADMIN' : 'MEMBER',
      is_admin: orgId === undefined ? null : admin
    }
  }

  /** Ids of the users (one per token) that belong to the organization. */
  private members(orgId: number): number[] {
    return [...this.tokens.values()]
      .filter(holder => holder.orgIds.includes(orgId))
      .map(holder => holder.userId)
  }

  private organizationResponse(id: number): Organization {
    const org = this.organizations.get(id)
    return {
      id,
      name: org?.name ?? `Organization ${id}`,
      settings: { enable_pr_creation: true, enable_rules_detection: true }
    }
  }

  private listOrganizations(call: Call): Answer {
    const v = new Validator()
    const skip = v.queryInteger(call.query, 'skip', 0, { ge: 0 })
    const limit = v.queryInteger(call.query, 'limit', 100, { ge: 1, le: 100 })
    if (v.failed) return json(v.body, 422)

    const admission = this.admit(call, undefined)
    if (!admission.admitted) return admission.answer
    const holder = [...this.tokens.values()].find(entry => entry.userId === admission.userId)
    const ids = [...(holder?.orgIds ?? [])].sort((a, b) => a - b)
    return json(
      pageOf(
        ids.map(id => this.organizationResponse(id)),
        skip,
        limit
      )
    )
  }

  private currentUser(call: Call): Answer {
    const admission = this.admit(call, undefined)
    if (!admission.admitted) return admission.answer
    return json(this.user(admission.userId))
  }

  private listUsers(call: Call): Answer {
    const v = new Validator()
    const { orgId } = this.pathIds(v, call)
    const skip = v.queryInteger(call.query, 'skip', 0, { ge: 0 })
    const limit = v.queryInteger(call.query, 'limit', 100, { ge: 1, le: 100 })
    if (v.failed) return json(v.body, 422)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    return json(
      pageOf(
        this.members(orgId).map(id => this.user(id, orgId)),
        skip,
        limit
      )
    )
  }

  private getUser(call: Call): Answer {
    const v = new Validator()
    const { orgId } = this.pathIds(v, call)
    if (v.failed) return json(v.body, 422)
    // Validated with the other path ids, in the route's order.
    const userId = Number(call.params.user_id)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    return this.members(orgId).includes(userId)
      ? json(this.user(userId, orgId))
      : serviceError(404, 'User not found.')
  }

  private integrations(call: Call): Answer {
    const v = new Validator()
    const { orgId } = this.pathIds(v, call)
    if (v.failed) return json(v.body, 422)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const github = this.organizations.get(orgId)?.githubIntegration !== false
    const integrations: IntegrationStatus[] = [
      {
        integration_type: 'github',
        active: github,
        token_id: null,
        installation_id: github ? 40_000_000 + orgId : null,
        metadata: github ? { account: 'octo-org' } : null
      },
      { integration_type: 'slack', active: false, token_id: null, installation_id: null, metadata: null }
    ]
    return json({
      organization_id: orgId,
      organization_name: this.organizationResponse(orgId).name,
      integrations,
      total_active_integrations: integrations.filter(item => item.active).length
    } satisfies OrganizationIntegrations)
  }

  /** A run of the setup-commands scenario (or a queued script), source_type SETUP_COMMANDS. */
  private generateSetupCommands(call: Call): Answer {
    const v = new Validator()
    const { orgId } = this.pathIds(v, call)
    const body = v.bodyObject(call.body)
    // GenerateSetupCommandsInput's field order.
    const input = body && {
      repo_id: v.requiredInteger(body, 'repo_id'),
      prompt: v.optionalString(body, 'prompt'),
      trigger_source: v.optionalString(body, 'trigger_source')
    }
    if (v.failed || !input) return json(v.body, 422)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    if (!this.repos.some(repo => repo.id === input.repo_id && repo.organization_id === orgId))
      return serviceError(404, 'Repository not found.')
    if (this.organizations.get(orgId)?.githubIntegration === false) return serviceError(403, GITHUB_INACTIVE)

    const id = this.nextRunId++
    const run = new EmulatedRun(
      id,
      orgId,
      admission.userId,
      call.now,
      {
        prompt: input.prompt ?? '',
        images: null,
        repo_id: input.repo_id,
        model: null,
        agent_type: null,
        metadata: null
      },
      `${this.webBaseUrl}/agent/trace/${id}`,
      this.queuedScripts.shift() ?? scenario('setup-commands', this.speed),
      'SETUP_COMMANDS'
    )
    this.runsById.set(id, run)
    return json({ agent_run_id: id, status: 'ACTIVE', url: run.webUrl } satisfies SetupCommandsResponse)
  }
}
