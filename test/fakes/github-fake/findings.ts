import { Octokit, type RestEndpointMethodTypes } from '@octokit/rest'
import { findingsDiff } from '../../../emulator/index.js'
import { FakeGitHub, type FakeGitHubOptions } from '../../../scripts/github-fake/index.js'
import { responseProblems } from '../../../scripts/github-openapi.js'

describe('findings', () => {
  /**
   * The fake GitHub's side of findings, driven by Octokit as the action drives GitHub: a check run's
   * annotations (50 a request, appended on every write), a pull request's files with their patches,
   * and its reviews, each answer held to GitHub's REST description and to GitHub's own rules.
   */

  const REPO = { owner: 'octo-org', repo: 'octo-repo' }
  const QUIET = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined
  }
  const PR = {
    number: 7,
    title: 'Rename parseLine',
    body: '',
    head: 'feature/7',
    base: 'main',
    files: findingsDiff()
  }
  const CHECK_RUN = '/repos/{owner}/{repo}/check-runs/{check_run_id}'
  const REVIEWS = '/repos/{owner}/{repo}/pulls/{pull_number}/reviews'
  const FILES = '/repos/{owner}/{repo}/pulls/{pull_number}/files'
  const CREATE_REVIEW_DOCS = 'https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request'

  let fake: FakeGitHub
  let octokit: Octokit

  async function startFake(options: FakeGitHubOptions = {}): Promise<void> {
    fake = new FakeGitHub(options)
    await fake.start()
    fake.addPullRequest(PR)
    octokit = new Octokit({ auth: 'github-token', baseUrl: fake.baseUrl, log: QUIET })
  }

  afterEach(async () => {
    await fake?.stop()
  })

  /** The error octokit threw: its status and GitHub's body. */
  async function refusal(request: Promise<unknown>): Promise<{ status: number; data: unknown }> {
    try {
      await request
    } catch (error) {
      const { status, response } = error as { status: number; response?: { data: unknown } }
      return { status, data: response?.data }
    }
    throw new Error('GitHub took it')
  }

  const annotation = (line: number) => ({
    path: 'src/parser.ts',
    start_line: line,
    end_line: line,
    annotation_level: 'warning' as const,
    message: `Line ${line}`
  })

  /** A check run "Codegen" on pull request 7's head commit, created with `fields`: its id. */
  async function createCheck(
    fields: Partial<RestEndpointMethodTypes['checks']['create']['parameters']> = { status: 'in_progress' }
  ): Promise<number> {
    const { data } = await octokit.rest.checks.create({
      ...REPO,
      name: 'Codegen',
      head_sha: fake.headSha(7),
      ...fields
    })
    return data.id
  }

  type Annotations = NonNullable<
    NonNullable<RestEndpointMethodTypes['checks']['update']['parameters']['output']>['annotations']
  >

  /** The refusal of one write of `annotations` to check run `id`. */
  const refusedAnnotations = (id: number, annotations: Annotations) =>
    refusal(
      octokit.rest.checks.update({
        ...REPO,
        check_run_id: id,
        output: { title: 't', summary: 's', annotations }
      })
    )

  describe("a check run's annotations", () => {
    test('each write appends its annotations to those before; the answer counts them', async () => {
      await startFake()
      const id = await createCheck({
        status: 'completed',
        conclusion: 'failure',
        output: { title: 'Rejected', summary: 'Done', annotations: [annotation(1)] }
      })
      const output = { title: 'Rejected', summary: 'Done' }
      const written = await octokit.rest.checks.update({
        ...REPO,
        check_run_id: id,
        output: { ...output, annotations: Array.from({ length: 50 }, (_, i) => annotation(i + 2)) }
      })
      expect(responseProblems('PATCH', CHECK_RUN, 200, written.data)).toEqual([])
      expect(written.data.output.annotations_count).toBe(51)
      // A write without annotations keeps them, as GitHub does.
      await octokit.rest.checks.update({ ...REPO, check_run_id: id, output })
      const [check] = fake.checkRuns()
      expect(check!.annotations.map(one => one.start_line)).toEqual(
        Array.from({ length: 51 }, (_, i) => i + 1)
      )
      expect(check!.status).toBe('completed')
      expect(fake.invalidCheckRunRequests).toEqual([])
    })

    test('51 in one request is 422, by the REST description; nothing is appended', async () => {
      await startFake()
      const id = await createCheck()
      const refused = await refusedAnnotations(
        id,
        Array.from({ length: 51 }, (_, i) => annotation(i + 1))
      )
      expect(refused).toMatchObject({
        status: 422,
        data: {
          message: expect.stringMatching(
            /^Invalid request\.\n\n\/output\/annotations: must NOT have more than 50 items/
          )
        }
      })
      expect(fake.checkRuns()[0]!.annotations).toEqual([])
      expect(fake.invalidCheckRunRequests).toHaveLength(1)
    })

    test.each([
      [{ message: '漢'.repeat(21_846) }, 'message exceeds a maximum bytesize of 65535'],
      [{ title: 'x'.repeat(256) }, 'title is too long (maximum is 255 characters)'],
      [{ start_line: 5, end_line: 4 }, 'end_line must be greater than or equal to start_line']
    ])("GitHub's rules past the schema: %j is refused", async (change, message) => {
      await startFake()
      const refused = await refusedAnnotations(await createCheck(), [{ ...annotation(1), ...change }])
      expect(refused).toMatchObject({
        status: 422,
        data: {
          message: 'Validation Failed',
          errors: [{ resource: 'CheckRun', field: 'annotations', message }]
        }
      })
      expect(fake.checkRuns()[0]!.annotations).toEqual([])
    })
  })

  describe("a pull request's files", () => {
    test('listed a page at a time with their patches, in GitHub shape', async () => {
      await startFake()
      const files = Array.from({ length: 130 }, (_, i) => ({
        filename: `src/f${i}.ts`,
        patch: `@@ -1 +1 @@\n-a\n+b${i}`
      }))
      fake.setPullRequestFiles(7, [...files, { filename: 'logo.png' }])
      const first = await octokit.rest.pulls.listFiles({ ...REPO, pull_number: 7, per_page: 100 })
      expect(responseProblems('GET', FILES, 200, first.data)).toEqual([])
      expect(first.headers.link).toMatch(/page=2>; rel="next"/)
      expect(first.data[0]).toMatchObject({
        filename: 'src/f0.ts',
        status: 'modified',
        additions: 1,
        deletions: 1,
        patch: '@@ -1 +1 @@\n-a\n+b0'
      })
      const all = await octokit.paginate(octokit.rest.pulls.listFiles, {
        ...REPO,
        pull_number: 7,
        per_page: 100
      })
      expect(all).toHaveLength(131)
      // A binary file has no patch.
      expect(all.at(-1)).not.toHaveProperty('patch')
      expect((await refusal(octokit.rest.pulls.listFiles({ ...REPO, pull_number: 99 }))).status).toBe(404)
    })
  })

  describe("a pull request's reviews", () => {
    const comment = (path: string, line: number, extra: Record<string, unknown> = {}) => ({
      path,
      line,
      side: 'RIGHT',
      body: `On ${path}:${line}`,
      ...extra
    })

    /** The refusal of a COMMENT review of pull request 7 with `fields`. */
    const refusedReview = (fields: Partial<RestEndpointMethodTypes['pulls']['createReview']['parameters']>) =>
      refusal(octokit.rest.pulls.createReview({ ...REPO, pull_number: 7, event: 'COMMENT', ...fields }))

    test('a COMMENT review with comments on lines of the diff: made, its comments on the code, listed back', async () => {
      await startFake()
      const { data } = await octokit.rest.pulls.createReview({
        ...REPO,
        pull_number: 7,
        commit_id: fake.headSha(7),
        event: 'COMMENT',
        body: 'Two findings.',
        comments: [
          comment('src/index.ts', 2),
          comment('src/parser.ts', 47, { start_line: 46, start_side: 'RIGHT' })
        ]
      })
      expect(responseProblems('POST', REVIEWS, 200, data)).toEqual([])
      expect(data).toMatchObject({ state: 'COMMENTED', commit_id: fake.headSha(7), body: 'Two findings.' })
      expect(fake.reviewComments(7).map(one => [one.path, one.start_line, one.line, one.side])).toEqual([
        ['src/index.ts', null, 2, 'RIGHT'],
        ['src/parser.ts', 46, 47, 'RIGHT']
      ])
      expect(fake.reviewComments(7)[0]!.diff_hunk).toMatch(/^@@ -1,4 \+1,4 @@/)
      const listed = await octokit.rest.pulls.listReviews({ ...REPO, pull_number: 7 })
      expect(responseProblems('GET', REVIEWS, 200, listed.data)).toEqual([])
      expect(listed.data.map(review => [review.id, review.user?.login, review.state])).toEqual([
        [data.id, 'github-actions[bot]', 'COMMENTED']
      ])
      expect(fake.reviews(7)).toEqual([
        expect.objectContaining({ id: data.id, state: 'COMMENTED', comments: expect.any(Array) })
      ])
    })

    test.each<[string, Record<string, unknown>, string]>([
      [
        'a line outside every hunk',
        comment('src/parser.ts', 88),
        "Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank"
      ],
      [
        'a file the diff does not change',
        comment('docs/api.md', 14),
        "Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank"
      ],
      [
        'a line only the old side has',
        comment('src/index.ts', 5),
        "Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank"
      ],
      [
        'a range from outside the hunk',
        comment('src/parser.ts', 47, { start_line: 30 }),
        'Pull request review thread start line must be part of the same hunk as the line.'
      ],
      [
        'a range of one line',
        comment('src/parser.ts', 47, { start_line: 47 }),
        'Pull request review thread start line must precede the end line.'
      ]
    ])('%s: 422 as GitHub answers it, and no review at all', async (_name, bad, error) => {
      await startFake()
      const refused = await refusedReview({
        body: 'Findings.',
        comments: [comment('src/index.ts', 2), bad as unknown as ReturnType<typeof comment>]
      })
      expect(refused).toEqual({
        status: 422,
        data: {
          message: 'Unprocessable Entity',
          errors: [error],
          documentation_url: CREATE_REVIEW_DOCS,
          status: '422'
        }
      })
      expect(responseProblems('POST', REVIEWS, 422, refused.data)).toEqual([])
      expect(fake.reviews(7)).toEqual([])
      expect(fake.reviewComments(7)).toEqual([])
    })

    test('a body the REST description refuses is 422, and recorded', async () => {
      await startFake()
      const refused = await refusal(
        octokit.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
          ...REPO,
          pull_number: 7,
          event: 'MAYBE',
          body: 'x'
        } as never)
      )
      expect(refused.status).toBe(422)
      expect(fake.invalidReviewRequests).toEqual([
        expect.objectContaining({
          problems: [expect.stringMatching(/^\/event: must be equal to one of the allowed values/)]
        })
      ])
    })

    test('COMMENT needs a body; an unknown commit is refused', async () => {
      await startFake()
      const noBody = await refusedReview({})
      expect(noBody).toMatchObject({ status: 422, data: { errors: ['Body is required when using COMMENT'] } })
      const unknown = await refusedReview({ body: 'x', commit_id: 'f'.repeat(40) })
      expect(unknown).toMatchObject({ status: 422, data: { errors: ['Commit could not be resolved'] } })
    })

    test('a token without pull-requests: write cannot review (403), one without read cannot list', async () => {
      await startFake({ pullRequests: 'read' })
      const refused = await refusedReview({ body: 'x' })
      expect(refused).toMatchObject({
        status: 403,
        data: { message: 'Resource not accessible by integration' }
      })
      expect((await octokit.rest.pulls.listReviews({ ...REPO, pull_number: 7 })).status).toBe(200)
      await fake.stop()
      await startFake({ pullRequests: 'none' })
      expect((await refusal(octokit.rest.pulls.listFiles({ ...REPO, pull_number: 7 }))).status).toBe(403)
    })
  })
})
