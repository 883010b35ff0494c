import type { CallOptions, OrganizationApi } from '../api/client.js'
import { ServiceError } from '../api/errors.js'
import type { Organization, User } from '../api/types.js'
import type { SetupCheckRow, Inspection, RunReport } from '../model.js'
import {
  chooseOrganization,
  findRepository,
  listOrganizations,
  nameText,
  pickOrganization
} from './organizations.js'

/** What the step's set-up should be: the inputs as given (org and repository may be unknown). */
export interface SetupTarget {
  orgId?: number
  repoId?: number
  /** owner/name, '' when none. */
  repository: string
}

/** The org-scoped operations for an organization id: a client per organization. */
export type OrganizationApis = (orgId: number | undefined) => OrganizationApi

type Options = CallOptions & { role?: boolean }

const TOKEN_HELP =
  'check the api-token input: a Codegen API token (https://codegen.com/token), stored as a secret'

const ITEMS: SetupCheckRow['item'][] = [
  'API token',
  'Organization',
  'Role',
  'GitHub integration',
  'Repository'
]

/** The inspection as it fills: a row per item read, and the first problem, which ends it. */
class Rows {
  constructor(
    readonly result: Inspection,
    private readonly role: boolean
  ) {}

  add(item: SetupCheckRow['item'], state: SetupCheckRow['state'], found: string): void {
    this.result.rows.push({ item, state, found })
  }

  /** Rows for the items not reached, so the table always shows every item. */
  notChecked(): void {
    for (const item of ITEMS) {
      if (item === 'Role' && !this.role) continue
      if (!this.result.rows.some(existing => existing.item === item))
        this.result.rows.push({ item, state: 'not checked', found: '' })
    }
  }

  /** Ends the inspection on its first problem. */
  stop(item: SetupCheckRow['item'], found: string, problem: string): undefined {
    this.add(item, 'problem', found)
    this.result.problem = problem
    this.notChecked()
    return undefined
  }

  /** One read; a refusal of it is the problem (undefined), any other fault ends the inspection there. */
  async read<T>(item: SetupCheckRow['item'], what: string, call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call()
    } catch (error) {
      if (isRefusal(error))
        return this.stop(
          item,
          `refused (${error.httpStatus})`,
          `Codegen refused to show ${what} (${error.httpStatus}): the token's user may lack access to it; ask an admin of the organization. ${error.message}`
        )
      this.add(item, 'problem', 'could not be read')
      this.notChecked()
      throw error
    }
  }
}

export function userLabel(user: User): string {
  return nameText(user.github_username || user.email || String(user.id))
}

/**
 * Reads, in order, the token's user, the organization, its GitHub integration and the repository,
 * and stops at the first problem (what comes after depends on it). Creates nothing. `role` adds the
 * token user's role in the organization (the check shows it; a diagnosis does not need it).
 */
export async function inspectSetup(
  apis: OrganizationApis,
  target: SetupTarget,
  options: Options,
  /** Filled as the reads go: what was found before a fault cut them short stays for the caller. */
  result: Inspection = { rows: [] }
): Promise<Inspection> {
  const rows = new Rows(result, options.role ?? false)
  const me = await readUser(apis(target.orgId), options, rows)
  const org = me && (await readOrganization(apis(target.orgId), target, options, rows))
  if (!me || !org) return result
  const api = apis(org.id)
  if (options.role) await readRole(api, me, org, options, rows)
  if (await readIntegration(api, org, options, rows)) await readRepository(api, org, target, options, rows)
  return result
}

/**
 * The token user's role: information, not a condition. A member who may not list members (the
 * service may show them to admins only) can still run agents: a refusal shows the role as not
 * readable, with the service's status, and the check goes on.
 */
async function readRole(
  api: OrganizationApi,
  me: User,
  org: Organization,
  options: Options,
  rows: Rows
): Promise<void> {
  try {
    const member = await api.getUser(me.id, options)
    rows.add('Role', 'ok', nameText(member.role || 'member'))
  } catch (error) {
    if (!isRefusal(error)) {
      rows.add('Role', 'problem', 'could not be read')
      rows.notChecked()
      throw error
    }
    const found = `refused (${error.httpStatus}): Codegen did not show ${rows.result.user ?? 'the user'}'s membership of organization ${org.id}; runs do not need it`
    rows.add('Role', 'not readable', found)
  }
}

