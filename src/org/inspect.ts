import type { CallOptions, OrganizationApi } from '../api/client.js'
import { ServiceError } from '../api/errors.js'
import type { Organization, User } from '../api/types.js'
import {
  chooseOrganization,
  findRepository,
  listOrganizations,
  oneLine,
  pickOrganization
} from './organizations.js'

/** What the step's set-up should be: the inputs as given (org and repository may be unknown). */
export interface SetupTarget {
  orgId?: number
  repoId?: number
  /** owner/name, '' when none. */
  repository: string
}

export type RowState = 'ok' | 'problem' | 'not checked'

/** One line of the check's table. */
export interface CheckRow {
  item: 'API token' | 'Organization' | 'Role' | 'GitHub integration' | 'Repository'
  state: RowState
  found: string
}

/** What the reads found: a row per item, the first problem, and what was resolved. */
export interface Inspection {
  rows: CheckRow[]
  /** The first thing missing or wrong, and how to fix it; undefined when all is well. */
  problem?: string
  orgId?: number
  organizationName?: string
  repoId?: number
  /** GitHub login, else e-mail, else id. */
  user?: string
}

/** The org-scoped operations for an organization id: a client per organization. */
export type OrganizationApis = (orgId: number | undefined) => OrganizationApi

const TOKEN_HELP =
  'check the api-token input: a Codegen API token (https://codegen.com/token), stored as a secret'

export function userLabel(user: User): string {
  return oneLine(user.github_username || user.email || String(user.id))
}

/**
 * Reads, in order, the token's user, the organization, its GitHub integration and the repository,
 * and stops at the first problem (what comes after depends on it). Creates nothing. `role` adds the
 * token user's role in the organization (the check shows it; a diagnosis does not need it).
 */
export async function inspectSetup(
  apis: OrganizationApis,
  target: SetupTarget,
  options: CallOptions & { role?: boolean }
): Promise<Inspection> {
  const rows: CheckRow[] = []
  const result: Inspection = { rows }
  const row = (item: CheckRow['item'], state: RowState, found: string): void => {
    rows.push({ item, state, found })
  }
  const stop = (problem: string): Inspection => {
    result.problem = problem
    const items: CheckRow['item'][] = [
      'API token',
      'Organization',
      'Role',
      'GitHub integration',
      'Repository'
    ]
    for (const item of items) {
      if (item === 'Role' && !options.role) continue
      if (!rows.some(existing => existing.item === item)) row(item, 'not checked', '')
    }
    return result
  }
  const account = apis(target.orgId)

  // 1. The token's user: a rejected token stops everything.
  let me: User
  try {
    me = await account.getCurrentUser(options)
  } catch (error) {
    // 404 here is no verdict on the token (a service without the endpoint): reported as it is.
    if (!isRefusal(error) || error.httpStatus === 404) throw error
    row('API token', 'problem', `rejected (${error.httpStatus})`)
    return stop(`The service rejected the api-token (${error.httpStatus}): ${TOKEN_HELP}.`)
  }
  result.user = userLabel(me)
  row('API token', 'ok', `accepted; user ${result.user}`)

  // 2. The organization: the given one among the token's, or the token's only one.
  const organizations = await listOrganizations(account, options)
  const choice =
    target.orgId === undefined
      ? chooseOrganization(organizations)
      : pickOrganization(organizations, target.orgId)
  if ('problem' in choice) {
    row(
      'Organization',
      'problem',
      target.orgId === undefined ? `${organizations.length} found` : `${target.orgId} not among the token's`
    )
    return stop(choice.problem)
  }
  const org: Organization = choice.organization
  result.orgId = org.id
  result.organizationName = org.name
  row(
    'Organization',
    'ok',
    `${org.id} ${oneLine(org.name)}${target.orgId === undefined ? " (the token's only one)" : ''}`
  )
  const api = apis(org.id)

  if (options.role) {
    try {
      const member = await api.getUser(me.id, options)
      row('Role', 'ok', oneLine(member.role || 'member'))
    } catch (error) {
      if (!isRefusal(error)) throw error
      row('Role', 'problem', `not readable (${error.httpStatus})`)
      return stop(
        `The token's user ${result.user} cannot be read as a member of organization ${org.id} (${error.httpStatus}): ask an admin of ${oneLine(org.name)} to add them.`
      )
    }
  }

  // 3. The GitHub integration: without it the agent cannot reach any repository.
  const { integrations } = await api.getIntegrations(options)
  const github = integrations.find(item => item.integration_type.toLowerCase() === 'github')
  if (!github?.active) {
    row('GitHub integration', 'problem', github ? 'inactive' : 'not installed')
    return stop(
      `The GitHub integration of organization ${org.id} (${oneLine(org.name)}) is ${github ? 'inactive' : 'not installed'}: connect GitHub in Codegen's integrations settings (https://codegen.com/integrations), then run again.`
    )
  }
  row('GitHub integration', 'ok', 'active')

  // 4. The repository, by id or by owner/name, among the organization's.
  if (target.repoId === undefined && !target.repository) {
    row('Repository', 'ok', 'none named (the run picks no repository)')
    return result
  }
  const wanted =
    target.repoId !== undefined ? `repo-id ${target.repoId}` : `repository ${oneLine(target.repository)}`
  const repo = await findRepository(api, target, options)
  if (!repo) {
    row('Repository', 'problem', `${wanted} not connected`)
    return stop(
      `The ${wanted} is not connected to Codegen organization ${org.id} (${oneLine(org.name)}): add it in Codegen's repository settings (the GitHub app must have access to it)${target.repoId === undefined ? ', or set repo-id' : ', or check repo-id'}.`
    )
  }
  result.repoId = repo.id
  row('Repository', 'ok', `${oneLine(repo.full_name)} (id ${repo.id})`)
  return result
}

/** A refusal the reads explain (401, 403, 404), as opposed to a fault to report as it is. */
export function isRefusal(error: unknown): error is ServiceError & { httpStatus: number } {
  return error instanceof ServiceError && isRefusalStatus(error.httpStatus)
}

export function isRefusalStatus(status: number | undefined): boolean {
  return status === 401 || status === 403 || status === 404
}
