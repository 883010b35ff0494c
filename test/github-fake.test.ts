import { Octokit } from '@octokit/rest'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import { FakeGitHub, type FakeGitHubOptions, type Permission } from '../scripts/github-fake/index.js'
import { responseProblems } from '../scripts/github-openapi.js'

/** The fake GitHub over real HTTP on loopback, driven by octokit as the action drives GitHub. */

const TOKEN = 'github-token'
const REPO = { owner: 'octo-org', repo: 'octo-repo' }
const ACTOR = { login: 'github-actions[bot]', type: 'Bot' as const }
const ALICE = { login: 'alice', type: 'User' as const }
const DOCS = 'https://docs.github.com/rest'
/** octokit logs every failed request; here failures are expected. */
const QUIET = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined }

let fake: FakeGitHub
let octokit: Octokit

async function startFake(options: FakeGitHubOptions = {}): Promise<void> {
  fake = new FakeGitHub(options)
  await fake.start()
  octokit = new Octokit({ auth: TOKEN, baseUrl: fake.baseUrl, log: QUIET })
}

afterEach(async () => {
  await fake?.stop()
})

interface Reply {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
  headers: Headers
}

/** A plain request, for what octokit hides: raw statuses, headers and bodies. */
async function call(
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; authorization?: string | null } = {}
): Promise<Reply> {
  const headers: Record<string, string> = {}
  const authorization = options.authorization === undefined ? `token ${TOKEN}` : options.authorization
  if (authorization !== null) headers.authorization = authorization
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(fake.baseUrl + path, { method, headers, body })
  const text = await response.text()
  return { status: response.status, body: JSON.parse(text), headers: response.headers }
}

/** The status of octokit's RequestError, or of the answer when there was none. */
async function statusOf(request: Promise<{ status: number }>): Promise<number> {
  try {
    return (await request).status
  } catch (error) {
    return (error as { status: number }).status
  }
}

const ISSUE = `/repos/${REPO.owner}/${REPO.repo}/issues`

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

    const wrong = new Octokit({ auth: 'nope', baseUrl: fake.baseUrl, log: QUIET })
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