/** 1. The token's user: a rejected token stops everything. */
async function readUser(api: OrganizationApi, options: Options, rows: Rows): Promise<User | undefined> {
  let me: User
  try {
    me = await api.getCurrentUser(options)
  } catch (error) {
    // 404 here is no verdict on the token (a service without the endpoint): reported as it is.
    if (!isRefusal(error) || error.httpStatus === 404) {
      rows.add('API token', 'problem', 'could not be read')
      rows.notChecked()
      throw error
    }
    const problem = `The service rejected the api-token (${error.httpStatus}): ${TOKEN_HELP}.`
    return rows.stop('API token', `rejected (${error.httpStatus})`, problem)
  }
  rows.result.user = userLabel(me)
  rows.add('API token', 'ok', `accepted; user ${rows.result.user}`)
  return me
}

/** 2. The organization: the given one among the token's, or the token's only one. */
async function readOrganization(
  api: OrganizationApi,
  target: SetupTarget,
  options: Options,
  rows: Rows
): Promise<Organization | undefined> {
  const what = "the token's organizations"
  const organizations = await rows.read('Organization', what, () => listOrganizations(api, options))
  if (!organizations) return undefined
  const given = target.orgId
  const choice =
    given === undefined ? chooseOrganization(organizations) : pickOrganization(organizations, given)
  if ('problem' in choice) {
    const found = given === undefined ? `${organizations.length} found` : `${given} not among the token's`
    return rows.stop('Organization', found, choice.problem)
  }
  const org = choice.organization
  rows.result.orgId = org.id
  rows.result.organizationName = org.name
  rows.add(
    'Organization',
    'ok',
    `${org.id} ${nameText(org.name)}${given === undefined ? " (the token's only one)" : ''}`
  )
  return org
}

/** 3. The GitHub integration: without it the agent cannot reach any repository. */
async function readIntegration(
  api: OrganizationApi,
  org: Organization,
  options: Options,
  rows: Rows
): Promise<boolean> {
  const what = `the integrations of organization ${org.id}`
  const answer = await rows.read('GitHub integration', what, () => api.getIntegrations(options))
  if (!answer) return false
  const github = answer.integrations.find(item => item.integration_type.toLowerCase() === 'github')
  if (!github?.active) {
    const state = github ? 'inactive' : 'not installed'
    rows.stop(
      'GitHub integration',
      state,
      `The GitHub integration of organization ${org.id} (${nameText(org.name)}) is ${state}: connect GitHub in Codegen's integrations settings (https://codegen.com/integrations), then run again.`
    )
    return false
  }
  rows.add('GitHub integration', 'ok', 'active')
  return true
}

/** 4. The repository, by id or by owner/name, among the organization's. */
async function readRepository(
  api: OrganizationApi,
  org: Organization,
  target: SetupTarget,
  options: Options,
  rows: Rows
): Promise<void> {
  if (target.repoId === undefined && !target.repository) {
    rows.add('Repository', 'ok', 'none named (the run picks no repository)')
    return
  }
  const wanted =
    target.repoId !== undefined ? `repo-id ${target.repoId}` : `repository ${nameText(target.repository)}`
  const what = `the repositories of organization ${org.id}`
  const repo = await rows.read(
    'Repository',
    what,
    async () => (await findRepository(api, target, options)) ?? null
  )
  if (repo === undefined) return
  if (repo === null) {
    rows.stop(
      'Repository',
      `${wanted} not connected`,
      `The ${wanted} is not connected to Codegen organization ${org.id} (${nameText(org.name)}): add it in Codegen's repository settings (the GitHub app must have access to it)${target.repoId === undefined ? ', or set repo-id' : ', or check repo-id'}.`
    )
    return
  }
  rows.result.repoId = repo.id
  rows.add('Repository', 'ok', `${nameText(repo.full_name)} (id ${repo.id})`)
}

/**
 * A step stopped by a 401, 403 or 404 before any run existed: the check's reads say why, in place
 * of the bare status. Only on that failure: the happy path sends none of these requests.
 */
export async function diagnose(
  report: RunReport,
  apis: OrganizationApis,
  target: SetupTarget,
  options: CallOptions
): Promise<RunReport> {
  if (report.run || report.outcome !== 'error' || !isRefusalStatus(report.httpStatus)) return report
  let inspection: Inspection
  try {
    inspection = await inspectSetup(apis, target, options)
  } catch {
    // The reads failed too: the service's own answer is all there is to say.
    return report
  }
  if (!inspection.problem) return report
  return {
    ...report,
    error: `${inspection.problem}\n(${report.error ?? `the service answered ${report.httpStatus}`})`
  }
}

/** A refusal the reads explain (401, 403, 404), as opposed to a fault to report as it is. */
export function isRefusal(error: unknown): error is ServiceError & { httpStatus: number } {
  return error instanceof ServiceError && isRefusalStatus(error.httpStatus)
}

export function isRefusalStatus(status: number | undefined): boolean {
  return status === 401 || status === 403 || status === 404
}
