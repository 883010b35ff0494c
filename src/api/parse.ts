import { ServiceError } from './errors.js'
import type {
  AgentRun,
  LogEntry,
  LogPage,
  Organization,
  OrganizationIntegrations,
  Page,
  PullRequest,
  Repo,
  SetupCommandsAnswer,
  User
} from './types.js'
import { isJsonObject } from '../json.js'

/**
 * Shape checks of the service's answers. A body that is JSON but not the expected shape is treated
 * like a malformed answer (read again), and the ALPHA log endpoint's drift is absorbed here.
 */

export class MalformedAnswerError extends ServiceError {
  constructor(what: string) {
    super(`The service's answer was not ${what}.`, 200)
    this.name = 'MalformedAnswerError'
  }
}

const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value)

const optionalText = (value: unknown): string | null =>
  typeof value === 'string' ? value : value === null || value === undefined ? null : String(value)

export function parseRun(body: unknown): AgentRun {
  if (!isJsonObject(body) || !isInteger(body.id)) throw new MalformedAnswerError('an agent run')
  return {
    id: body.id,
    organization_id: isInteger(body.organization_id) ? body.organization_id : 0,
    status: optionalText(body.status),
    created_at: optionalText(body.created_at),
    web_url: optionalText(body.web_url),
    result: optionalText(body.result),
    summary: optionalText(body.summary),
    source_type: optionalText(body.source_type),
    github_pull_requests: Array.isArray(body.github_pull_requests)
      ? body.github_pull_requests.filter(isJsonObject).map(pr => pr as PullRequest)
      : null,
    metadata: isJsonObject(body.metadata) ? body.metadata : null
  }
}

/** An answer no document describes (the beta stop path's): the run if it is one, else nothing. */
export function parseRunIfAny(body: unknown): AgentRun | undefined {
  try {
    return parseRun(body)
  } catch {
    return undefined
  }
}

/** Every element counts toward skip, so an odd element is kept as an entry rather than dropped. */
function parseLogEntry(raw: unknown, runId: number): LogEntry {
  if (!isJsonObject(raw)) return { agent_run_id: runId, message_type: null, observation: raw ?? null }
  return {
    ...raw,
    agent_run_id: isInteger(raw.agent_run_id) ? raw.agent_run_id : runId,
    created_at: optionalText(raw.created_at),
    message_type: optionalText(raw.message_type),
    thought: optionalText(raw.thought),
    tool_name: optionalText(raw.tool_name),
    tool_input: raw.tool_input ?? null,
    tool_output: raw.tool_output ?? null,
    observation: raw.observation ?? null
  }
}

export function parseLogPage(body: unknown, runId: number): LogPage {
  if (!isJsonObject(body) || !Array.isArray(body.logs))
    throw new MalformedAnswerError('a page of the run log')
  return {
    status: optionalText(body.status),
    logs: body.logs.map(entry => parseLogEntry(entry, runId)),
    totalLogs: isInteger(body.total_logs) && body.total_logs >= 0 ? body.total_logs : null,
    // Absent (the ALPHA endpoint drifts) is unknown, not "no result".
    result: 'result' in body ? optionalText(body.result) : undefined
  }
}

export function parseRepo(raw: unknown): Repo | undefined {
  if (!isJsonObject(raw) || !isInteger(raw.id) || typeof raw.full_name !== 'string') return undefined
  return { id: raw.id, full_name: raw.full_name, name: optionalText(raw.name) ?? undefined }
}

export function parsePage<T>(body: unknown, parseItem: (raw: unknown) => T | undefined): Page<T> {
  if (!isJsonObject(body) || !Array.isArray(body.items)) throw new MalformedAnswerError('a page of results')
  const items: T[] = []
  for (const raw of body.items) {
    try {
      const item = parseItem(raw)
      if (item !== undefined) items.push(item)
    } catch {
      // One unreadable item does not hide the others.
    }
  }
  const number = (value: unknown, fallback: number): number => (isInteger(value) ? value : fallback)
  return {
    items,
    sent: body.items.length,
    total: number(body.total, items.length),
    page: number(body.page, 1),
    size: number(body.size, items.length),
    pages: number(body.pages, 1)
  }
}

export function parseOrganization(raw: unknown): Organization | undefined {
  if (!isJsonObject(raw) || !isInteger(raw.id)) return undefined
  return { id: raw.id, name: optionalText(raw.name) ?? '' }
}

export function parseUser(raw: unknown): User {
  if (!isJsonObject(raw) || !isInteger(raw.id)) throw new MalformedAnswerError('a user')
  return {
    id: raw.id,
    email: optionalText(raw.email),
    github_username: optionalText(raw.github_username),
    full_name: optionalText(raw.full_name),
    role: optionalText(raw.role)
  }
}

export function parseIntegrations(body: unknown): OrganizationIntegrations {
  if (!isJsonObject(body) || !Array.isArray(body.integrations))
    throw new MalformedAnswerError("the organization's integrations")
  return {
    organization_id: isInteger(body.organization_id) ? body.organization_id : 0,
    organization_name: optionalText(body.organization_name) ?? '',
    integrations: body.integrations.filter(isJsonObject).map(item => ({
      integration_type: optionalText(item.integration_type) ?? '',
      active: item.active === true
    }))
  }
}

export function parseSetupCommandsAnswer(body: unknown): SetupCommandsAnswer {
  if (!isJsonObject(body) || !isInteger(body.agent_run_id))
    throw new MalformedAnswerError('the run generating the setup commands')
  return { agent_run_id: body.agent_run_id, status: optionalText(body.status), url: optionalText(body.url) }
}
