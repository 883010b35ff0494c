import { Octokit } from '@octokit/rest'
import { systemServerClock } from '../../../emulator/loopback-server.js'
import { FakeGitHub, type FakeGitHubOptions } from '../../../scripts/github-fake/index.js'
import { JOB_LOGS, WORKFLOW_RUN_JOBS } from '../../../scripts/github-fake/routes.js'
import { documentedAnswers, queryProblems, responseProblems } from '../../../scripts/github-openapi.js'

describe('actions', () => {
  /**
   * The fake GitHub's workflow runs (scripts/github-fake/actions.ts): a run's jobs, paged and held to
   * GitHub's REST description, and a job's log behind a redirect to a storage on another host, where
   * it is read without the token. Driven by Octokit over loopback, as the action drives GitHub.
   */

  const TOKEN = 'github-token'
  const REPO = { owner: 'octo-org', repo: 'octo-repo' }
  const QUIET = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined
  }
  const SHA = 'a'.repeat(40)
  const START = Date.parse('2026-03-02T09:00:00Z')

  let fake: FakeGitHub
  let octokit: Octokit
  const time = { now: START }

  async function startFake(options: FakeGitHubOptions = {}): Promise<void> {
    time.now = START
    fake = new FakeGitHub({ clock: systemServerClock(() => time.now), ...options })
    await fake.start()
    octokit = new Octokit({ auth: TOKEN, baseUrl: fake.baseUrl, log: QUIET })
    fake.addWorkflowRun({
      id: 42,
      name: 'CI',
      headBranch: 'feature/parser',
      headSha: SHA,
      runAttempt: 2,
      jobs: [
        { id: 1, name: 'test', conclusion: 'failure', runAttempt: 1, log: 'first attempt' },
        ...Array.from({ length: 5 }, (_, i) => ({
          id: 10 + i,
          name: `job ${i}`,
          conclusion: i === 3 ? ('failure' as const) : ('success' as const),
          steps: [
            { name: 'Set up job', conclusion: 'success' },
            { name: 'Run', conclusion: i === 3 ? 'failure' : 'success' }
          ],
          log: `log of job ${i}\n`
        })),
        { id: 20, name: 'expired', conclusion: 'failure', log: null }
      ]
    })
  }

  afterEach(async () => {
    await fake?.stop()
  })

  /** A plain request, for what Octokit hides: statuses, headers, bodies as they are. */
  async function call(url: string, authorization: string | null = `token ${TOKEN}`): Promise<Response> {
    return fetch(url, { headers: authorization ? { authorization } : {}, redirect: 'manual' })
  }

  describe("a workflow run's jobs", () => {
    test('the latest attempt’s jobs, paged with GitHub’s Link header, as GitHub’s REST description has them', async () => {
      await startFake()
      const page = await octokit.rest.actions.listJobsForWorkflowRun({
        ...REPO,
        run_id: 42,
        per_page: 2,
        page: 2
      })
      expect(page.status).toBe(200)
      expect(responseProblems('GET', WORKFLOW_RUN_JOBS, 200, page.data)).toEqual([])
      expect(page.data.total_count).toBe(6)
      expect(page.data.jobs.map(job => job.id)).toEqual([12, 13])
      expect(page.data.jobs[1]).toMatchObject({
        run_id: 42,
        run_attempt: 2,
        head_sha: SHA,
        head_branch: 'feature/parser',
        workflow_name: 'CI',
        status: 'completed',
        conclusion: 'failure',
        steps: [
          { name: 'Set up job', number: 1, conclusion: 'success', status: 'completed' },
          { name: 'Run', number: 2, conclusion: 'failure', status: 'completed' }
        ]
      })
      expect(page.headers.link).toContain('rel="next"')
      const all = await octokit.paginate(octokit.rest.actions.listJobsForWorkflowRun, {
        ...REPO,
        run_id: 42,
        filter: 'all',
        per_page: 100
      })
      expect(all.map(job => job.id)).toEqual([1, 10, 11, 12, 13, 14, 20])
      expect(fake.invalidQueryRequests).toEqual([])
    })

    test('a query GitHub’s description does not allow is 422, and recorded', async () => {
      await startFake()
      const path = `${fake.baseUrl}/repos/octo-org/octo-repo/actions/runs/42/jobs`
      const bad = await call(`${path}?filter=newest`)
      expect(bad.status).toBe(422)
      expect(((await bad.json()) as { message: string }).message).toBe(
        'Invalid request.\n\nfilter: must be one of latest, all, got "newest"'
      )
      expect((await call(`${path}?per_page=many&status=failed`)).status).toBe(422)
      expect(fake.invalidQueryRequests.map(request => request.problems)).toEqual([
        ['filter: must be one of latest, all, got "newest"'],
        ['per_page: must be integer, got "many"', `status: not a query parameter of GET ${WORKFLOW_RUN_JOBS}`]
      ])
      expect(
        queryProblems('GET', WORKFLOW_RUN_JOBS, { filter: 'latest', per_page: '100', page: '3' })
      ).toEqual([])
    })

    test('without actions: read, 403; an unknown run, 404; no token, 401', async () => {
      await startFake({ actions: 'none' })
      await expect(
        octokit.rest.actions.listJobsForWorkflowRun({ ...REPO, run_id: 42 })
      ).rejects.toMatchObject({
        status: 403,
        message: expect.stringContaining('Resource not accessible by integration') as string
      })
      fake.setActionsPermission('read')
      await expect(
        octokit.rest.actions.listJobsForWorkflowRun({ ...REPO, run_id: 43 })
      ).rejects.toMatchObject({
        status: 404
      })
      expect((await call(`${fake.baseUrl}/repos/octo-org/octo-repo/actions/runs/42/jobs`, null)).status).toBe(
        401
      )
    })
  })

  describe("a job's log", () => {
    test('is a 302 to a signed address on another host, read there without the token', async () => {
      await startFake()
      expect(documentedAnswers('GET', JOB_LOGS)).toEqual({ '302': ['location'] })
      const answer = await call(`${fake.baseUrl}/repos/octo-org/octo-repo/actions/jobs/13/logs`)
      expect(answer.status).toBe(302)
      const location = new URL(answer.headers.get('location')!)
      expect(location.origin).toBe(fake.logStorageUrl)
      expect(location.hostname).toBe('127.0.0.2')
      expect(new URL(fake.baseUrl).hostname).toBe('127.0.0.1')
      const log = await call(location.href, null)
      expect([log.status, await log.text()]).toEqual([200, 'log of job 3\n'])
      expect(fake.logDownloads).toEqual([
        {
          at: START,
          method: 'GET',
          host: location.host,
          path: '/jobs/13/signedlogcontent',
          authorization: undefined,
          status: 200
        }
      ])
      // Octokit follows the redirect as fetch does: the platform drops the token crossing to another host.
      const followed = await octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...REPO, job_id: 13 })
      expect(followed.data).toBe('log of job 3\n')
      expect(fake.logDownloads.map(download => download.authorization)).toEqual([undefined, undefined])
    })

    test('the storage refuses a token, an altered signature and an expired address', async () => {
      await startFake()
      const address = async (job: number): Promise<string> =>
        (await call(`${fake.baseUrl}/repos/octo-org/octo-repo/actions/jobs/${job}/logs`)).headers.get(
          'location'
        )!
      const signed = await address(10)
      expect((await call(signed, `token ${TOKEN}`)).status).toBe(400)
      const altered = signed.replace(/sig=(.)/, (_, first: string) => `sig=${first === '0' ? '1' : '0'}`)
      expect((await call(altered, null)).status).toBe(403)
      expect((await call(signed.replace('/jobs/10/', '/jobs/11/'), null)).status).toBe(403)
      time.now += 60_001
      expect((await call(signed, null)).status).toBe(403)
      expect((await call(await address(10), null)).status).toBe(200)
      expect(fake.logDownloads.map(download => download.status)).toEqual([400, 403, 403, 403, 200])
    })

    test('an expired log is 410, an unknown job 404, without actions: read 403', async () => {
      await startFake()
      const status = async (job: number): Promise<number> =>
        (await call(`${fake.baseUrl}/repos/octo-org/octo-repo/actions/jobs/${job}/logs`)).status
      expect([await status(20), await status(99)]).toEqual([410, 404])
      fake.setActionsPermission('none')
      expect(await status(10)).toBe(403)
      expect(fake.logDownloads).toEqual([])
    })

    test('a 5 MB log streams whole', async () => {
      await startFake()
      const big = 'x'.repeat(5 * 1024 * 1024 - 3) + 'end'
      fake.addWorkflowRun({
        id: 50,
        name: 'CI',
        headBranch: 'main',
        headSha: SHA,
        jobs: [{ id: 51, name: 'big', conclusion: 'failure', log: big }]
      })
      const location = (
        await call(`${fake.baseUrl}/repos/octo-org/octo-repo/actions/jobs/51/logs`)
      ).headers.get('location')!
      const log = await call(location, null)
      expect(log.headers.get('content-length')).toBe(String(big.length))
      expect(await log.text()).toBe(big)
    })
  })
})
