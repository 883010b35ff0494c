import type { CallOptions, OrganizationApi } from '../api/client.js'
import { CancelledError, DeadlineError, ServiceError } from '../api/errors.js'
import { allPages, searchPages } from '../api/paging.js'
import type { Organization, Repo } from '../api/types.js'
import { LEGACY_COMMAND } from '../runner/commands.js'

/** Organizations named in a message, at most. */
const SHOWN = 10

export function listOrganizations(
  api: Pick<OrganizationApi, 'listOrganizations'>,
  options: CallOptions
): Promise<Organization[]> {
  return allPages((skip, limit) => api.listOrganizations(skip, limit, options))
}

/** A repository of the organization, by id or by owner/name (any case). */
export async function findRepository(
  api: Pick<OrganizationApi, 'listRepos'>,
  wanted: { repoId?: number; repository?: string },
  options: CallOptions
): Promise<Repo | undefined> {
  const name = wanted.repository?.toLowerCase()
  return searchPages(
    (skip, limit) => api.listRepos(skip, limit, options),
    repo => (wanted.repoId !== undefined ? repo.id === wanted.repoId : repo.full_name.toLowerCase() === name)
  )
}

/** `id name` lines of the first ten organizations, and how many more there are. */
export function organizationList(organizations: Organization[]): string {
  const lines = organizations.slice(0, SHOWN).map(org => `  ${org.id} ${nameText(org.name)}`)
  if (organizations.length > SHOWN) lines.push(`  ... and ${organizations.length - SHOWN} more`)
  return lines.join('\n')
}

/**
 * A name the service gave (an organization, a repository, a user) for a one-line place (a console
 * line, a table cell, a message): no line breaks or control characters, no `##[` (the runner's
 * legacy command prefix, read anywhere in a line: `#[` reads as plainly), bounded.
 */
export function nameText(text: string, max = 100): string {
  const flat = text
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(LEGACY_COMMAND, '#[')
    .trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

export type OrganizationChoice = { organization: Organization } | { problem: string }

/**
 * The organization to act on when org-id is not given: the token's only one. Several, or none, is
 * a problem to fix before anything is created.
 */
export function chooseOrganization(organizations: Organization[]): OrganizationChoice {
  const [only] = organizations
  if (organizations.length === 1 && only) return { organization: only }
  if (organizations.length === 0) {
    return {
      problem:
        'The api-token belongs to no Codegen organization: create or join one at https://codegen.com, or use a token of a member.'
    }
  }
  return {
    problem: `The api-token belongs to ${organizations.length} Codegen organizations; set the org-id input to one of them:\n${organizationList(organizations)}`
  }
}

/** The organization among the token's, or the problem that it is not one of them. */
export function pickOrganization(organizations: Organization[], orgId: number): OrganizationChoice {
  const found = organizations.find(org => org.id === orgId)
  if (found) return { organization: found }
  return {
    problem:
      organizations.length === 0
        ? `org-id ${orgId} is not among the token's organizations: the api-token belongs to no Codegen organization.`
        : `org-id ${orgId} is not among the token's organizations; set org-id to one of them:\n${organizationList(organizations)}`
  }
}

/**
 * The organization to act on when org-id is empty: the token's only one (said in a notice). Several
 * or none is an error to fix before anything is created.
 */
export async function discoverOrganization(
  apis: (orgId: number | undefined) => Pick<OrganizationApi, 'listOrganizations'>,
  options: CallOptions,
  notice: (message: string) => void
): Promise<{ orgId: number } | { error: string; httpStatus?: number }> {
  try {
    const choice = chooseOrganization(await listOrganizations(apis(undefined), options))
    if ('problem' in choice) return { error: choice.problem }
    const { id, name } = choice.organization
    notice(
      `Using organization ${id} (${nameText(name)}), the token's only organization; set org-id to choose.`
    )
    return { orgId: id }
  } catch (error) {
    if (error instanceof ServiceError)
      return {
        error: `Could not find the organization to act on: ${error.message}`,
        httpStatus: error.httpStatus
      }
    if (error instanceof DeadlineError || error instanceof CancelledError) return { error: error.message }
    throw error
  }
}
