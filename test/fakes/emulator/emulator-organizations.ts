import { account, ACCOUNT_NAMES } from '../../../emulator/index.js'
import { HttpAgentRunApi } from '../../../src/api/client.js'
import { SKEW_MARGIN_MS } from '../../../src/api/rate-budget.js'
import { OPEN_SCHEMAS, responseSchema, schemaProblems } from '../../support/openapi.js'
import { clock, emulator, request, startEmulator, START, TOKEN } from '../../support/emulator-world.js'
import { VirtualClock } from '../../support/virtual-clock.js'

/**
 * The emulator's organization operations over real HTTP on loopback, every answer checked against
 * the live service's OpenAPI document.
 */

/** Status and body only, so that a whole answer can be compared. */
async function call(method: 'GET' | 'POST', path: string, body?: unknown, token?: string | null) {
  const { status, body: answer } = await request(method, path, { body, token })
  return { status, body: answer }
}

/** Calls `path` and checks the answer against the document's schema for `template`, method and status. */
async function conforming(
  method: 'GET' | 'POST',
  template: string,
  path: string,
  options: { body?: unknown; token?: string | null; status?: number } = {}
): ReturnType<typeof call> {
  const reply = await call(method, path, options.body, options.token === undefined ? TOKEN : options.token)
  expect(reply.status).toBe(options.status ?? 200)
  const schema = responseSchema(method, template, reply.status)
  if (!schema) throw new Error(`No schema for ${reply.status} of ${method} ${template}`)
  expect(schemaProblems(reply.body, schema, OPEN_SCHEMAS)).toEqual([])
  return reply
}

const ORG = '/v1/organizations/{org_id}'

describe('answers conform to the OpenAPI document', () => {
  test('every operation the action uses, on success', async () => {
    await startEmulator({ speed: 100 })
    const created = await conforming('POST', `${ORG}/agent/run`, '/v1/organizations/1/agent/run', {
      body: { prompt: 'Fix it', repo_id: 101 }
    })
    const id = created.body.id as number
    clock.time += 60_000 // the run has ended, with its pull request
    await conforming('GET', `${ORG}/agent/run/{agent_run_id}`, `/v1/organizations/1/agent/run/${id}`)
    await conforming(
      'GET',
      '/v1/alpha/organizations/{org_id}/agent/run/{agent_run_id}/logs',
      `/v1/alpha/organizations/1/agent/run/${id}/logs?limit=5`
    )
    await conforming('POST', `${ORG}/agent/run/resume`, '/v1/organizations/1/agent/run/resume', {
      body: { agent_run_id: id, prompt: 'And the docs' }
    })
    await conforming('GET', `${ORG}/agent/runs`, '/v1/organizations/1/agent/runs?source_type=API&user_id=1')
    await conforming('GET', `${ORG}/repos`, '/v1/organizations/1/repos')
    await conforming('GET', '/v1/organizations', '/v1/organizations')
    await conforming('GET', '/v1/users/me', '/v1/users/me')
    await conforming('GET', `${ORG}/users`, '/v1/organizations/1/users')
    await conforming('GET', `${ORG}/users/{user_id}`, '/v1/organizations/1/users/1')
    await conforming('GET', `${ORG}/integrations`, '/v1/organizations/1/integrations')
    await conforming(
      'POST',
      `${ORG}/setup-commands/generate`,
      '/v1/organizations/1/setup-commands/generate',
      {
        body: { repo_id: 101 }
      }
    )
  })

  test('the documented error answers: 403, 404, 422, 429', async () => {
    await startEmulator({ tokens: { [TOKEN]: [1], other: [2] } })
    await conforming('GET', `${ORG}/users`, '/v1/organizations/2/users', { status: 403 })
    await conforming('GET', `${ORG}/integrations`, '/v1/organizations/2/integrations', { status: 403 })
    await conforming('GET', `${ORG}/users/{user_id}`, '/v1/organizations/1/users/2', { status: 404 })
    await conforming('GET', '/v1/organizations', '/v1/organizations?limit=101', { status: 422 })
    await conforming(
      'POST',
      `${ORG}/setup-commands/generate`,
      '/v1/organizations/1/setup-commands/generate',
      {
        body: { prompt: 'no repo_id' },
        status: 422
      }
    )
    for (let n = 0; n < 60; n++) await call('GET', '/v1/users/me')
    await conforming('GET', '/v1/users/me', '/v1/users/me', { status: 429 })
  })
})

