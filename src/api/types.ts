/** Wire types of the Agent Run service, as its OpenAPI document and interface document describe them. */

export interface PullRequest {
  id: number
  title?: string | null
  url?: string | null
  created_at?: string | null
  head_branch_name?: string | null
  /** The live service may add fields (state, merged); they are kept as they come. */
  [extra: string]: unknown
}

export interface AgentRun {
  id: number
  organization_id: number
  status?: string | null
  created_at?: string | null
  web_url?: string | null
  result?: string | null
  summary?: string | null
  source_type?: string | null
  github_pull_requests?: PullRequest[] | null
  metadata?: Record<string, unknown> | null
}

export interface LogEntry {
  agent_run_id: number
  created_at?: string | null
  message_type?: string | null
  thought?: string | null
  tool_name?: string | null
  tool_input?: unknown
  tool_output?: unknown
  /** Object, text or null: the ALPHA endpoint is not consistent about it. */
  observation?: unknown
}

/** One page of the log endpoint: the run's status travels with the entries. */
export interface LogPage {
  status: string | null
  logs: LogEntry[]
  /** May lag behind or run ahead of the entries the endpoint actually serves. */
  totalLogs: number | null
  /** The run's result, which travels with the entries too (undefined: the page did not say). */
  result?: string | null
  /** Size of the answer in characters, when read over HTTP: the log reader sizes its pages by it. */
  bytes?: number
  /** The page was as long as asked for (the reader may ask for fewer than its caller did). */
  full?: boolean
}

export interface Page<T> {
  items: T[]
  /**
   * How many items the service sent, those that could not be read (left out of `items`) included:
   * whether the page was full. Absent, as many as `items`.
   */
  sent?: number
  total: number
  page: number
  size: number
  pages: number
}

/** ApiAgentRunSourceType: where a run was started from (the action's runs are API's). */
export type RunSourceType =
  | 'LOCAL'
  | 'SLACK'
  | 'GITHUB'
  | 'GITHUB_CHECK_SUITE'
  | 'GITHUB_PR_REVIEW'
  | 'LINEAR'
  | 'API'
  | 'CHAT'
  | 'JIRA'
  | 'CLICKUP'
  | 'MONDAY'
  | 'SETUP_COMMANDS'

/** The filters of the list of an organization's runs, named as the OpenAPI document names them. */
export interface RunFilter {
  source_type?: RunSourceType
  /** The Codegen user who started the runs. */
  user_id?: number
}

export interface Repo {
  id: number
  full_name: string
  name?: string
}

export interface CreateRunRequest {
  prompt: string
  repo_id?: number
  images?: string[]
  model?: string
  agent_type?: string
  metadata?: Record<string, unknown>
}

export interface ResumeRunRequest {
  agent_run_id: number
  prompt: string
  images?: string[]
}

/** OrganizationResponse (settings left out: the action does not use them). */
export interface Organization {
  id: number
  name: string
}

/** UserResponse, the fields the action shows. */
export interface User {
  id: number
  email?: string | null
  github_username?: string | null
  full_name?: string | null
  /** Role in the organization (ADMIN, MANAGER, MEMBER), on the organization's user endpoints. */
  role?: string | null
}

/** IntegrationStatus: one of the organization's integrations (github, slack, linear...). */
export interface Integration {
  integration_type: string
  active: boolean
}

/** OrganizationIntegrationsResponse. */
export interface OrganizationIntegrations {
  organization_id: number
  organization_name: string
  integrations: Integration[]
}

/** GenerateSetupCommandsInput. */
export interface SetupCommandsRequest {
  repo_id: number
  prompt?: string
}

/** SetupCommandsResponse: the run that generates the commands, to follow like any other. */
export interface SetupCommandsAnswer {
  agent_run_id: number
  status: string | null
  url: string | null
}
