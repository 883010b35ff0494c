/**
 * Types of the Agent Run service emulator: the wire shapes (as the OpenAPI document's schemas name
 * them, fields in the same order) and the emulator's own script, fault and option types.
 */

import type { ModeName } from './modes.js'
import type { ServerClock } from './loopback-server.js'

// ---------------------------------------------------------------------------------------------
// Wire types

/** GithubPullRequestResponse. The live service may add fields (state, merged) beyond these. */
export interface PullRequest {
  id: number
  title: string | null
  url: string | null
  created_at: string
  head_branch_name: string | null
  state?: string
  merged?: boolean
}

/** AgentRunResponse. */
export interface AgentRun {
  id: number
  organization_id: number
  status: string | null
  created_at: string | null
  web_url: string | null
  result: string | null
  summary: string | null
  source_type: string | null
  github_pull_requests: PullRequest[] | null
  metadata: Record<string, unknown> | null
}

/** AgentRunLogResponse. */
export interface LogEntry {
  agent_run_id: number
  created_at: string | null
  tool_name: string | null
  message_type: string | null
  thought: string | null
  observation: Record<string, unknown> | string | null
  tool_input: Record<string, unknown> | null
  tool_output: Record<string, unknown> | null
}

/** AgentRunWithLogsResponse: some of the run's fields, and one page of its log. */
export interface AgentRunWithLogs {
  id: number
  organization_id: number
  status: string | null
  created_at: string | null
  web_url: string | null
  result: string | null
  metadata: Record<string, unknown> | null
  logs: LogEntry[]
  total_logs: number | null
  page: number | null
  size: number | null
  pages: number | null
}

/** RepoResponse (every field is required in the schema, nullable ones included). */
export interface Repo {
  id: number
  name: string
  full_name: string
  description: string | null
  github_id: string
  organization_id: number
  visibility: string | null
  archived: boolean | null
  setup_status: string
  language: string | null
}

/** OrganizationResponse. */
export interface Organization {
  id: number
  name: string
  settings: { enable_pr_creation: boolean; enable_rules_detection: boolean }
}

/** UserResponse. */
export interface User {
  id: number
  email: string | null
  github_user_id: string
  github_username: string
  avatar_url: string | null
  full_name: string | null
  role: string | null
  is_admin: boolean | null
}

/** IntegrationStatus. */
export interface IntegrationStatus {
  integration_type: string
  active: boolean
  token_id: number | null
  installation_id: number | null
  metadata: Record<string, unknown> | null
}

/** OrganizationIntegrationsResponse. */
export interface OrganizationIntegrations {
  organization_id: number
  organization_name: string
  integrations: IntegrationStatus[]
  total_active_integrations: number
}

/** SetupCommandsResponse. */
export interface SetupCommandsResponse {
  agent_run_id: number
  status: string
  url: string
}

/** Page_*_: fastapi-pagination's page. */
export interface Page<T> {
  items: T[]
  total: number
  page: number
  size: number
  pages: number
}

/** The custom error body of the live service: `{"message": ..., "status_code": ...}`. */
export interface ServiceErrorBody {
  message: string
  status_code: number
}

/** One element of FastAPI's 422 body `{"detail": [...]}`. */
export interface ValidationIssue {
  type: string
  loc: Array<string | number>
  msg: string
  input: unknown
  ctx?: Record<string, unknown>
}

// ---------------------------------------------------------------------------------------------
// Scripted runs

/** A pull request in a script; created_at defaults to the moment the step applies. */
export type ScriptPullRequest = Omit<PullRequest, 'created_at'> & { created_at?: string }

/** One moment of a scripted run. Only the fields present change anything. */
export interface ScriptStep {
  /** ms after the run was created (or, for a resume's script, after the resume plus its staleness). */
  at: number
  /** Becomes the run's status at that moment. */
  status?: string | null
  /** Appended to the run's log at that moment; agent_run_id and created_at filled in when absent. */
  log?: Partial<LogEntry>
  result?: string | null
  summary?: string | null
  /** Replaces github_pull_requests. */
  pullRequests?: ScriptPullRequest[]
}