describe('organizations and users', () => {
  test("a token's organizations, paged, in id order; none without a valid token", async () => {
    await startEmulator({ ...account('several-orgs'), tokens: { [TOKEN]: [3, 1, 2], other: [2] } })
    const first = await call('GET', '/v1/organizations?limit=2')
    expect(first.body).toMatchObject({ total: 3, page: 1, size: 2, pages: 2 })
    expect(first.body.items.map((org: { id: number; name: string }) => `${org.id} ${org.name}`)).toEqual([
      '1 Octo Org',
      '2 Octo Labs'
    ])
    const second = await call('GET', '/v1/organizations?skip=2&limit=2')
    expect(second.body.items.map((org: { id: number }) => org.id)).toEqual([3])
    expect((await call('GET', '/v1/organizations', undefined, 'other')).body.items).toHaveLength(1)
    expect((await call('GET', '/v1/organizations', undefined, null)).status).toBe(401)
    expect((await call('GET', '/v1/organizations', undefined, 'nobody')).status).toBe(401)
  })

  test('the current user, the users of an organization (paged) and one of them', async () => {
    await startEmulator({ tokens: { [TOKEN]: [1], second: [1, 2], third: [2] } })
    expect((await call('GET', '/v1/users/me')).body).toMatchObject({
      id: 1,
      github_username: 'octocat',
      role: null
    })
    expect((await call('GET', '/v1/users/me', undefined, 'third')).body).toMatchObject({
      id: 3,
      github_username: 'member-3'
    })
    const users = await call('GET', '/v1/organizations/1/users?limit=1')
    expect(users.body).toMatchObject({ total: 2, pages: 2, items: [{ id: 1, role: 'ADMIN' }] })
    const next = await call('GET', '/v1/organizations/1/users?skip=1&limit=1')
    expect(next.body.items).toMatchObject([{ id: 2, role: 'MEMBER', github_username: 'member-2' }])
    expect((await call('GET', '/v1/organizations/1/users/2')).body).toMatchObject({ id: 2, role: 'MEMBER' })
    expect((await call('GET', '/v1/organizations/1/users/3')).body).toEqual({
      message: 'User not found.',
      status_code: 404
    })
    expect((await call('GET', '/v1/organizations/1/users/x')).status).toBe(422)
  })
})

describe('integrations', () => {
  test('GitHub active by default; an inactive one is shown and refuses creates and setup commands', async () => {
    await startEmulator()
    const active = await call('GET', '/v1/organizations/1/integrations')
    expect(active.body).toMatchObject({
      organization_id: 1,
      organization_name: 'Octo Org',
      total_active_integrations: 1,
      integrations: [
        { integration_type: 'github', active: true },
        { integration_type: 'slack', active: false }
      ]
    })

    await startEmulator(account('inactive-integration'))
    const inactive = await call('GET', '/v1/organizations/1/integrations')
    expect(inactive.body).toMatchObject({
      total_active_integrations: 0,
      integrations: [
        { integration_type: 'github', active: false },
        { integration_type: 'slack', active: false }
      ]
    })
    const create = await call('POST', '/v1/organizations/1/agent/run', { prompt: 'Fix it' })
    expect(create).toEqual({
      status: 403,
      body: { message: 'The GitHub integration of this organization is not active.', status_code: 403 }
    })
    expect((await call('POST', '/v1/organizations/1/setup-commands/generate', { repo_id: 101 })).status).toBe(
      403
    )
    expect(emulator.runs()).toHaveLength(0)
  })
})

