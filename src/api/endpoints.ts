import type { BudgetName } from './rate-budget.js'
import type { Effect } from './retry.js'
import type { HttpMethod } from './transport.js'
import {
  parseIntegrations,
  parseLogPage,
  parseOrganization,
  parsePage,
  parseRepo,
  parseRun,
  parseRunIfAny,
  parseSetupCommandsAnswer,
  parseUser
} from './parse.js'
import type {
  CreateRunRequest,
  LogPage,
  Page,
  ResumeRunRequest,
  RunFilter,
  SetupCommandsRequest
} from './types.js'

/** The two published paths of the ALPHA log endpoint. */
export type LogPath = 'interface' | 'alpha'

/** One call of the service: where it goes, what it costs, whether it writes, how its answer is read. */
export interface Endpoint<T> {
  method: HttpMethod
  path: string
  query?: Record<string, string | number>
  body?: unknown
  budgets: BudgetName[]
  /** What sending it again does: a write may not be repeated when its fate is unknown (retry.ts). */
  effect: Effect
  /**
   * A path no published document describes (the beta stop path): a 404 or 405 means the service
   * has no such endpoint (UnsupportedEndpointError), and any 2xx answer ends the call, its body
   * handed to `parse` when it is JSON and as undefined when it is not.
   */
  undocumented?: boolean
  /** What the action was doing, for error messages ("create the agent run"). */
  what: string
  /** Below the client's cap. */
  maxBytes?: number
  parse: (body: unknown, size: number) => T
}

/**
 * A page of the log: far less than the client's cap, as every page is parsed, redacted, mirrored and
 * written in turn. The log reader asks for fewer entries when they are large (pages of about 1 MiB).
 */
export const MAX_LOG_PAGE_BYTES = 8 * 1024 * 1024

const org = (orgId: number): string => `/v1/organizations/${orgId}`

const read = <T>(
  path: string,
  what: string,
  parse: Endpoint<T>['parse'],
  more: Partial<Endpoint<T>> = {}
): Endpoint<T> => ({ method: 'GET', path, budgets: ['general'], effect: 'read', what, parse, ...more })

const write = <T>(
  path: string,
  body: unknown,
  budgets: BudgetName[],
  what: string,
  parse: Endpoint<T>['parse']
): Endpoint<T> => ({ method: 'POST', path, body, budgets, effect: 'write', what, parse })

const pageOf =
  <T>(item: (raw: unknown) => T | undefined) =>
  (body: unknown): Page<T> =>
    parsePage(body, item)

/** The two faces of the client (client.ts): following runs, and the organization's setup. */
export type Face = 'runs' | 'organization'

/** The runs the action starts: listRuns' filter when none is given. */
export const API_RUNS: RunFilter = { source_type: 'API' }

/**
 * A row: the call's request from the organization's id and the client method's own arguments (the
 * call options follow them). Its parameters have no default values (eslint says so): the client
 * finds the call options after the row's `length` of them.
 */
function row<const F extends Face, A extends unknown[], T>(
  faces: readonly F[],
  request: (orgId: number, ...args: A) => Endpoint<T>
): ((orgId: number, ...args: A) => Endpoint<T>) & { faces: readonly F[] } {
  return Object.assign(request, { faces })
}

const RUNS = ['runs'] as const
const ORGANIZATION = ['organization'] as const

/**
 * Every call the action makes, by the client method that makes it: the one place a call is
 * spelled. The client's methods and interfaces are derived from it (client.ts); the emulator
 * answers every row (test/unit/api/endpoints.ts holds both).
 */
export const endpoints = {
  createRun: row(RUNS, (orgId: number, body: CreateRunRequest) =>
    write(`${org(orgId)}/agent/run`, body, ['general', 'create'], 'create the agent run', parseRun)
  ),
  resumeRun: row(RUNS, (orgId: number, body: ResumeRunRequest) =>
    write(
      `${org(orgId)}/agent/run/resume`,
      body,
      ['general'],
      `resume agent run ${body.agent_run_id}`,
      parseRun
    )
  ),
  /**
   * Asks the service to stop a run, through the beta path Codegen's own client uses (no published
   * document describes it). Safe to send again. Its answer is undocumented: the run when it reads
   * as one, else undefined; read the run afterwards for its status. UnsupportedEndpointError when
   * the service has no such path (404, 405); other refusals are ServiceErrors as for any call.
   */
  stopRun: row(RUNS, (orgId: number, runId: number) => ({
    ...write(
      `/v1/beta/organizations/${orgId}/agent/run/stop`,
      { agent_run_id: runId },
      ['general'],
      `stop agent run ${runId}`,
      parseRunIfAny
    ),
    effect: 'repeatable-write' as const,
    undocumented: true
  })),
  getRun: row(RUNS, (orgId: number, runId: number) =>
    read(`${org(orgId)}/agent/run/${runId}`, `read agent run ${runId}`, parseRun)
  ),
  getLogs: row(RUNS, (orgId: number, runId: number, path: LogPath, skip: number, limit: number) =>
    read(
      `${path === 'alpha' ? `/v1/alpha/organizations/${orgId}` : org(orgId)}/agent/run/${runId}/logs`,
      `read the log of agent run ${runId}`,
      (body, size): LogPage => ({ ...parseLogPage(body, runId), bytes: size }),
      { query: { skip, limit }, budgets: ['general', 'logs'], maxBytes: MAX_LOG_PAGE_BYTES }
    )
  ),
  listRepos: row(['runs', 'organization'], (orgId: number, skip: number, limit: number) =>
    read(`${org(orgId)}/repos`, 'list the organization repositories', pageOf(parseRepo), {
      query: { skip, limit }
    })
  ),
  /**
   * The organization's runs, newest first; `filter` (default API_RUNS, the action's own kind)
   * replaces the default: `{}` lists every run.
   */
  listRuns: row(RUNS, (orgId: number, skip: number, limit: number, filter?: RunFilter) => {
    const { source_type, user_id } = filter ?? API_RUNS
    return read(`${org(orgId)}/agent/runs`, 'list agent runs', pageOf(parseRun), {
      query: {
        skip,
        limit,
        ...(source_type === undefined ? {} : { source_type }),
        ...(user_id === undefined ? {} : { user_id })
      }
    })
  }),
  /** The token's organizations (not scoped to the client's org id). */
  listOrganizations: row(ORGANIZATION, (_orgId: number, skip: number, limit: number) =>
    read('/v1/organizations', "list the token's organizations", pageOf(parseOrganization), {
      query: { skip, limit }
    })
  ),
  /** The token's user. */
  getCurrentUser: row(ORGANIZATION, (_orgId: number) =>
    read('/v1/users/me', "read the token's user", parseUser)
  ),
  /** One user of the organization (with their role in it). */
  getUser: row(ORGANIZATION, (orgId: number, userId: number) =>
    read(`${org(orgId)}/users/${userId}`, `read user ${userId}`, parseUser)
  ),
  getIntegrations: row(ORGANIZATION, (orgId: number) =>
    read(`${org(orgId)}/integrations`, "read the organization's integrations", parseIntegrations)
  ),
  /** Starts the run that generates a repository's setup commands (5 a minute). */
  generateSetupCommands: row(ORGANIZATION, (orgId: number, body: SetupCommandsRequest) =>
    write(
      `${org(orgId)}/setup-commands/generate`,
      body,
      ['general', 'setup'],
      `generate the setup commands of repository ${body.repo_id}`,
      parseSetupCommandsAnswer
    )
  )
}

export type Endpoints = typeof endpoints