describe('issue comments', () => {
  test('a created comment is written by the actor, listed, and kept in creation order', async () => {
    await startFake({ permissions: { alice: 'write' } })
    fake.addComment(5, '/codegen fix the test', ALICE)
    const created = await octokit.rest.issues.createComment({ ...REPO, issue_number: 5, body: 'On it' })
    expect(created.status).toBe(201)
    expect(created.data).toMatchObject({ body: 'On it', user: ACTOR, author_association: 'NONE' })
    expect(created.data.html_url).toBe(
      `https://github.com/octo-org/octo-repo/issues/5#issuecomment-${created.data.id}`
    )

    const listed = await octokit.rest.issues.listComments({ ...REPO, issue_number: 5 })
    expect(
      listed.data.map(comment => [comment.body, comment.user?.login, comment.author_association])
    ).toEqual([
      ['/codegen fix the test', 'alice', 'COLLABORATOR'],
      ['On it', 'github-actions[bot]', 'NONE']
    ])
    expect(listed.data[0]).toMatchObject({ node_id: expect.any(String), user: { id: expect.any(Number) } })
    expect(fake.comments(5).map(comment => comment.body)).toEqual(['/codegen fix the test', 'On it'])
    expect(fake.comments(6)).toEqual([])
    expect(fake.requests[0]).toMatchObject({ method: 'POST', body: { body: 'On it' }, status: 201 })
  })

  test('105 comments: octokit.paginate follows the Link header through every page', async () => {
    await startFake()
    for (let i = 1; i <= 105; i++) fake.addComment(9, `comment ${i}`, ALICE)
    const all = await octokit.paginate(octokit.rest.issues.listComments, { ...REPO, issue_number: 9 })
    expect(all.map(comment => comment.body)).toEqual(
      Array.from({ length: 105 }, (_, i) => `comment ${i + 1}`)
    )
    expect(fake.requests.map(request => request.query.page ?? '1')).toEqual(['1', '2', '3', '4'])

    const big = await octokit.paginate(octokit.rest.issues.listComments, {
      ...REPO,
      issue_number: 9,
      per_page: 100
    })
    expect(big).toHaveLength(105)
    expect(fake.requests).toHaveLength(6)
  })

  test('the Link header is absolute and as GitHub writes it; per_page is capped at 100', async () => {
    await startFake()
    for (let i = 1; i <= 25; i++) fake.addComment(9, `comment ${i}`, ALICE)
    const url = `${fake.baseUrl}${ISSUE}/9/comments`
    const first = await call('GET', `${ISSUE}/9/comments?per_page=10`)
    expect(first.body).toHaveLength(10)
    expect(first.headers.get('link')).toBe(
      `<${url}?per_page=10&page=2>; rel="next", <${url}?per_page=10&page=3>; rel="last"`
    )
    const middle = await call('GET', `${ISSUE}/9/comments?per_page=10&page=2`)
    expect(middle.headers.get('link')).toBe(
      `<${url}?per_page=10&page=1>; rel="prev", <${url}?per_page=10&page=3>; rel="next", ` +
        `<${url}?per_page=10&page=3>; rel="last", <${url}?per_page=10&page=1>; rel="first"`
    )
    const last = await call('GET', `${ISSUE}/9/comments?per_page=10&page=3`)
    expect(last.body.map((comment: { body: string }) => comment.body)).toEqual([
      'comment 21',
      'comment 22',
      'comment 23',
      'comment 24',
      'comment 25'
    ])
    expect(last.headers.get('link')).not.toContain('rel="next"')
    const capped = await call('GET', `${ISSUE}/9/comments?per_page=500`)
    expect(capped.body).toHaveLength(25)
    expect(capped.headers.get('link')).toBeNull()
  })

  test('an update changes the body; only the actor may edit, unknown ids are 404', async () => {
    await startFake()
    const theirs = fake.addComment(5, 'mine, not yours', ALICE)
    const { data: ours } = await octokit.rest.issues.createComment({
      ...REPO,
      issue_number: 5,
      body: 'Working'
    })
    const updated = await octokit.rest.issues.updateComment({ ...REPO, comment_id: ours.id, body: 'Done' })
    expect(updated.status).toBe(200)
    expect(updated.data).toMatchObject({ id: ours.id, body: 'Done', created_at: ours.created_at })
    expect(fake.comments(5).map(comment => comment.body)).toEqual(['mine, not yours', 'Done'])

    expect(await call('PATCH', `${ISSUE}/comments/${theirs.id}`, { body: { body: 'x' } })).toMatchObject({
      status: 403,
      body: { message: 'Resource not accessible by integration' }
    })
    expect(await statusOf(octokit.rest.issues.updateComment({ ...REPO, comment_id: 12345, body: 'x' }))).toBe(
      404
    )
    expect(fake.comments(5)[0]?.body).toBe('mine, not yours')
  })

  test('a body of 65536 characters is fine, one more is 422 Validation Failed; so is a missing body', async () => {
    await startFake()
    const max = 'x'.repeat(65536)
    const created = await octokit.rest.issues.createComment({ ...REPO, issue_number: 5, body: max })
    expect(created.data.body).toHaveLength(65536)

    const tooLong = {
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [
          {
            resource: 'IssueComment',
            code: 'custom',
            field: 'body',
            message: 'body is too long (maximum is 65536 characters)'
          }
        ],
        documentation_url: `${DOCS}/issues/comments#create-an-issue-comment`
      }
    }
    expect(await call('POST', `${ISSUE}/5/comments`, { body: { body: `${max}x` } })).toEqual(
      expect.objectContaining(tooLong)
    )
    const update = await call('PATCH', `${ISSUE}/comments/${created.data.id}`, { body: { body: `${max}x` } })
    expect(update).toMatchObject({ status: 422, body: { message: 'Validation Failed' } })
    expect(update.body.errors).toEqual(tooLong.body.errors)

    const missing = await call('POST', `${ISSUE}/5/comments`, { body: {} })
    expect(missing).toMatchObject({
      status: 422,
      body: { message: expect.stringMatching(/^Invalid request/) }
    })
    expect((await call('POST', `${ISSUE}/5/comments`, { body: { body: 5 } })).status).toBe(422)
    expect(fake.comments(5)).toHaveLength(1)
  })
})

