import { timeLimit } from '../../../src/clock.js'
import type { CheckRunWrite } from '../../../src/github/api.js'
import { OctokitGitHubApi } from '../../../src/github/octokit-api.js'
import { FakeGitHub } from '../../../scripts/github-fake/index.js'
import { VirtualClock } from '../../support/virtual-clock.js'

describe('request-policy', () => {
  /**
   * GitHub's request policy (src/github/request-policy.ts) through the action's Octokit client against
   * the fake GitHub, on the virtual clock, to the millisecond: writes spaced, rate limits waited as
   * GitHub says (unless the wait would end after GitHub's calls must), server errors retried, the
   * answers a retry cannot change taken as they are, each attempt's time limit, and every wait ended
   * by the stop signal. The fake holds every check-run body to GitHub's REST description.
   */

  const PULL = /\/pulls\/7$/
  const COMMENT_EDIT = /\/issues\/comments\/\d+$/
  const COMMENT_CREATE = /\/issues\/7\/comments$/
  const SECONDARY = 'GitHub secondary rate limit on'

  let clock: VirtualClock
  let github: FakeGitHub
  let warnings: string[]
  /** Virtual epoch ms at the test's start: every time below is counted from it. */
  let start: number

  beforeEach(async () => {
    clock = new VirtualClock()
    start = clock.now()
    github = new FakeGitHub({ clock })
    await github.start()
    github.addPullRequests(7)
    warnings = []
  })

  afterEach(async () => {
    expect(github.invalidCheckRunRequests).toEqual([])
    await github.stop()
  })

  interface ClientOptions {
    /** Aborted when GitHub's calls must end. */
    signal?: AbortSignal
    /** When it aborts at the latest. */
    stopAt?: number
    /** GitHub's side of the network: the clock's, or the test's around it. */
    fetch?: typeof fetch
  }

  function client(options: ClientOptions = {}): OctokitGitHubApi {
    return new OctokitGitHubApi({
      token: 'github-token',
      repository: 'octo-org/octo-repo',
      apiUrl: github.baseUrl,
      warn: message => warnings.push(message),
      clock,
      fetch: options.fetch ?? clock.network.github,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.stopAt !== undefined ? { stopAt: start + options.stopAt } : {})
    })
  }

  /** A signal that aborts `ms` after the start, as the step's deadline does, saying `why`. */
  const stopAfter = (ms: number, why = 'timeout-minutes was reached'): AbortSignal =>
    timeLimit(clock, ms, new Error(why)).signal

  /**
   * The requests matching `path`: method, virtual ms from the start, GitHub's status (0: never
   * answered); by time, then method (requests sent at one moment arrive in any order).
   */
  const sent = (path: RegExp): Array<[string, number, number]> =>
    github.requests
      .filter(request => path.test(request.path))
      .map((request): [string, number, number] => [request.method, request.at - start, request.status])
      .sort(([methodA, atA], [methodB, atB]) => atA - atB || methodA.localeCompare(methodB))

  /** Runs `call` on the clock: how it ended (`ok`, or the error's message) and when. */
  async function timed(call: () => Promise<unknown>): Promise<{ ended: string; at: number }> {
    const ended = await clock.run(() =>
      call().then(
        () => 'ok',
        (error: Error) => error.message
      )
    )
    return { ended, at: clock.now() - start }
  }

  /** Reads pull request 7 through `api` on the clock: how it ended and when, and what was sent for it. */
  async function readPull(
    api: OctokitGitHubApi = client()
  ): Promise<{ ended: string; at: number; sent: Array<[string, number, number]> }> {
    const { ended, at } = await timed(() => api.pullRequestBranches(7))
    return { ended, at, sent: sent(PULL) }
  }

  /** The tracking comment the action wrote on pull request 7 (edits need its own comment). */
  const ownComment = (): number =>
    github.addComment(7, 'Codegen is working', { login: 'github-actions[bot]', type: 'Bot' }).id

  const working: CheckRunWrite = {
    status: 'in_progress',
    title: 'Working',
    summary: 'Agent run #41 is working'
  }

  /** An answer of `response` with its headers changed by `change` (the body as it was). */
  async function withHeaders(response: Response, change: (headers: Headers) => void): Promise<Response> {
    const headers = new Headers(response.headers)
    change(headers)
    const changed = new Response(await response.arrayBuffer(), {
      status: response.status,
      statusText: response.statusText,
      headers
    })
    return Object.defineProperty(changed, 'url', { value: response.url })
  }

  /**
   * GitHub's answers when the token's hourly bucket is empty: the fake's 403s (injected as client
   * errors, worded as GitHub words them) carry x-ratelimit-remaining 0 and a reset `resetInSeconds`
   * after they are answered. The fake counts its buckets but never empties them.
   */
  function emptyBucket(resetInSeconds: number): typeof fetch {
    return refusals(headers => {
      headers.set('x-ratelimit-remaining', '0')
      headers.set('x-ratelimit-reset', String(Math.floor(clock.now() / 1000) + resetInSeconds))
    })
  }

  /** GitHub's side of the network with the headers of every 403 changed by `change`. */
  function refusals(change: (headers: Headers) => void): typeof fetch {
    return async (input, init) => {
      const response = await clock.network.github(input, init)
      return response.status === 403 ? withHeaders(response, change) : response
    }
  }
  const PRIMARY_LIMIT = 'API rate limit exceeded for installation ID 1.'

  describe('spacing', () => {
    test('writes a second apart, reads never held back, a write after a quiet while sent at once', async () => {
      const id = ownComment()
      const api = client()
      const { ended, at } = await timed(async () => {
        await Promise.all([
          api.updateComment(id, 'one'),
          api.updateComment(id, 'two'),
          api.pullRequestBranches(7),
          api.createCheckRun('Codegen', github.headSha(7), working),
          api.pullRequestBranches(7)
        ])
        await clock.advance(5_000)
        await api.updateComment(id, 'three')
      })
      expect(ended).toBe('ok')
      expect(sent(/./)).toEqual([
        ['GET', 0, 200],
        ['GET', 0, 200],
        ['PATCH', 0, 200],
        ['PATCH', 1_000, 200],
        ['POST', 2_000, 201],
        ['PATCH', 7_000, 200]
      ])
      expect(at).toBe(7_000)
      expect(warnings).toEqual([])
    })

    test('comments created 3 s apart; other writes between them keep to a second', async () => {
      const id = ownComment()
      const api = client()
      const { ended } = await timed(() =>
        Promise.all([
          api.createComment(7, 'first'),
          api.updateComment(id, 'edited'),
          api.createComment(7, 'second'),
          api.react({ commentId: id }, 'eyes'),
          api.createComment(7, 'third')
        ])
      )
      expect(ended).toBe('ok')
      expect(sent(/./)).toEqual([
        ['POST', 0, 201],
        ['PATCH', 1_000, 200],
        ['POST', 3_000, 201],
        ['POST', 4_000, 201],
        ['POST', 6_000, 201]
      ])
      expect(sent(COMMENT_CREATE).map(([, at]) => at)).toEqual([0, 3_000, 6_000])
    })
  })

  describe('secondary rate limits', () => {
    test('Retry-After is waited exactly, then the request is sent again, with a warning for each wait', async () => {
      const id = ownComment()
      github.injectSecondaryRateLimit(2, COMMENT_EDIT, 7)
      const { ended, at } = await timed(() => client().updateComment(id, 'edited'))
      expect(ended).toBe('ok')
      expect(sent(COMMENT_EDIT)).toEqual([
        ['PATCH', 0, 403],
        ['PATCH', 7_000, 403],
        ['PATCH', 14_000, 200]
      ])
      expect(at).toBe(14_000)
      expect(warnings).toEqual([
        `${SECONDARY} PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}: retrying in 7 s`,
        `${SECONDARY} PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}: retrying in 7 s`
      ])
    })

    test('three retries at most: the fourth refusal stands', async () => {
      github.injectSecondaryRateLimit(5, PULL, 7)
      expect(await readPull()).toEqual({
        ended: expect.stringMatching(/^You have exceeded a secondary rate limit/),
        at: 21_000,
        sent: [
          ['GET', 0, 403],
          ['GET', 7_000, 403],
          ['GET', 14_000, 403],
          ['GET', 21_000, 403]
        ]
      })
      expect(warnings).toHaveLength(3)
    })

    test('Retry-After: 0 is at once, not the minute of a missing one', async () => {
      github.injectSecondaryRateLimit(1, PULL, 0)
      expect(await readPull()).toEqual({
        ended: 'ok',
        at: 0,
        sent: [
          ['GET', 0, 403],
          ['GET', 0, 200]
        ]
      })
    })

    test('without Retry-After: a minute, as GitHub advises', async () => {
      github.injectSecondaryRateLimit(1, PULL, 7)
      const withoutRetryAfter: typeof fetch = async (input, init) =>
        withHeaders(await clock.network.github(input, init), headers => headers.delete('retry-after'))
      expect(await readPull(client({ fetch: withoutRetryAfter }))).toEqual({
        ended: 'ok',
        at: 60_000,
        sent: [
          ['GET', 0, 403],
          ['GET', 60_000, 200]
        ]
      })
      expect(warnings).toEqual([
        `${SECONDARY} GET /repos/{owner}/{repo}/pulls/{pull_number}: retrying in 60 s`
      ])
    })
  })

  describe('the primary rate limit (x-ratelimit-remaining 0)', () => {
    test('waited until its reset and a second more, twice at most', async () => {
      github.injectClientError(3, PULL, 403, PRIMARY_LIMIT)
      // Each answer's reset 30 s away: 31 s each, and the third refusal stands.
      expect(await readPull(client({ fetch: emptyBucket(30) }))).toEqual({
        ended: PRIMARY_LIMIT + ' - https://docs.github.com/rest',
        at: 62_000,
        sent: [
          ['GET', 0, 403],
          ['GET', 31_000, 403],
          ['GET', 62_000, 403]
        ]
      })
      expect(warnings).toEqual([
        'GitHub rate limit on GET /repos/{owner}/{repo}/pulls/{pull_number}: retrying in 31 s',
        'GitHub rate limit on GET /repos/{owner}/{repo}/pulls/{pull_number}: retrying in 31 s'
      ])
    })

    test('the request sent again after the reset is answered', async () => {
      github.injectClientError(1, PULL, 403, PRIMARY_LIMIT)
      expect(await readPull(client({ fetch: emptyBucket(10) }))).toEqual({
        ended: 'ok',
        at: 11_000,
        sent: [
          ['GET', 0, 403],
          ['GET', 11_000, 200]
        ]
      })
    })
  })

  describe('what GitHub left unreadable or unsaid', () => {
    test('a primary rate limit whose reset is unreadable: a minute, said so (never "NaN s")', async () => {
      github.injectClientError(1, PULL, 403, PRIMARY_LIMIT)
      const unreadable = refusals(headers => {
        headers.set('x-ratelimit-remaining', '0')
        headers.set('x-ratelimit-reset', 'soon')
      })
      const { sent: requests, ...ended } = await readPull(client({ fetch: unreadable }))
      expect(ended).toEqual({ ended: 'ok', at: 60_000 })
      expect(requests.map(([, at]) => at)).toEqual([0, 60_000])
      expect(warnings).toEqual([
        'GitHub rate limit on GET /repos/{owner}/{repo}/pulls/{pull_number}: retrying in 60 s'
      ])
    })

    test('a 403 left after the rate limit’s retries is no missing permission: the check run is written on', async () => {
      // GitHub's older wording of a secondary limit names no rate limit: its Retry-After does.
      const ABUSE =
        'You have triggered an abuse detection mechanism. Please wait a few minutes before you try again.'
      github.injectClientError(4, /\/check-runs$/, 403, ABUSE)
      const api = client({ fetch: refusals(headers => headers.set('retry-after', '2')) })
      const { ended } = await timed(async () => {
        expect(await api.createCheckRun('Codegen', github.headSha(7), working)).toBeUndefined()
        expect(await api.createCheckRun('Codegen', github.headSha(7), working)).toBeGreaterThan(0)
      })
      expect(ended).toBe('ok')
      expect(warnings.filter(warning => warning.startsWith('Could not'))).toEqual([
        expect.stringMatching(
          /^Could not create the check run Codegen: You have triggered an abuse detection/
        )
      ])
      expect(warnings.join('\n')).not.toContain('checks: write')
    })
  })

  describe('a wait that would end after GitHub’s calls must is not made', () => {
    test('a Retry-After wait ending a millisecond before the stop is made', async () => {
      github.injectSecondaryRateLimit(1, PULL, 9)
      expect(await readPull(client({ signal: stopAfter(9_001), stopAt: 9_001 }))).toEqual({
        ended: 'ok',
        at: 9_000,
        sent: [
          ['GET', 0, 403],
          ['GET', 9_000, 200]
        ]
      })
      expect(warnings).toEqual([
        `${SECONDARY} GET /repos/{owner}/{repo}/pulls/{pull_number}: retrying in 9 s`
      ])
    })

    test('one ending at the stop is not: the refusal stands at once, said in a warning', async () => {
      github.injectSecondaryRateLimit(1, PULL, 9)
      expect(await readPull(client({ signal: stopAfter(9_000), stopAt: 9_000 }))).toEqual({
        ended: expect.stringMatching(/^You have exceeded a secondary rate limit/),
        at: 0,
        sent: [['GET', 0, 403]]
      })
      expect(warnings).toEqual([
        `${SECONDARY} GET /repos/{owner}/{repo}/pulls/{pull_number}: no time left to wait 9 s`
      ])
      // The stop's own time, and the attempt's time limit: no wait of 9 s.
      expect(clock.sleeps).toEqual([9_000, 30_000])
    })

    test('the primary rate limit too: its reset a second more, at the stop', async () => {
      github.injectClientError(1, PULL, 403, PRIMARY_LIMIT)
      const api = client({ fetch: emptyBucket(29), signal: stopAfter(30_000), stopAt: 30_000 })
      expect(await readPull(api)).toMatchObject({
        ended: expect.stringMatching(/^API rate limit exceeded/),
        at: 0
      })
      expect(warnings).toEqual([
        'GitHub rate limit on GET /repos/{owner}/{repo}/pulls/{pull_number}: no time left to wait 30 s'
      ])
    })
  })

  describe('failures', () => {
    test('a server error is retried after 1, 4 and 9 s, then given up', async () => {
      github.injectServerError(4, PULL, 502)
      expect(await readPull()).toEqual({
        ended: 'Server Error',
        at: 14_000,
        sent: [
          ['GET', 0, 502],
          ['GET', 1_000, 502],
          ['GET', 5_000, 502],
          ['GET', 14_000, 502]
        ]
      })
    })

    test('a write retried after a server error keeps its place: the next write a second after it', async () => {
      const id = ownComment()
      github.injectServerError(1, COMMENT_EDIT)
      const api = client()
      const { ended } = await timed(async () => {
        await api.updateComment(id, 'retried')
        await api.updateComment(id, 'next')
      })
      expect(ended).toBe('ok')
      expect(sent(COMMENT_EDIT)).toEqual([
        ['PATCH', 0, 500],
        ['PATCH', 1_000, 200],
        ['PATCH', 2_000, 200]
      ])
    })

    test('a lost connection is retried as a server error', async () => {
      let lost = 1
      const losing: typeof fetch = (input, init) =>
        lost-- > 0
          ? Promise.reject(new TypeError('fetch failed', { cause: new Error('socket hang up') }))
          : clock.network.github(input, init)
      expect(await readPull(client({ fetch: losing }))).toEqual({
        ended: 'ok',
        at: 1_000,
        sent: [['GET', 1_000, 200]]
      })
    })

    test('404 and 422 are answers: never sent again', async () => {
      github.injectClientError(1, PULL, 404)
      const api = client()
      const notFound = await timed(() => api.pullRequestBranches(7))
      expect(notFound).toEqual({ ended: expect.stringMatching(/^Not Found/), at: 0 })
      // An unknown commit: GitHub's 422 for a check run.
      const refused = await timed(() => api.createCheckRun('Codegen', 'f'.repeat(40), working))
      expect(refused).toEqual({ ended: 'ok', at: 0 })
      expect(sent(/./)).toEqual([
        ['GET', 0, 404],
        ['POST', 0, 422]
      ])
      expect(warnings).toEqual([
        expect.stringMatching(/^Could not create the check run Codegen: No commit found/)
      ])
    })

    test('a refusal a retry may change (409) is sent again after a second', async () => {
      github.injectClientError(1, PULL, 409, 'Conflict')
      expect(await readPull()).toEqual({
        ended: 'ok',
        at: 1_000,
        sent: [
          ['GET', 0, 409],
          ['GET', 1_000, 200]
        ]
      })
    })

    test('each attempt has 30 s: given up then, and not retried (a create answered late would be made twice)', async () => {
      github.injectHang(4, PULL)
      expect(await readPull()).toEqual({
        ended: 'GitHub did not answer within 30 s',
        at: 30_000,
        sent: [['GET', 0, 0]]
      })
    })

    test('an edit past its 30 s is sent again a second later (a conclusion lost so would leave a check in progress); annotations are not', async () => {
      const api = client()
      const CHECK_RUN = /\/check-runs\/\d+$/
      const { ended } = await timed(async () => {
        const id = (await api.createCheckRun('Codegen', github.headSha(7), working))!
        github.injectHang(1, CHECK_RUN, 'PATCH')
        const done = { ...working, status: 'completed' as const, conclusion: 'success' as const }
        expect(await api.updateCheckRun(id, done)).toBe(true)
        github.injectHang(1, CHECK_RUN, 'PATCH')
        const annotation = { path: 'a.ts', start_line: 1, end_line: 1, annotation_level: 'warning' as const }
        expect(await api.annotateCheckRun(id, done, [{ ...annotation, message: 'Once' }])).toBe(false)
      })
      expect(ended).toBe('ok')
      expect(sent(CHECK_RUN)).toEqual([
        ['PATCH', 1_000, 0],
        ['PATCH', 32_000, 200],
        ['PATCH', 33_000, 0]
      ])
      expect(github.checkRuns()[0]).toMatchObject({
        status: 'completed',
        conclusion: 'success',
        annotations: []
      })
      expect(warnings).toEqual([
        expect.stringMatching(/^Could not annotate the check run \d+: GitHub did not answer within 30 s$/)
      ])
    })

    test('an answer within the 30 s is taken', async () => {
      const hold = github.injectHold(1, PULL)
      const api = client()
      const { ended, at } = await timed(async () => {
        const reading = api.pullRequestBranches(7)
        await clock.advance(29_999)
        hold.release()
        await reading
      })
      expect(ended).toBe('ok')
      expect(at).toBe(29_999)
      expect(sent(PULL)).toEqual([['GET', 0, 200]])
    })
  })

  describe('the stop signal ends every wait', () => {
    test('a write waiting for its turn', async () => {
      const id = ownComment()
      const api = client({ signal: stopAfter(500, 'the job was cancelled') })
      const { ended, at } = await timed(async () => {
        await api.updateComment(id, 'sent')
        await api.updateComment(id, 'never sent')
      })
      // Never sent: the message says so, not that GitHub was slow.
      expect(ended).toBe('no time was left to send it (the job was cancelled)')
      expect(at).toBe(500)
      expect(sent(COMMENT_EDIT)).toEqual([['PATCH', 0, 200]])
    })

    test('a Retry-After wait', async () => {
      github.injectSecondaryRateLimit(1, PULL, 20)
      // The wait was cut: the failure that asked for it stands.
      expect(await readPull(client({ signal: stopAfter(5_000), stopAt: 60_000 }))).toEqual({
        ended: expect.stringMatching(/^You have exceeded a secondary rate limit/),
        at: 5_000,
        sent: [['GET', 0, 403]]
      })
    })

    test('a server error’s retry wait', async () => {
      github.injectServerError(2, PULL)
      // The retry's wait was cut: the server error stands.
      expect(await readPull(client({ signal: stopAfter(3_000) }))).toEqual({
        ended: 'Server Error',
        at: 3_000,
        sent: [
          ['GET', 0, 500],
          ['GET', 1_000, 500]
        ]
      })
    })

    test('a request GitHub never answers, and every call after it at once, none sent', async () => {
      github.injectHang(1, PULL)
      const api = client({ signal: stopAfter(5_000) })
      const hung = await timed(() => api.pullRequestBranches(7))
      expect(hung).toEqual({
        ended: 'GitHub did not answer in time (timeout-minutes was reached)',
        at: 5_000
      })
      const after = await timed(() => api.createComment(7, 'too late'))
      expect(after).toEqual({ ended: 'no time was left to send it (timeout-minutes was reached)', at: 5_000 })
      expect(sent(/./)).toEqual([['GET', 0, 0]])
    })
  })
})