export interface RunScript {
  steps: ScriptStep[]
  /** On resume: keep reporting the old status (and result) this long before the script starts. */
  staleAfterResumeMs?: number
  /**
   * The scripts of this run's next resumes, in order (an agent that answers its follow-ups its own
   * way); past them, or when none, the server picks one as for any resume.
   */
  followUps?: RunScript[]
}

// ---------------------------------------------------------------------------------------------
// Requests, faults and options

export type RouteName =
  | 'create'
  | 'get'
  | 'resume'
  | 'stop'
  | 'logs'
  | 'logs-alpha'
  | 'list-runs'
  | 'repos'
  | 'organizations'
  | 'me'
  | 'users'
  | 'user'
  | 'integrations'
  | 'setup-commands'

export interface RecordedRequest {
  /** Clock time of arrival. */
  at: number
  method: string
  /** The path without the query string. */
  path: string
  route: RouteName | 'unknown'
  /** Query parameters (the last value of a repeated one, as FastAPI reads it). */
  query: Record<string, string>
  /** The JSON body, or its raw text when it is not JSON; undefined when there is none. */
  body: unknown
  authorization: string | undefined
  /** The status the emulator produced; 0 when the request was never handled (reset-before). */
  status: number
  /** The kind of the fault that hit the request, if one did. */
  fault?: Fault['kind']
  /** The Retry-After header of the answer, in seconds, when it had one. */
  retryAfter?: number
  /** A log read: how many entries its answer carried, once the answer went out whole and on time. */
  served?: number
}

export type Fault =
  /** Answer with this status instead of handling the request (no side effect). */
  | { kind: 'status'; status: number; body?: unknown; retryAfter?: number }
  /** Destroy the socket before the request is handled (no side effect). */
  | { kind: 'reset-before' }
  /** Handle the request (side effects happen), then destroy the socket without answering. */
  | { kind: 'reset-after' }
  /** Handle the request, then answer after delayMs. */
  | { kind: 'slow'; delayMs: number }
  /**
   * Handle the request delayMs after it arrived (its side effects then: a run created or resumed
   * late), then answer. A client that gave up meanwhile does not stop it: the service's handler runs
   * to its end, as a web server's does when its client goes away.
   */
  | { kind: 'late'; delayMs: number }
  /** Handle the request, then answer 200 with a body that is not JSON. */
  | { kind: 'malformed' }
  /** Handle the request, then answer 200 with the first half of the JSON body. */
  | { kind: 'truncated' }
  /** Handle the request, then transform its JSON body before sending it (ALPHA endpoint drift). */
  | {
      kind: 'drift'
      mutate: (body: Record<string, unknown>, query: Record<string, string>) => Record<string, unknown>
    }
  /**
   * Hostile: handle the request, then answer 200 with a JSON body of `bytes` bytes (one long string
   * field), streamed in chunks so the emulator itself never holds it.
   */
  | { kind: 'huge'; bytes: number }
  /** Hostile: answer with a redirect (no side effect) to `location`. */
  | { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; location: string }

export interface FaultRule {
  /** Default: any route. */
  route?: RouteName | RouteName[]
  /** How many matching requests it hits; default 1. */
  times?: number
  /** Skip this many matching requests first; default 0. */
  after?: number
  fault: Fault
}

export interface RateLimitWindow {
  limit: number
  windowMs: number
}

export interface RateLimitConfig {
  /** Every request. */
  general: RateLimitWindow
  /** Creates, in addition to general. */
  create: RateLimitWindow
  /** Log reads on either path, in addition to general. */
  logs: RateLimitWindow
  /** Setup-command generations, in addition to general; default the documented 5 a minute. */
  setup?: RateLimitWindow
}

export type LogPathName = 'interface' | 'alpha'