describe('setup commands', () => {
  test('a scripted SETUP_COMMANDS run whose result lists the commands; list-runs filters by source and user', async () => {
    await startEmulator({ tokens: { [TOKEN]: [1], second: [1] } })
    await call('POST', '/v1/organizations/1/agent/run', { prompt: 'Fix it' }, 'second')
    const generated = await call('POST', '/v1/organizations/1/setup-commands/generate', {
      repo_id: 101,
      prompt: 'Include e2e'
    })
    expect(generated.body).toMatchObject({
      status: 'ACTIVE',
      url: expect.stringMatching(/\/agent\/trace\/\d+$/)
    })
    const id = generated.body.agent_run_id as number
    expect(emulator.run(id)).toMatchObject({
      source_type: 'SETUP_COMMANDS',
      repo_id: 101,
      prompt: 'Include e2e'
    })
    clock.time += 10_000
    const run = await call('GET', `/v1/organizations/1/agent/run/${id}`)
    expect(run.body).toMatchObject({
      status: 'COMPLETE',
      source_type: 'SETUP_COMMANDS',
      result: 'npm ci\nnpm run build\nnpx playwright install --with-deps chromium'
    })

    const ids = async (query: string) =>
      (await call('GET', `/v1/organizations/1/agent/runs?${query}`)).body.items.map(
        (item: { id: number }) => item.id
      )
    expect(await ids('source_type=SETUP_COMMANDS')).toEqual([id])
    expect(await ids('source_type=API')).toEqual([id - 1])
    expect(await ids('user_id=1')).toEqual([id])
    expect(await ids('user_id=2&source_type=API')).toEqual([id - 1])
    expect(await ids('user_id=2&source_type=SETUP_COMMANDS')).toEqual([])
  })

  test('an unknown repository is 404; the sixth generation in a minute is 429', async () => {
    await startEmulator()
    const generate = () => call('POST', '/v1/organizations/1/setup-commands/generate', { repo_id: 101 })
    expect(await call('POST', '/v1/organizations/1/setup-commands/generate', { repo_id: 999 })).toEqual({
      status: 404,
      body: { message: 'Repository not found.', status_code: 404 }
    })
    // The 404 was admitted, so it counts: four more fit in the minute.
    for (let n = 0; n < 4; n++) expect((await generate()).status).toBe(200)
    expect((await generate()).status).toBe(429)
    clock.time += 60_001
    expect((await generate()).status).toBe(200)
  })
})

test("the client keeps setup-command generations to 5 a minute: the service's limit is never hit", async () => {
  const virtual = new VirtualClock(START)
  await startEmulator({ clock: virtual })
  const api = new HttpAgentRunApi({
    baseUrl: emulator.baseUrl,
    token: TOKEN,
    orgId: 1,
    clock: virtual,
    fetch: virtual.network.service
  })
  await virtual.run(async () => {
    for (let n = 0; n < 6; n++) await api.generateSetupCommands({ repo_id: 101 })
  })
  const generations = emulator.requests.filter(request => request.route === 'setup-commands')
  expect(generations.map(request => request.status)).toEqual([200, 200, 200, 200, 200, 200])
  // Five at once; the sixth waited for the first to leave the minute, and the margin for clock skew.
  expect(generations.map(request => request.at - START)).toEqual([0, 0, 0, 0, 0, 60_000 + SKEW_MARGIN_MS])
})

test('accounts: each one builds an emulator; an unknown name is refused', async () => {
  for (const name of ACCOUNT_NAMES) {
    await startEmulator(account(name))
    expect((await call('GET', '/v1/organizations')).status).toBe(200)
  }
  expect(() => account('nobody')).toThrow(/Unknown account "nobody"/)
})

test('the schema checker reports missing, mistyped and undeclared fields', () => {
  const page = responseSchema('GET', '/v1/organizations', 200)!
  expect(
    schemaProblems(
      { items: [{ id: 1, name: 'x', settings: {} }], total: 1, page: 1, size: 1, pages: 1 },
      page
    )
  ).toEqual([])
  expect(
    schemaProblems(
      { items: [{ id: '1', name: 'x', extra: true }], total: 1, page: 1, size: 1, pages: 1 },
      page
    )
  ).toEqual([
    '$.items[0].settings: required, missing',
    '$.items[0].id: expected integer, got string',
    '$.items[0].extra: not in OrganizationResponse'
  ])
  const run = responseSchema('GET', '/v1/organizations/{org_id}/agent/run/{agent_run_id}', 200)!
  expect(schemaProblems({ id: 1, organization_id: 1, source_type: 'NOPE' }, run)).toHaveLength(1)
  expect(
    schemaProblems({ id: 1, organization_id: 1, source_type: 'SETUP_COMMANDS', metadata: { a: 1 } }, run)
  ).toEqual([])
})
