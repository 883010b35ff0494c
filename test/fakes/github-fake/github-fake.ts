import { FakeGitHub, type Permission } from '../../../scripts/github-fake/index.js'
import { responseProblems } from '../../../scripts/github-openapi.js'
import {
  ALICE,
  call,
  DOCS,
  fake,
  ISSUE,
  octokit,
  octokitWith,
  REPO,
  startFake,
  statusOf,
  TOKEN
} from '../../support/github-fake-world.js'

/**
 * The fake GitHub's authentication, routing, permissions, pull requests and life, asked as the action
 * asks it.
 */

describe('authentication', () => {
  test('a wrong token is 401 Bad credentials, a missing one 401 Requires authentication', async () => {
    await startFake()
    const path = `/repos/${REPO.owner}/${REPO.repo}/collaborators/alice/permission`
    expect(await call('GET', path, { authorization: 'token nope' })).toMatchObject({
      status: 401,
      body: { message: 'Bad credentials', documentation_url: DOCS }
    })
    expect((await call('GET', path, { authorization: null })).body.message).toBe('Requires authentication')
    expect((await call('GET', path, { authorization: `Bearer ${TOKEN}` })).status).toBe(200)
    expect((await call('GET', path, { authorization: `TOKEN ${TOKEN}` })).status).toBe(200)

    const wrong = octokitWith('nope')
    await expect(wrong.rest.pulls.get({ ...REPO, pull_number: 1 })).rejects.toMatchObject({ status: 401 })
    expect(fake.requests.map(request => [request.authorization, request.status])).toEqual([
      ['token nope', 401],
      [undefined, 401],
      [`Bearer ${TOKEN}`, 200],
      [`TOKEN ${TOKEN}`, 200],
      ['token nope', 401]
    ])
  })

  test('GET /user is 403 for a GITHUB_TOKEN, the actor when the identity is visible', async () => {
    await startFake()
    await expect(octokit.rest.users.getAuthenticated()).rejects.toMatchObject({
      status: 403,
      response: { data: { message: 'Resource not accessible by integration' } }
    })
    await fake.stop()

    await startFake({ identityVisible: true, actor: { login: 'deploy-bot', type: 'User' } })
    const { data } = await octokit.rest.users.getAuthenticated()
    expect(data).toMatchObject({ login: 'deploy-bot', type: 'User' })
  })
})

describe('routing', () => {
  test('another repository, an unknown route or a non-numeric number is 404 Not Found', async () => {
    await startFake()
    fake.addPullRequest({ number: 3, title: 'T', body: '', head: 'h', base: 'main' })
    const notFound = { status: 404, body: { message: 'Not Found' } }
    expect(await call('GET', '/repos/octo-org/other/pulls/3')).toMatchObject(notFound)
    expect(await call('GET', '/repos/someone/octo-repo/pulls/3')).toMatchObject(notFound)
    expect(await call('GET', '/repos/octo-org/octo-repo/pulls/three')).toMatchObject(notFound)
    expect(await call('DELETE', '/repos/octo-org/octo-repo/pulls/3')).toMatchObject(notFound)
    expect(await call('GET', '/rate_limit')).toMatchObject({ ...notFound, body: { documentation_url: DOCS } })
    // Names are case-insensitive, as on GitHub.
    expect((await call('GET', '/repos/Octo-Org/OCTO-REPO/pulls/3')).status).toBe(200)
  })

  test('every answer is JSON with rate limit headers; the request is recorded', async () => {
    await startFake()
    const first = await call('GET', `${ISSUE}/1/comments?per_page=5`)
    const second = await call('GET', '/nowhere')
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(second.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(first.headers.get('x-ratelimit-limit')).toBe('5000')
    expect(first.headers.get('x-ratelimit-resource')).toBe('core')
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000)
    expect([first, second].map(reply => reply.headers.get('x-ratelimit-used'))).toEqual(['1', '2'])
    expect(second.headers.get('x-ratelimit-remaining')).toBe('4998')
    expect(fake.requests[0]).toMatchObject({
      method: 'GET',
      path: `${ISSUE}/1/comments`,
      query: { per_page: '5' },
      body: undefined,
      status: 200
    })
  })

  test('a body that is not JSON is 400 Problems parsing JSON', async () => {
    await startFake()
    const reply = await call('POST', `${ISSUE}/1/comments`, { raw: '{"body": ' })
    expect(reply).toMatchObject({ status: 400, body: { message: 'Problems parsing JSON' } })
    expect(fake.requests[0]?.body).toBe('{"body": ')
  })
})

