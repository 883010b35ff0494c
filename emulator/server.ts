import type { Server } from 'node:http'
import { GITHUB_INACTIVE, json, NO_REPOS_FOUND, serviceError, type Answer } from './answers.js'
import { close, listen, systemServerClock, type ServerClock } from './loopback-server.js'
import { FaultPlan } from './faults.js'
import { DOCUMENTED_RATE_LIMITS, SlidingWindowLimiter } from './rate-limits.js'
import { defaultRepos } from './repos.js'
import {
  PENDING_MS,
  pendingFirst,
  resumeRefusal,
  userMessage,
  withExtraStatuses,
  type ModeName
} from './modes.js'
import { checkScript, EmulatedRun, type RunInput } from './runs.js'
import { OrganizationRoutes } from './organization-routes.js'
import { receive, type Receiver } from './receive.js'
import { admit, type Gate } from './admission.js'
import { RunReads } from './run-reads.js'
import { AGENT_TYPES, LOG_PATH_OF, pathIds, SOURCE_TYPES, type Admission, type Call } from './routes.js'
import { scenario, scenarioDirective } from './scenarios.js'
import type {
  EmulatedOrganization,
  EmulatedRunView,
  SetupCommandsResponse,
  EmulatorOptions,
  FaultRule,
  LogPathName,
  RecordedRequest,
  Repo,
  RunScript,
  SeededRun
} from './types.js'
import { Validator } from './validation.js'

/**
 * The Agent Run service on a loopback port: the routes of the interface and OpenAPI documents with
 * their auth, validation, pagination, rate limits and error bodies, runs that follow scripts, and
 * injectable faults. Runs live in memory for the life of the object. Here: the runs and the routes
 * that start them; apart: receive.ts (HTTP), admission.ts, run-reads.ts, organization-routes.ts.
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

  private readonly organizationRoutes: OrganizationRoutes
  private readonly runReads: RunReads
  private readonly receiver: Receiver
  private readonly gate: Gate
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
    this.organizationRoutes = new OrganizationRoutes({
      tokens: this.tokens,
      organizations: this.organizations,
      repos: this.repos,
      modes: this.modes,
      admit: (call, orgId) => this.admit(call, orgId)
    })
    this.gate = { tokens: this.tokens, limiter: this.limiter, retryAfterHeader: this.retryAfterHeader }
    this.receiver = {
      clock: this.clock,
      requests: this.requests,
      faults: this.faults,
      stopping: () => this.stopping.signal,
      onAnswer: this.onAnswer,
      handle: call => this.handle(call)
    }
    this.runReads = new RunReads({
      runsById: this.runsById,
      modes: this.modes,
      admit: (call, orgId) => this.admit(call, orgId)
    })
  }

  /** Listens (default: any free port on 127.0.0.1) and resolves to the base URL. */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) throw new Error(`The emulator is already listening on ${this.url}`)
    const { server, url } = await listen(
      (request, response) => receive(this.receiver, request, response),
      port,
      host
    )
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
        return this.runReads.stopRun(call)
      case 'get':
        return this.runReads.getRun(call)
      case 'logs':
      case 'logs-alpha':
        return this.runReads.getLogs(call)
      case 'list-runs':
        return this.runReads.listRuns(call)
      case 'repos':
        return this.organizationRoutes.listRepos(call)
      case 'organizations':
        return this.organizationRoutes.listOrganizations(call)
      case 'me':
        return this.organizationRoutes.currentUser(call)
      case 'users':
        return this.organizationRoutes.listUsers(call)
      case 'user':
        return this.organizationRoutes.getUser(call)
      case 'integrations':
        return this.organizationRoutes.integrations(call)
      case 'setup-commands':
        return this.generateSetupCommands(call)
    }
  }

  /** Auth, rate limits and organization access (admission.ts). */
  private admit(call: Call, orgId: number | undefined): Admission {
    return admit(this.gate, call, orgId)
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
    const { orgId } = pathIds(v, call)
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
    const { orgId } = pathIds(v, call)
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

  /** A run of the setup-commands scenario (or a queued script), source_type SETUP_COMMANDS. */
  private generateSetupCommands(call: Call): Answer {
    const v = new Validator()
    const { orgId } = pathIds(v, call)
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