describe('reactions', () => {
  test('reactions on a comment and on an issue are 201, a repeat 200; bad content 422', async () => {
    await startFake()
    const comment = fake.addComment(5, '/codegen go', ALICE)
    const onComment = await octokit.rest.reactions.createForIssueComment({
      ...REPO,
      comment_id: comment.id,
      content: 'eyes'
    })
    expect(onComment).toMatchObject({ status: 201, data: { content: 'eyes', user: ACTOR } })
    expect(onComment.data.id).toEqual(expect.any(Number))
    const again = await octokit.rest.reactions.createForIssueComment({
      ...REPO,
      comment_id: comment.id,
      content: 'eyes'
    })
    expect(again).toMatchObject({ status: 200, data: { id: onComment.data.id } })
    const onIssue = await octokit.rest.reactions.createForIssue({
      ...REPO,
      issue_number: 5,
      content: 'rocket'
    })
    expect(onIssue.status).toBe(201)

    expect(
      (await call('POST', `${ISSUE}/comments/${comment.id}/reactions`, { body: { content: 'smile' } })).status
    ).toBe(422)
    expect((await call('POST', `${ISSUE}/5/reactions`, { body: {} })).status).toBe(422)
    expect(
      await statusOf(octokit.rest.reactions.createForIssueComment({ ...REPO, comment_id: 1, content: '+1' }))
    ).toBe(404)
    expect(fake.reactions).toEqual([
      { target: { commentId: comment.id }, content: 'eyes', user: ACTOR },
      { target: { issueNumber: 5 }, content: 'rocket', user: ACTOR }
    ])
  })
})