/** An organization of the emulated service. */
export interface EmulatedOrganization {
  id: number
  name: string
  /** Whether its GitHub integration is active; default true. When not, creates answer 403. */
  githubIntegration?: boolean
}

export interface EmulatorOptions {
  /**
   * Bearer token -> ids of the organizations it may access. Default `{ 'emulator-token': [1] }`.
   * Each token stands for one user (ids 1, 2, ... in this order; the first is octocat).
   */
  tokens?: Record<string, number[]>
  /** Names and integrations of the organizations; default organization 1, "Octo Org". Ids the
   * tokens name without an entry here are called "Organization N". */
  organizations?: EmulatedOrganization[]
  /** Default: three repositories of organization 1 (octo-org/octo-repo is 101). */
  repos?: Repo[]
  /** With the default repositories: put 147 filler repositories before them (a second page). */
  manyRepos?: boolean
  /** Default: DOCUMENTED_RATE_LIMITS, per token; the windows given replace those documented. false
   * turns rate limiting off. */
  rateLimits?: Partial<RateLimitConfig> | false
  /** Where the service may answer otherwise (emulator/modes.ts); default none. */
  modes?: ModeName[]
  /** How long a new run stays PENDING in the `pending-start` mode; default 1.5 s over `speed`. */
  pendingMs?: number
  /** Which log endpoints answer; default both. A disabled one answers 404 as an unknown route. */
  logPaths?: LogPathName[]
  /** Scenario of runs for which nothing was queued and the prompt names none; default 'success'. */
  defaultScenario?: string
  /** Time compression of the scenarios chosen by name (not of queued scripts); default 1. */
  speed?: number
  /** Creates allowed before 402; default unlimited. */
  runAllowance?: number
  /** Send Retry-After (seconds) with 429s; default false, as the live service documents none. */
  retryAfterHeader?: boolean
  /** Default 'https://app.codegen.com'; web_url is `${webBaseUrl}/agent/trace/${id}`. */
  webBaseUrl?: string
  /**
   * Its time: now, and the waits of slow answers; default the system's. A test shares its virtual
   * clock with the action (emulator/loopback-server.ts says how).
   */
  clock?: ServerClock
  /** Default 1000. */
  firstRunId?: number
  /**
   * Called with every answer as it is decided (before faults that rewrite or cut it): the JSON
   * value, or the text of one that is not JSON. The emulator's tests check each against OpenAPI.
   */
  onAnswer?: (request: RecordedRequest, body: unknown) => void
}

/**
 * A run of someone else (another job, repository or person) put in the emulator without a request:
 * what the list of the organization's runs shows beside the step's own (daily limits, fan-outs).
 */
export interface SeededRun {
  /** How long before the emulator's clock's now the run was created, in ms (>= 0); default 0. */
  ageMs?: number
  /** Its metadata, as its creator sent it; default null. */
  metadata?: Record<string, unknown> | null
  /** The user who created it (what list-runs' user_id filters on); default 1, the first token's. */
  userId?: number
  /** Default 1. */
  organizationId?: number
  /** One of ApiAgentRunSourceType's values; default 'API'. */
  sourceType?: string
  /** Default 'Another job'. */
  prompt?: string
  /**
   * What it did from its creation on; default the default scenario at the emulator's speed (so a run
   * created a day ago has long ended).
   */
  script?: RunScript
}

/** A follow-up prompt the run was resumed with. */
export interface ResumeRecord {
  at: number
  prompt: string
  images: string[] | null
}

/** A run as the service would show it now, with what it was created from, for tests to inspect. */
export interface EmulatedRunView extends AgentRun {
  prompt: string
  images: string[] | null
  repo_id: number | null
  model: string | null
  agent_type: string | null
  /** The user (one per token) that created the run; what list-runs' user_id filters on. */
  user_id: number
  resumes: ResumeRecord[]
  /** Every log entry revealed so far. */
  logs: LogEntry[]
}
