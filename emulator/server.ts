import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import {
  faultAnswer,
  GITHUB_INACTIVE,
  json,
  NO_REPOS_FOUND,
  pageOf,
  serviceError,
  type Answer
} from './answers.js'
import { deliver } from './delivery.js'
import { close, listen, systemServerClock, type ServerClock } from './loopback-server.js'
import { FaultPlan } from './faults.js'
import { DOCUMENTED_RATE_LIMITS, SlidingWindowLimiter } from './rate-limits.js'
import { defaultRepos } from './repos.js'
import {
  MEMBERS_ADMIN_ONLY,
  PENDING_MS,
  pendingFirst,
  resumeRefusal,
  userMessage,
  withExtraStatuses,
  type ModeName
} from './modes.js'
import { checkScript, EmulatedRun, type RunInput } from './runs.js'
import { AGENT_TYPES, EXTRA_WINDOWS, LOG_PATH_OF, matchRoute, SOURCE_TYPES, type Call } from './routes.js'
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
  RecordedRequest,
  Repo,
  RunScript,
  SeededRun
} from './types.js'
import { readBody, recordedBody, Validator, type RequestBody } from './validation.js'

// ---------------------------------------------------------------------------------------------
// The emulator

type Admission = { admitted: true; userId: number } | { admitted: false; answer: Answer }

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
  private readonly clock: ServerClock
  private readonly modes: ReadonlySet<ModeName>
  private readonly pendingMs: number
  private readonly onAnswer: EmulatorOptions['onAnswer']

  private readonly runsById = new Map<number, EmulatedRun>()
  private readonly queuedScripts: RunScript[] = []
  private readonly faults = new FaultPlan()
  private nextRunId: number
  private server: Server | undefined
  private url: string | undefined
  /** Aborted on stop: answers held back by `slow` faults are never sent. */
  private stopping = new AbortController()

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
    this.clock = options.clock ?? systemServerClock()
    this.nextRunId = options.firstRunId ?? 1000
    this.onAnswer = options.onAnswer
    this.modes = new Set(options.modes ?? [])
    this.pendingMs = options.pendingMs ?? Math.round(PENDING_MS / this.speed)
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
    this.stopping.abort(new Error('the emulator stopped'))
    this.stopping = new AbortController()
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
   * A run of another job on the same organization, created now as if through the API but without a
   * request (no fault, no rate limit, no queued script): the fault suite's neighbours of the step's run.
   */
  addRun(metadata: Record<string, unknown> | null, script?: RunScript): number {
    return this.seedRun({ metadata, script })
  }

  /**
   * A run created earlier (`ageMs` before the emulator's clock's now) by someone else, without a
   * request: no fault, rate limit, allowance or queued script applies. Its script unfolds from its
   * creation, so one seeded a day old has long ended. Seed before the step starts, so ids grow with
   * creation times as on the service (the list orders by creation time either way). Returns its id.
   */
  seedRun(seed: SeededRun = {}): number {
    const ageMs = seed.ageMs ?? 0
    if (!Number.isFinite(ageMs) || ageMs < 0) throw new Error(`seedRun: ageMs must be >= 0, got ${ageMs}`)
    const sourceType = seed.sourceType ?? 'API'
    if (!(SOURCE_TYPES as readonly string[]).includes(sourceType))
      throw new Error(`seedRun: unknown sourceType "${sourceType}", one of ${SOURCE_TYPES.join(', ')}`)
    const script = seed.script ?? scenario(this.defaultScenario, this.speed)
    checkScript(script)
    const input: RunInput = {
      prompt: seed.prompt ?? 'Another job',
      images: null,
      repo_id: null,
      model: null,
      agent_type: null,
      // A copy: what the test goes on to do with its object is not the service's.
      metadata: seed.metadata ? structuredClone(seed.metadata) : null
    }
    const id = this.nextRunId++
    const { organizationId = 1, userId = 1 } = seed
    const createdAt = this.clock.now() - ageMs
    const webUrl = `${this.webBaseUrl}/agent/trace/${id}`
    this.runsById.set(
      id,
      new EmulatedRun(id, organizationId, userId, createdAt, input, webUrl, script, sourceType)
    )
    return id
  }

  /** The run as the service would show it now, with its inputs and every log entry revealed so far. */
  run(id: number): EmulatedRunView | undefined {
    return this.runsById.get(id)?.view(this.clock.now())
  }

  /** Every run, oldest first. */
  runs(): EmulatedRunView[] {
    const now = this.clock.now()
    return [...this.runsById.values()].map(run => run.view(now))
  }

  // -- HTTP plumbing

  private receive(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://emulator')
    const query: Record<string, string> = {}
    // FastAPI reads the last value of a repeated query parameter.
    for (const [name, value] of url.searchParams) query[name] = value
    const match = matchRoute(request.method ?? 'GET', url.pathname)
    const record: RecordedRequest = {
      at: this.clock.now(),
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
      if (fault?.kind !== 'late') return this.answer(request, response, record, match, fault, body)
      // Done late, whether its client still waits or not: a stopped emulator never does it.
      this.clock.hold(request, this.clock.sleep(fault.delayMs, this.stopping.signal)).then(
        () => this.answer(request, response, record, match, fault, body),
        () => undefined
      )
    })
  }

  /** Handles a request whose body was read (or answers as its fault says), and sends the answer. */
  private answer(
    request: IncomingMessage,
    response: ServerResponse,
    record: RecordedRequest,
    match: ReturnType<typeof matchRoute>,
    fault: Fault | undefined,
    body: RequestBody
  ): void {
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
        query: record.query,
        body,
        authorization: record.authorization,
        now: this.clock.now()
      }
      answer = this.handle(call)
    }
    record.status = answer.status
    const retryAfter = answer.headers?.['retry-after']
    if (retryAfter !== undefined) record.retryAfter = Number(retryAfter)
    this.onAnswer?.(record, answer.value ?? answer.text)
    deliver(response, answer, fault, record, (ms: number) =>
      this.clock.hold(request, this.clock.sleep(ms, this.stopping.signal))
    )
  }

  // -- the service

  /** FastAPI's answer when the service lacks the route: a log path not there, or the stop path's modes. */
  private missingRoute(call: Call): Answer | undefined {
    const logPath = LOG_PATH_OF[call.route.name]
    if (logPath && !this.logPaths.includes(logPath)) return json({ detail: 'Not Found' }, 404)
    if (call.route.name !== 'stop') return undefined
    if (this.modes.has('no-stop')) return json({ detail: 'Not Found' }, 404)
    if (this.modes.has('stop-405')) return json({ detail: 'Method Not Allowed' }, 405, { allow: 'GET' })
    return undefined
  }

  private handle(call: Call): Answer {
    const missing = this.missingRoute(call)
    if (missing) return missing
    switch (call.route.name) {
      case 'create':
        return this.createRun(call)
      case 'resume':
        return this.resumeRun(call)
      case 'stop':
        return this.stopRun(call)
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

  /**
   * A queued script first; else, for a resume, the run's own follow-up; else the scenario the prompt names;
   * else the default scenario. Then the modes that change scripts: extra statuses, a pending start.
   */
  private nextScript(prompt: string, start: 'create' | 'resume', resumed?: EmulatedRun): RunScript {
    let script =
      this.queuedScripts.shift() ??
      resumed?.nextFollowUp() ??
      scenario(scenarioDirective(prompt) ?? this.defaultScenario, this.speed)
    if (this.modes.has('extra-statuses')) script = withExtraStatuses(script)
    if (start === 'create' && this.modes.has('pending-start')) script = pendingFirst(script, this.pendingMs)
    return script
  }

  /** The mode that refuses resuming a run that is not paused, if one is on. */
  private resumePausedOnly(): 'resume-paused-only' | 'resume-paused-only-400' | undefined {
    if (this.modes.has('resume-paused-only-400')) return 'resume-paused-only-400'
    return this.modes.has('resume-paused-only') ? 'resume-paused-only' : undefined
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
      this.nextScript(input.prompt, 'create')
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
    const pausedOnly = this.resumePausedOnly()
    const { status } = run.response(call.now)
    if (pausedOnly && status?.toUpperCase() !== 'PAUSED') {
      const refusal = resumeRefusal(pausedOnly, run.id, status)
      return json(refusal.body, refusal.status)
    }
    const entry = this.modes.has('resume-user-message') ? userMessage(input.prompt) : undefined
    run.resume(this.nextScript(input.prompt, 'resume', run), input.prompt, input.images, call.now, entry)
    return json(run.response(call.now))
  }

  /**
   * The beta stop path, which no published document describes (see routes.ts). Its body is read as
   * StopAgentRunInput, the published ban path's body, which names the run the same way. Its answer
   * is not documented either: 200 with the run as a GET then shows it, as Codegen's Raycast client
   * types it (AgentRunResponse). A run that has ended is left as it is, with the same 200: a stop
   * retried after a lost answer, or one that crossed the run's own ending, is no error, and the
   * caller sees the status either way. Counts in the general rate window only.
   */
  private stopRun(call: Call): Answer {
    const v = new Validator()
    const { orgId } = this.pathIds(v, call)
    const body = v.bodyObject(call.body)
    // In StopAgentRunInput's field order; the card order keys are read and ignored.
    const runId = body && v.requiredInteger(body, 'agent_run_id')
    if (body) {
      v.optionalString(body, 'before_card_order_id')
      v.optionalString(body, 'after_card_order_id')
    }
    if (v.failed || runId === undefined) return json(v.body, 422)

    const admission = this.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const run = this.findRun(orgId, runId)
    if (!run) return serviceError(404)
    run.stop(call.now, this.modes.has('stop-cancelled') ? 'CANCELLED' : 'STOPPED')
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
      .filter(
        run =>
          run.organizationId === orgId &&
          (userId === null || run.userId === userId) &&
          (sourceType === null || run.sourceType === sourceType)
      )
      // Newest first by creation date, as the document says; a run seeded as older may have a larger id.
      .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
    const page = pageOf(runs, skip, limit)
    // Only the page's runs are worked out at this moment.
    return json({ ...page, items: page.items.map(run => run.response(call.now)) })
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

  /** `members-admin-only`: the refusal of a member read to a token that is not an admin. */
  private membersRefused(userId: number, orgId: number): Answer | undefined {
    if (!this.modes.has('members-admin-only') || this.user(userId, orgId).is_admin) return undefined
    return serviceError(403, MEMBERS_ADMIN_ONLY)
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
    const refused = this.membersRefused(admission.userId, orgId)
    if (refused) return refused
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
    const refused = this.membersRefused(admission.userId, orgId)
    if (refused) return refused
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