describe('review comments, labels and assignees', () => {
  const PR = { number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' }

  test('review comments list with their thread; a reply joins the thread of the comment it answers', async () => {
    await startFake()
    fake.addPullRequest(PR)
    const root = fake.addReviewComment(7, {
      body: '/codegen use a Map',
      user: ALICE,
      path: 'src/a.ts',
      line: 4
    })
    const reply = await octokit.rest.pulls.createReplyForReviewComment({
      ...REPO,
      pull_number: 7,
      comment_id: root.id,
      body: 'On it'
    })
    expect(reply).toMatchObject({
      status: 201,
      data: { in_reply_to_id: root.id, path: 'src/a.ts', line: 4, side: 'RIGHT', user: ACTOR, body: 'On it' }
    })
    // A reply to the reply still lands in the root's thread.
    const second = await octokit.rest.pulls.createReplyForReviewComment({
      ...REPO,
      pull_number: 7,
      comment_id: reply.data.id,
      body: 'Again'
    })
    expect(second.data.in_reply_to_id).toBe(root.id)
    for (let i = 0; i < 30; i++) fake.addReviewComment(7, { body: `c${i}`, user: ALICE })
    const all = await octokit.paginate(octokit.rest.pulls.listReviewComments, { ...REPO, pull_number: 7 })
    expect(all).toHaveLength(33)
    expect(all[0]).toMatchObject({ id: root.id, body: '/codegen use a Map', subject_type: 'line' })
    expect(all[0]!.html_url).toBe(`https://github.com/octo-org/octo-repo/pull/7#discussion_r${root.id}`)
    expect(await statusOf(octokit.rest.pulls.listReviewComments({ ...REPO, pull_number: 8 }))).toBe(404)
    expect(
      await statusOf(
        octokit.rest.pulls.createReplyForReviewComment({
          ...REPO,
          pull_number: 8,
          comment_id: root.id,
          body: 'x'
        })
      )
    ).toBe(404)
  })

  test('review comments are edited by their author only; empty bodies are 422', async () => {
    await startFake()
    fake.addPullRequest(PR)
    const root = fake.addReviewComment(7, { body: 'mine', user: ALICE })
    const reply = await octokit.rest.pulls.createReplyForReviewComment({
      ...REPO,
      pull_number: 7,
      comment_id: root.id,
      body: 'first'
    })
    const edited = await octokit.rest.pulls.updateReviewComment({
      ...REPO,
      comment_id: reply.data.id,
      body: 'second'
    })
    expect(edited).toMatchObject({ status: 200, data: { body: 'second' } })
    expect(fake.reviewComments(7).map(c => c.body)).toEqual(['mine', 'second'])
    expect(
      await statusOf(octokit.rest.pulls.updateReviewComment({ ...REPO, comment_id: root.id, body: 'x' }))
    ).toBe(403)
    expect(
      (
        await call('PATCH', `/repos/octo-org/octo-repo/pulls/comments/${reply.data.id}`, {
          body: { body: ' ' }
        })
      ).status
    ).toBe(422)
    expect(
      await statusOf(octokit.rest.pulls.updateReviewComment({ ...REPO, comment_id: 1, body: 'x' }))
    ).toBe(404)
  })

  test('reactions on review comments', async () => {
    await startFake()
    fake.addPullRequest(PR)
    const root = fake.addReviewComment(7, { body: 'x', user: ALICE })
    const reaction = await octokit.rest.reactions.createForPullRequestReviewComment({
      ...REPO,
      comment_id: root.id,
      content: 'eyes'
    })
    expect(reaction.status).toBe(201)
    expect(
      await statusOf(
        octokit.rest.reactions.createForPullRequestReviewComment({ ...REPO, comment_id: 1, content: 'eyes' })
      )
    ).toBe(404)
    expect(fake.reactions).toEqual([{ target: { reviewCommentId: root.id }, content: 'eyes', user: ACTOR }])
  })

  test('labels and assignees show on the pull request', async () => {
    await startFake()
    fake.addPullRequest(PR)
    fake.addLabel(7, 'codegen')
    fake.addLabel(7, 'Codegen')
    fake.assign(7, 'alice')
    const { data } = await octokit.rest.pulls.get({ ...REPO, pull_number: 7 })
    expect(data.labels.map(label => label.name)).toEqual(['codegen'])
    expect(data.assignees?.map(user => user.login)).toEqual(['alice'])
    expect(fake.labels(7)).toEqual(['codegen'])
    expect(fake.assignees(7)).toEqual(['alice'])
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

describe('injected faults', () => {
  test('a secondary rate limit: 403 with retry-after and GitHub body, for the next matching requests', async () => {
    await startFake()
    fake.injectSecondaryRateLimit(2, /\/comments$/, 7)
    const other = await call('GET', `/repos/${REPO.owner}/${REPO.repo}/collaborators/alice/permission`)
    expect(other.status).toBe(200)
    for (let i = 0; i < 2; i++) {
      const limited = await call('POST', `${ISSUE}/5/comments`, { body: { body: 'hi' } })
      expect(limited.status).toBe(403)
      expect(limited.headers.get('retry-after')).toBe('7')
      expect(Number(limited.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0)
      expect(limited.body).toEqual({
        message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        documentation_url:
          'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits'
      })
    }
    expect((await call('POST', `${ISSUE}/5/comments`, { body: { body: 'hi' } })).status).toBe(201)
    // Refused requests have no effect.
    expect(fake.comments(5)).toHaveLength(1)
    expect(fake.requests.map(request => request.status)).toEqual([200, 403, 403, 201])
  })

  test('a server error: the given status with {"message":"Server Error"}, then normal answers', async () => {
    await startFake()
    fake.injectServerError(1, undefined, 502)
    fake.injectServerError(1)
    const bad = await call('GET', `${ISSUE}/5/comments`)
    expect(bad).toMatchObject({ status: 502, body: { message: 'Server Error' } })
    expect((await call('GET', `${ISSUE}/5/comments`)).status).toBe(500)
    expect((await call('GET', `${ISSUE}/5/comments`)).status).toBe(200)
    expect(() => fake.injectServerError(1, undefined, 404)).toThrow(/500-599/)
    expect(() => fake.injectSecondaryRateLimit(0)).toThrow(/times/)
  })

  test("octokit's throttling and retry plugins get through both", async () => {
    await startFake()
    const secondaryWaits: number[] = []
    const Plugged = Octokit.plugin(retry, throttling)
    const client = new Plugged({
      auth: TOKEN,
      baseUrl: fake.baseUrl,
      log: QUIET,
      // Waits of a millisecond per second (throttling) and per retry (retry), to stay fast.
      retry: { retryAfterBaseValue: 1 },
      throttle: {
        retryAfterBaseValue: 1,
        onRateLimit: () => false,
        onSecondaryRateLimit: (retryAfter: number) => {
          secondaryWaits.push(retryAfter)
          return true
        }
      }
    })
    fake.addPullRequest({ number: 4, title: 'T', body: '', head: 'feature', base: 'main' })
    fake.injectSecondaryRateLimit(1, /\/pulls\//, 3)
    fake.injectServerError(2, /\/pulls\//, 502)
    const { data } = await client.rest.pulls.get({ ...REPO, pull_number: 4 })
    expect(data.head.ref).toBe('feature')
    expect(secondaryWaits).toEqual([3])
    expect(fake.requests.map(request => request.status)).toEqual([403, 502, 502, 200])
  })
})

describe('check runs', () => {
  const CHECK_RUNS = '/repos/{owner}/{repo}/check-runs'
  const CHECK_RUN = '/repos/{owner}/{repo}/check-runs/{check_run_id}'
  const PR = { number: 7, title: 'Fix it', body: '', head: 'fix-it', base: 'main' }

  test('created in progress on a pull request head, concluded, read back: in GitHub shape', async () => {
    await startFake()
    fake.addPullRequest({ ...PR, headSha: 'A'.repeat(40) })
    const sha = (await octokit.rest.pulls.get({ ...REPO, pull_number: 7 })).data.head.sha
    expect(sha).toBe('a'.repeat(40))
    expect(fake.headSha(7)).toBe(sha)
    const created = await octokit.rest.checks.create({
      ...REPO,
      name: 'Codegen',
      head_sha: sha,
      status: 'in_progress',
      details_url: 'https://codegen.com/runs/41',
      external_id: '41',
      output: { title: 'Working', summary: 'Agent run **#41** is working' }
    })
    expect(created.status).toBe(201)
    expect(responseProblems('POST', CHECK_RUNS, 201, created.data)).toEqual([])
    expect(created.data).toMatchObject({
      name: 'Codegen',
      head_sha: sha,
      status: 'in_progress',
      conclusion: null,
      completed_at: null,
      external_id: '41',
      details_url: 'https://codegen.com/runs/41',
      html_url: `https://github.com/octo-org/octo-repo/runs/${created.data.id}`,
      app: { slug: 'github-actions' },
      pull_requests: [{ number: 7, head: { sha } }]
    })

    const updated = await octokit.rest.checks.update({
      ...REPO,
      check_run_id: created.data.id,
      conclusion: 'success',
      output: { title: 'Succeeded', summary: 'Done' }
    })
    expect(responseProblems('PATCH', CHECK_RUN, 200, updated.data)).toEqual([])
    expect(updated.data).toMatchObject({ status: 'completed', conclusion: 'success' })
    expect(updated.data.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    const read = await octokit.rest.checks.get({ ...REPO, check_run_id: created.data.id })
    expect(responseProblems('GET', CHECK_RUN, 200, read.data)).toEqual([])
    expect(read.data.output).toMatchObject({ title: 'Succeeded', summary: 'Done', text: null })

    expect(fake.checkRuns()).toEqual([
      expect.objectContaining({
        id: created.data.id,
        name: 'Codegen',
        head_sha: sha,
        status: 'completed',
        conclusion: 'success',
        external_id: '41',
        output: { title: 'Succeeded', summary: 'Done', text: null },
        writes: 2
      })
    ])
    expect(fake.invalidCheckRunRequests).toEqual([])
  })

  test('a token without checks: write is 403 as GitHub answers it; without checks: read, reads too', async () => {
    await startFake({ checks: 'read' })
    fake.addPullRequest(PR)
    const body = { name: 'Codegen', head_sha: fake.headSha(7), status: 'in_progress' }
    const refused = await call('POST', '/repos/octo-org/octo-repo/check-runs', { body })
    expect(refused).toMatchObject({
      status: 403,
      body: {
        message: 'Resource not accessible by integration',
        documentation_url: `${DOCS}/checks/runs#create-a-check-run`,
        status: '403'
      }
    })
    expect(refused.headers.get('x-accepted-github-permissions')).toBe('checks=write')
    await expect(
      octokit.rest.checks.update({ ...REPO, check_run_id: 1, status: 'completed', conclusion: 'success' })
    ).rejects.toMatchObject({
      status: 403,
      response: { data: { message: 'Resource not accessible by integration' } }
    })
    expect(await statusOf(octokit.rest.checks.get({ ...REPO, check_run_id: 1 }))).toBe(404)
    expect(fake.checkRuns()).toEqual([])
    await fake.stop()

    await startFake({ checks: 'none' })
    const read = await call('GET', '/repos/octo-org/octo-repo/check-runs/1')
    expect(read.status).toBe(403)
    expect(read.headers.get('x-accepted-github-permissions')).toBe('checks=read')
    fake.setChecksPermission('write')
    expect((await call('GET', '/repos/octo-org/octo-repo/check-runs/1')).status).toBe(404)
  })

  test("bodies GitHub's REST description refuses are 422 and recorded; GitHub's own rules too", async () => {
    await startFake()
    fake.addPullRequest(PR)
    const sha = fake.headSha(7)
    const path = '/repos/octo-org/octo-repo/check-runs'
    const invalid = [
      { name: 'Codegen', head_sha: sha, status: 'running' },
      { name: 'Codegen' },
      { name: 'Codegen', head_sha: sha, output: { title: 'T', summary: 'x'.repeat(65_536) } },
      { name: 'Codegen', head_sha: sha, output: { summary: 'no title' } },
      { name: 42, head_sha: sha }
    ]
    for (const body of invalid) {
      const answer = await call('POST', path, { body })
      expect(answer.status).toBe(422)
      expect(answer.body.message).toMatch(/^Invalid request\.\n\n/)
    }
    const problems = fake.invalidCheckRunRequests.map(request => request.problems.join('; '))
    expect(problems).toEqual([
      expect.stringMatching(/\/status: must be equal to one of the allowed values/),
      expect.stringMatching(/must have required property 'head_sha'/),
      expect.stringMatching(/\/output\/summary: must NOT have more than 65535 characters/),
      expect.stringMatching(/\/output: must have required property 'title'/),
      expect.stringMatching(/\/name: must be string/)
    ])
    // Exactly 65,535 characters is within GitHub's limit.
    const longest = { name: 'Codegen', head_sha: sha, output: { title: 'T', summary: 'x'.repeat(65_535) } }
    const created = await call('POST', path, { body: longest })
    expect(created.status).toBe(201)
    // An update that completes the run must conclude it (the schema's anyOf).
    const patch = await call('PATCH', `${path}/${created.body.id}`, { body: { status: 'completed' } })
    expect(patch.status).toBe(422)
    expect(fake.invalidCheckRunRequests).toHaveLength(6)

    // Past the schema: an unknown commit, a completed create without a conclusion, an unknown run.
    const unknown = 'b'.repeat(40)
    expect(await call('POST', path, { body: { name: 'C', head_sha: unknown } })).toMatchObject({
      status: 422,
      body: { message: `No commit found for SHA: ${unknown}` }
    })
    fake.addCommit(unknown)
    expect((await call('POST', path, { body: { name: 'C', head_sha: unknown } })).status).toBe(201)
    expect(
      (await call('POST', path, { body: { name: 'C', head_sha: sha, status: 'completed' } })).status
    ).toBe(422)
    expect((await call('PATCH', `${path}/999`, { body: { conclusion: 'success' } })).status).toBe(404)
    expect(fake.checkRuns().map(run => [run.head_sha, run.status])).toEqual([
      [sha, 'queued'],
      [unknown, 'queued']
    ])
  })
})

describe('lifecycle', () => {
  test('stop closes promptly with a keep-alive connection open', async () => {
    await startFake()
    await call('GET', '/user')
    const started = Date.now()
    await fake.stop()
    expect(Date.now() - started).toBeLessThan(500)
    await expect(fetch(`${fake.baseUrl}/user`)).rejects.toThrow()
    expect(() => new FakeGitHub().baseUrl).toThrow(/not started/)
  })
})
