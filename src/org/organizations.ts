import type { CallOptions, OrganizationApi } from '../api/client.js'
import { allPages, searchPages } from '../api/paging.js'
import type { Organization, Repo } from '../api/types.js'

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
  const lines = organizations.slice(0, SHOWN).map(org => `  ${org.id} ${oneLine(org.name)}`)
  if (organizations.length > SHOWN) lines.push(`  ... and ${organizations.length - SHOWN} more`)
  return lines.join('\n')
}

/**
 * Service text in a one-line place (a console line, a table cell, a message): no line breaks or
 * control characters, no `##[` (the runner's legacy command prefix, read anywhere in a line), bounded.
 */
export function oneLine(text: string, max = 100): string {
  const flat = text
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/##\[/g, '#[')
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
