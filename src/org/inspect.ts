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

/** A read that ended the inspection (its problem recorded). */
const STOPPED = Symbol('stopped')

/** Rows for the items not reached, so the table always shows every item. */
function notChecked(result: Inspection, role: boolean): void {
  const items: CheckRow['item'][] = ['API token', 'Organization', 'Role', 'GitHub integration', 'Repository']
  for (const item of items) {
    if (item === 'Role' && !role) continue
    if (!result.rows.some(existing => existing.item === item))
      result.rows.push({ item, state: 'not checked', found: '' })
  }
}

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
  options: CallOptions & { role?: boolean },
  /** Filled as the reads go: what was found before a fault cut them short stays for the caller. */
  result: Inspection = { rows: [] }
): Promise<Inspection> {
  const row = (item: CheckRow['item'], state: RowState, found: string): void => {
    result.rows.push({ item, state, found })
  }
  const stop = (problem: string): Inspection => {
    result.problem = problem
    notChecked(result, options.role ?? false)
    return result
  }
  /** One read; a refusal of it is the problem, any other fault ends the inspection there. */
  const read = async <T>(
    item: CheckRow['item'],
    what: string,
    call: () => Promise<T>
  ): Promise<T | typeof STOPPED> => {
    try {
      return await call()
    } catch (error) {
      if (isRefusal(error)) {
        row(item, 'problem', `refused (${error.httpStatus})`)
        stop(
          `Codegen refused to show ${what} (${error.httpStatus}): the token's user may lack access to it; ask an admin of the organization. ${error.message}`
        )
        return STOPPED
      }
      row(item, 'problem', 'could not be read')
      notChecked(result, options.role ?? false)
      throw error
    }
  }
  const account = apis(target.orgId)

  // 1. The token's user: a rejected token stops everything.
  let me: User
  try {
    me = await account.getCurrentUser(options)
  } catch (error) {
    // 404 here is no verdict on the token (a service without the endpoint): reported as it is.
    if (!isRefusal(error) || error.httpStatus === 404) {
      row('API token', 'problem', 'could not be read')
      notChecked(result, options.role ?? false)
      throw error
    }
    row('API token', 'problem', `rejected (${error.httpStatus})`)
    return stop(`The service rejected the api-token (${error.httpStatus}): ${TOKEN_HELP}.`)
  }
  result.user = userLabel(me)
  row('API token', 'ok', `accepted; user ${result.user}`)

  // 2. The organization: the given one among the token's, or the token's only one.
  const organizations = await read('Organization', "the token's organizations", () =>
    listOrganizations(account, options)
  )
  if (organizations === STOPPED) return result
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
    const member = await read('Role', `${result.user} as a member of organization ${org.id}`, () =>
      api.getUser(me.id, options)
    )
    if (member === STOPPED) return result
    row('Role', 'ok', oneLine(member.role || 'member'))
  }

  // 3. The GitHub integration: without it the agent cannot reach any repository.
  const answer = await read('GitHub integration', `the integrations of organization ${org.id}`, () =>
    api.getIntegrations(options)
  )
  if (answer === STOPPED) return result
  const { integrations } = answer
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
  const repo = await read('Repository', `the repositories of organization ${org.id}`, () =>
    findRepository(api, target, options)
  )
  if (repo === STOPPED) return result
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
