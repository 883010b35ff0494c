import type { BudgetName } from './rate-budget.js'
import type { Effect } from './retry.js'
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

/** The two published paths of the ALPHA log endpoint. */
export type LogPath = 'interface' | 'alpha'

/** One call of the service: where it goes, what it costs, whether it writes, how its answer is read. */
export interface Endpoint<T> {
  method: 'GET' | 'POST'
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

/** Every call the action makes, by the client method that makes it. */
export const endpoints = {
  createRun: (orgId: number, body: CreateRunRequest): Endpoint<AgentRun> =>
    write(`${org(orgId)}/agent/run`, body, ['general', 'create'], 'create the agent run', parseRun),
  resumeRun: (orgId: number, body: ResumeRunRequest): Endpoint<AgentRun> =>
    write(
      `${org(orgId)}/agent/run/resume`,
      body,
      ['general'],
      `resume agent run ${body.agent_run_id}`,
      parseRun
    ),
  stopRun: (orgId: number, runId: number): Endpoint<AgentRun | undefined> => ({
    ...write(
      `/v1/beta/organizations/${orgId}/agent/run/stop`,
      { agent_run_id: runId },
      ['general'],
      `stop agent run ${runId}`,
      parseRunIfAny
    ),
    effect: 'repeatable-write',
    undocumented: true
  }),
  getRun: (orgId: number, runId: number): Endpoint<AgentRun> =>
    read(`${org(orgId)}/agent/run/${runId}`, `read agent run ${runId}`, parseRun),
  getLogs: (orgId: number, runId: number, path: LogPath, skip: number, limit: number): Endpoint<LogPage> =>
    read(
      `${path === 'alpha' ? `/v1/alpha/organizations/${orgId}` : org(orgId)}/agent/run/${runId}/logs`,
      `read the log of agent run ${runId}`,
      (body, size) => ({ ...parseLogPage(body, runId), bytes: size }),
      { query: { skip, limit }, budgets: ['general', 'logs'], maxBytes: MAX_LOG_PAGE_BYTES }
    ),
  listRepos: (orgId: number, skip: number, limit: number): Endpoint<Page<Repo>> =>
    read(`${org(orgId)}/repos`, 'list the organization repositories', pageOf(parseRepo), {
      query: { skip, limit }
    }),
  listRuns: (orgId: number, skip: number, limit: number, filter: RunFilter): Endpoint<Page<AgentRun>> =>
    read(`${org(orgId)}/agent/runs`, 'list agent runs', pageOf(parseRun), {
      query: {
        skip,
        limit,
        ...(filter.source_type === undefined ? {} : { source_type: filter.source_type }),
        ...(filter.user_id === undefined ? {} : { user_id: filter.user_id })
      }
    }),
  listOrganizations: (skip: number, limit: number): Endpoint<Page<Organization>> =>
    read('/v1/organizations', "list the token's organizations", pageOf(parseOrganization), {
      query: { skip, limit }
    }),
  getCurrentUser: (): Endpoint<User> => read('/v1/users/me', "read the token's user", parseUser),
  getUser: (orgId: number, userId: number): Endpoint<User> =>
    read(`${org(orgId)}/users/${userId}`, `read user ${userId}`, parseUser),
  getIntegrations: (orgId: number): Endpoint<OrganizationIntegrations> =>
    read(`${org(orgId)}/integrations`, "read the organization's integrations", parseIntegrations),
  generateSetupCommands: (orgId: number, body: SetupCommandsRequest): Endpoint<SetupCommandsAnswer> =>
    write(
      `${org(orgId)}/setup-commands/generate`,
      body,
      ['general', 'setup'],
      `generate the setup commands of repository ${body.repo_id}`,
      parseSetupCommandsAnswer
    )
}