describe('collaborator permissions', () => {
  test('each permission as GitHub reports it, role_name telling maintain and triage apart', async () => {
    const levels: Record<Permission, [string, string]> = {
      admin: ['admin', 'admin'],
      maintain: ['write', 'maintain'],
      write: ['write', 'write'],
      triage: ['read', 'triage'],
      read: ['read', 'read'],
      none: ['none', 'none']
    }
    const permissions = Object.fromEntries(
      Object.keys(levels).map(level => [`user-${level}`, level as Permission])
    )
    await startFake({ permissions })
    for (const [level, [permission, roleName]] of Object.entries(levels)) {
      const { status, data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
        ...REPO,
        username: `user-${level}`
      })
      expect(status).toBe(200)
      expect(data).toMatchObject({
        permission,
        role_name: roleName,
        user: { login: `user-${level}`, type: 'User' }
      })
    }
  })

  test('a stranger has none; setPermission changes the answer', async () => {
    await startFake()
    const ask = async () =>
      (await octokit.rest.repos.getCollaboratorPermissionLevel({ ...REPO, username: 'bob' })).data
    expect(await ask()).toMatchObject({ permission: 'none', role_name: 'none' })
    fake.setPermission('Bob', 'maintain')
    expect(await ask()).toMatchObject({
      permission: 'write',
      role_name: 'maintain',
      user: { permissions: { admin: false, maintain: true, push: true, triage: true, pull: true } }
    })
  })
})

describe('team memberships', () => {
  const TEAM_MEMBERSHIP = '/orgs/{org}/teams/{team_slug}/memberships/{username}'

  test('an active or pending member as GitHub answers them; no member is 404; unreadable teams are 403', async () => {
    await startFake()
    fake.setTeam('octo-org', 'Reviewers', { Dave: 'active', erin: 'pending' })
    const ask = (username: string) =>
      octokit.rest.teams.getMembershipForUserInOrg({ org: 'octo-org', team_slug: 'reviewers', username })
    const active = await ask('dave')
    expect(active.status).toBe(200)
    expect(responseProblems('GET', TEAM_MEMBERSHIP, 200, active.data)).toEqual([])
    expect(active.data).toMatchObject({ role: 'member', state: 'active' })
    expect((await ask('erin')).data).toMatchObject({ state: 'pending' })
    expect(await statusOf(ask('frank'))).toBe(404)
    expect(
      await statusOf(
        octokit.rest.teams.getMembershipForUserInOrg({
          org: 'octo-org',
          team_slug: 'other',
          username: 'dave'
        })
      )
    ).toBe(404)
    fake.setTeamsReadable(false)
    expect(await statusOf(ask('dave'))).toBe(403)
  })
})

describe('pull requests', () => {
  test('a pull request in GitHub shape; an unknown one is 404', async () => {
    await startFake()
    fake.addPullRequest({ number: 7, title: 'Fix it', body: 'Fixes #6', head: 'fix-it', base: 'main' })
    fake.addPullRequest({
      number: 8,
      title: 'From a fork',
      body: '',
      head: 'patch-1',
      base: 'main',
      user: ALICE,
      headRepository: 'alice/octo-repo'
    })
    const { data } = await octokit.rest.pulls.get({ ...REPO, pull_number: 7 })
    expect(data).toMatchObject({
      number: 7,
      title: 'Fix it',
      body: 'Fixes #6',
      state: 'open',
      html_url: 'https://github.com/octo-org/octo-repo/pull/7',
      head: { ref: 'fix-it', repo: { full_name: 'octo-org/octo-repo' } },
      base: { ref: 'main', repo: { full_name: 'octo-org/octo-repo' } },
      user: { login: 'octocat', type: 'User' }
    })
    expect(data.head.sha).toMatch(/^[0-9a-f]{40}$/)
    const fork = (await octokit.rest.pulls.get({ ...REPO, pull_number: 8 })).data
    expect(fork).toMatchObject({ head: { repo: { full_name: 'alice/octo-repo', fork: true } }, user: ALICE })
    expect(await statusOf(octokit.rest.pulls.get({ ...REPO, pull_number: 9 }))).toBe(404)
  })
})

describe('GitHub Enterprise Server', () => {
  test('under /api/v3: the base URL, links and web URLs carry it, recorded paths do not', async () => {
    await startFake({ pathPrefix: '/api/v3' })
    expect(fake.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v3$/)
    const origin = fake.baseUrl.replace(/\/api\/v3$/, '')
    for (let i = 1; i <= 35; i++) fake.addComment(2, `comment ${i}`, ALICE)
    const all = await octokit.paginate(octokit.rest.issues.listComments, { ...REPO, issue_number: 2 })
    expect(all).toHaveLength(35)
    expect(all[0]?.html_url).toBe(`${origin}/octo-org/octo-repo/issues/2#issuecomment-${all[0]?.id}`)
    expect(fake.requests.map(request => [request.path, request.query.page])).toEqual([
      [`${ISSUE}/2/comments`, undefined],
      [`${ISSUE}/2/comments`, '2']
    ])
    const outside = await fetch(`${origin}${ISSUE}/2/comments`, {
      headers: { authorization: `token ${TOKEN}` }
    })
    expect(outside.status).toBe(404)
  })
})

describe('lifecycle', () => {
  test('stop closes every connection: a keep-alive one, and a request held for good', async () => {
    await startFake()
    await call('GET', '/user')
    fake.injectHang(1, /^\/user$/)
    const held = fetch(`${fake.baseUrl}/user`, { headers: { authorization: `token ${TOKEN}` } })
    while (fake.requests.length < 2) await new Promise(resolve => setImmediate(resolve))
    // Closing waits for no connection: a server that did would wait here for good (jest's limit first).
    await fake.stop()
    await expect(held).rejects.toThrow()
    await expect(fetch(`${fake.baseUrl}/user`)).rejects.toThrow()
    expect(() => new FakeGitHub().baseUrl).toThrow(/not started/)
  })
})
