import { OctokitGitHubApi } from '../../../src/github/octokit-api.js'
import { call, fake, ISSUE, REPO, startFake, TOKEN } from '../../support/github-fake-world.js'
import { timeLimit } from '../../../src/clock.js'
import { VirtualClock } from '../../support/virtual-clock.js'

/**
 * Faults injected into the fake GitHub: what each answers, and that the action's client gets through
 * them.
 */

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

  test("the action's request policy gets through both: Retry-After's 3 s, then retries 1 s and 4 s later", async () => {
    const clock = new VirtualClock()
    await startFake({ clock })
    const warnings: string[] = []
    const api = new OctokitGitHubApi({
      token: TOKEN,
      repository: `${REPO.owner}/${REPO.repo}`,
      apiUrl: fake.baseUrl,
      warn: message => warnings.push(message),
      clock,
      fetch: clock.network.github
    })
    fake.addPullRequest({ number: 4, title: 'T', body: '', head: 'feature', base: 'main' })
    fake.injectSecondaryRateLimit(1, /\/pulls\//, 3)
    fake.injectServerError(2, /\/pulls\//, 502)
    const started = clock.now()
    const pull = await clock.run(() => api.pullRequestBranches(4))
    expect(pull).toMatchObject({ head: 'feature', base: 'main', headRepository: 'octo-org/octo-repo' })
    expect(fake.requests.map(request => [request.status, request.at - started])).toEqual([
      [403, 0],
      [502, 3_000],
      [502, 4_000],
      [200, 8_000]
    ])
    expect(warnings).toEqual([
      'GitHub secondary rate limit on GET /repos/{owner}/{repo}/pulls/{pull_number}: retrying in 3 s'
    ])
  })

  describe('the work done, the answer lost', () => {
    test("502: the comment is made, the client gets the front end's 502", async () => {
      await startFake()
      fake.injectLostAnswer(1, '502', /\/comments$/, 'POST')
      expect((await call('GET', `${ISSUE}/5/comments`)).status).toBe(200)
      const lost = await call('POST', `${ISSUE}/5/comments`, { body: { body: 'hi' } })
      expect(lost).toMatchObject({ status: 502, body: { message: 'Server Error' } })
      expect(fake.comments(5).map(comment => comment.body)).toEqual(['hi'])
      expect(fake.requests.map(request => [request.method, request.status, !!request.applied])).toEqual([
        ['GET', 200, false],
        ['POST', 502, true]
      ])
      expect((await call('POST', `${ISSUE}/5/comments`, { body: { body: 'again' } })).status).toBe(201)
      expect(() => fake.injectLostAnswer(0, 'reset')).toThrow(/times/)
    })

    test('reset: the comment is made, the connection closed without an answer', async () => {
      await startFake()
      fake.injectLostAnswer(1, 'reset', /\/comments$/, 'POST')
      await expect(call('POST', `${ISSUE}/5/comments`, { body: { body: 'hi' } })).rejects.toThrow(
        /fetch failed/
      )
      expect(fake.comments(5)).toHaveLength(1)
      expect(fake.requests[0]).toMatchObject({ status: 0, applied: true })
    })

    test("late: the comment is made, its answer held past the client's 30 s, when it gives up", async () => {
      const clock = new VirtualClock()
      await startFake({ clock })
      fake.injectLostAnswer(1, 'late', /\/comments$/, 'POST')
      const started = clock.now()
      const ended = await clock.run(async () => {
        const limit = AbortSignal.any([timeLimit(clock, 30_000, new Error('limit')).signal])
        return clock.network
          .github(`${fake.baseUrl}${ISSUE}/5/comments`, {
            method: 'POST',
            headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ body: 'hi' }),
            signal: limit
          })
          .then(
            response => response.status,
            () => clock.now() - started
          )
      })
      expect(ended).toBe(30_000)
      expect(fake.comments(5)).toHaveLength(1)
      expect(fake.requests[0]).toMatchObject({ status: 0, applied: true })
    })
  })
})
