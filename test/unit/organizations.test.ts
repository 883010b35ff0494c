import type { OrganizationApi } from '../../src/api/client.js'
import { ServiceError } from '../../src/api/errors.js'
import type { Organization, Page, Repo } from '../../src/api/types.js'
import { inspectSetup } from '../../src/org/inspect.js'
import { inspectAll } from '../../src/org/setup-check.js'
import {
  chooseOrganization,
  nameText,
  organizationList,
  pickOrganization
} from '../../src/org/organizations.js'
import { renderSetupCheckSummary } from '../../src/report/setup-check-summary.js'

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

describe('organizations', () => {
  test('the only one is chosen; several or none is a problem listing up to ten', () => {
    expect(chooseOrganization([org(4)])).toEqual({ organization: org(4) })
    expect(chooseOrganization([])).toEqual({
      problem: expect.stringMatching(/belongs to no Codegen organization/)
    })
    const many = Array.from({ length: 12 }, (_, index) => org(index + 1))
    expect(organizationList(many).split('\n')).toEqual([
      ...many.slice(0, 10).map(item => `  ${item.id} ${item.name}`),
      '  ... and 2 more'
    ])
    expect(pickOrganization(many, 3)).toEqual({ organization: org(3) })
    expect(pickOrganization(many, 99)).toEqual({
      problem: expect.stringMatching(
        /^org-id 99 is not among the token's organizations; set org-id to one of them:\n {2}1 Org 1/
      )
    })
  })

  test("service names stay on one line, bounded, without the runner's command prefixes", () => {
    expect(nameText('Evil\r\n::error::x ##[warning]y\u0085z')).toBe('Evil ::error::x #[warning]y z')
    expect(nameText('x'.repeat(500))).toHaveLength(100)
  })
})

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

test('the check summary: a table row per item, the problem with its list, service text escaped', () => {
  const markdown = renderSetupCheckSummary({
    rows: [
      { item: 'API token', state: 'ok', found: 'accepted; user a|b <img src=x>' },
      { item: 'Organization', state: 'problem', found: "9 not among the token's" },
      { item: 'Repository', state: 'not checked', found: '' }
    ],
    problem:
      "org-id 9 is not among the token's organizations; set org-id to one of them:\n  1 <b>Octo</b> | Org"
  })
  expect(markdown.split('\n')).toEqual([
    '## ❌ Codegen set-up: something to fix',
    '',
    '| Item | State | Found |',
    '|---|---|---|',
    '| API token | ✅ ok | accepted; user a\\|b &lt;img src=x&gt; |',
    "| Organization | ❌ problem | 9 not among the token's |",
    '| Repository | ➖ not checked |   |',
    '',
    '### What to fix',
    '',
    "org-id 9 is not among the token's organizations; set org-id to one of them:",
    '',
    '- 1 &lt;b&gt;Octo&lt;/b&gt; \\| Org',
    ''
  ])
  expect(renderSetupCheckSummary({ rows: [] })).toContain('## ✅ Codegen set-up: ready')
})
