import type { Repo } from './types.js'

function repo(id: number, owner: string, name: string, description: string, language: string): Repo {
  return {
    id,
    name,
    full_name: `${owner}/${name}`,
    description,
    github_id: String(700_000_000 + id),
    organization_id: 1,
    visibility: 'PRIVATE',
    archived: false,
    setup_status: 'COMPLETED',
    language
  }
}

/** The repository the action's tests run in (GITHUB_REPOSITORY octo-org/octo-repo). */
export const OCTO_REPO: Repo = repo(101, 'octo-org', 'octo-repo', 'The demo repository', 'TypeScript')

/**
 * Organization 1's repositories. With `many`, 147 filler repositories come first, so that
 * octo-org/octo-repo is only on the second page of 100: a client has to page to find it.
 */
export function defaultRepos(many = false): Repo[] {
  const own = [
    OCTO_REPO,
    repo(102, 'octo-org', 'octo-docs', 'Documentation site', 'Markdown'),
    repo(103, 'octo-org', 'octo-infra', 'Terraform for the octo services', 'HCL')
  ]
  if (!many) return own
  const filler = Array.from({ length: 147 }, (_, index) =>
    repo(
      201 + index,
      'octo-org',
      `service-${String(index + 1).padStart(3, '0')}`,
      'A filler repository',
      'Go'
    )
  )
  return [...filler, ...own]
}
