import type { OrganizationApi } from '../../../src/api/client.js'
import { ServiceError } from '../../../src/api/errors.js'
import type { Organization, Page, Repo } from '../../../src/api/types.js'
import { inspectSetup } from '../../../src/org/inspect.js'
import { inspectAll } from '../../../src/org/setup-check.js'

const org = (id: number, name = `Org ${id}`): Organization => ({ id, name })

function page<T>(all: T[], skip: number, limit: number): Page<T> {
  return {
    items: all.slice(skip, skip + limit),
    total: all.length,
    page: skip / limit + 1,
    size: limit,
    pages: Math.ceil(all.length / limit)
  }
}

/** An in-memory account: the token's organizations, integrations and repositories. */
function account(
  fields: { orgs?: Organization[]; github?: boolean | null; repos?: Repo[]; meStatus?: number } = {}
): { apis: (orgId: number | undefined) => OrganizationApi; calls: string[] } {
  const calls: string[] = []
  const api: OrganizationApi = {
    async listOrganizations(skip, limit) {
      calls.push(`organizations ${skip}`)
      return page(fields.orgs ?? [org(1, 'Octo Org')], skip, limit)
    },
    async getCurrentUser() {
      calls.push('me')
      if (fields.meStatus) throw new ServiceError('refused', fields.meStatus)
      return { id: 5, email: 'dev@example.com', github_username: null }
    },
    async getUser(userId) {
      calls.push(`user ${userId}`)
      return { id: userId, role: 'MEMBER' }
    },
    async getIntegrations() {
      calls.push('integrations')
      const github = fields.github === undefined ? true : fields.github
      return {
        organization_id: 1,
        organization_name: 'Octo Org',
        integrations: github === null ? [] : [{ integration_type: 'GitHub', active: github }]
      }
    },
    async listRepos(skip, limit) {
      calls.push(`repos ${skip}`)
      return page(fields.repos ?? [{ id: 101, full_name: 'octo-org/octo-repo' }], skip, limit)
    },
    async generateSetupCommands() {
      throw new Error('the check creates nothing')
    }
  }
  return { apis: () => api, calls }
}

describe('inspectSetup', () => {
  test('reads user, organization, role, integration and repository in order; all well', async () => {
    const { apis, calls } = account({
      repos: [
        ...Array.from({ length: 100 }, (_, i) => ({ id: 500 + i, full_name: `o/r${i}` })),
        { id: 101, full_name: 'Octo-Org/Octo-Repo' }
      ]
    })
    const found = await inspectSetup(apis, { repository: 'octo-org/octo-repo' }, { role: true })
    expect(found.problem).toBeUndefined()
    expect(found).toMatchObject({ orgId: 1, repoId: 101, user: 'dev@example.com' })
    expect(found.rows.map(row => `${row.item}: ${row.state}`)).toEqual([
      'API token: ok',
      'Organization: ok',
      'Role: ok',
      'GitHub integration: ok',
      'Repository: ok'
    ])
    expect(calls).toEqual(['me', 'organizations 0', 'user 5', 'integrations', 'repos 0', 'repos 100'])
  })

  test('stops at the first problem; what follows is not checked', async () => {
    const { apis, calls } = account({ github: null })
    const found = await inspectSetup(apis, { orgId: 1, repoId: 101, repository: '' }, {})
    expect(found.problem).toMatch(/GitHub integration of organization 1 \(Octo Org\) is not installed/)
    expect(found.rows.map(row => `${row.item}: ${row.state}`)).toEqual([
      'API token: ok',
      'Organization: ok',
      'GitHub integration: problem',
      'Repository: not checked'
    ])
    expect(calls).not.toContain('repos 0')
  })

  test('a token refused with 401 or 403 is the problem; a 404 there is no verdict and is thrown', async () => {
    const refused = await inspectSetup(account({ meStatus: 403 }).apis, { repository: '' }, {})
    expect(refused.problem).toMatch(/^The service rejected the api-token \(403\)/)
    await expect(inspectSetup(account({ meStatus: 404 }).apis, { repository: '' }, {})).rejects.toThrow(
      'refused'
    )
  })

  test('a fault mid-way: the check shows what it found before it, and why it stopped', async () => {
    const { apis } = account()
    const broken = (orgId: number | undefined): OrganizationApi => ({
      ...apis(orgId),
      getIntegrations: async () => {
        throw new ServiceError('Could not read the integrations after 6 attempts: service error 502', 502)
      }
    })
    const { inspection, error } = await inspectAll(broken, { repository: 'octo-org/octo-repo' }, {})
    expect(error).toBe(
      'The check could not finish: Could not read the integrations after 6 attempts: service error 502'
    )
    expect(inspection.rows.map(row => `${row.item}: ${row.state}`)).toEqual([
      'API token: ok',
      'Organization: ok',
      'Role: ok',
      'GitHub integration: problem',
      'Repository: not checked'
    ])
  })

  test('no repository named is not a problem', async () => {
    const found = await inspectSetup(account().apis, { repository: '' }, {})
    expect(found.problem).toBeUndefined()
    expect(found.rows.at(-1)).toEqual({
      item: 'Repository',
      state: 'ok',
      found: 'none named (the run picks no repository)'
    })
  })
})
