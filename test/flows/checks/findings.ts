import { FINDINGS, findingsDiff, type RunScript } from '../../../emulator/index.js'
import type { FakeAnnotation, RecordedGitHubRequest } from '../../../scripts/github-fake/index.js'
import { readerText, renderMarkdown } from '../../../scripts/render-markdown.js'
import { OWN_COMMENT_MARK } from '../../../src/github-shapes.js'
import { FlowWorld } from '../../support/flow-world.js'
import { OWN_COMMANDS, runnerCommands } from '../../support/runner-commands.js'
import { issueCommentEvent, pullRequestEvent, workflowDispatchEvent } from '../../support/webhooks.js'

describe('findings', () => {
  /**
   * Findings on the lines they are about (issue #35), the action in process on the virtual clock
   * against the emulator and the fake GitHub: annotations on the check run, one review on the pull
   * request's diff, the count on the thread, the table in the job summary, a line each on the
   * console; and nothing of it sent to GitHub for a step about no pull request.
   */

  const world = new FlowWorld({ emulator: { speed: 20 }, github: { permissions: { alice: 'write' } } })
  const HEAD = 'feature/7'

  /** The test's fake GitHub, kept for the checks after it (the world stops it first). */
  let github: FlowWorld['github']

  beforeEach(() => {
    github = world.github
    github.addPullRequest({
      number: 7,
      title: 'Rename parseLine',
      body: '',
      head: HEAD,
      base: 'main',
      files: findingsDiff()
    })
  })

  afterEach(() => {
    // Every check-run and review body the action sent held to GitHub's REST description.
    expect(github.invalidCheckRunRequests).toEqual([])
    expect(github.invalidReviewRequests).toEqual([])
  })

  function step(event: { name: string; payload: unknown }, inputs: Record<string, string> = {}) {
    return world.step({
      inputs: {
        'api-token': 'emulator-token',
        'org-id': '1',
        'base-url': world.emulator.baseUrl,
        'github-token': 'github-token',
        'poll-interval': '1',
        'timeout-minutes': '2',
        findings: 'true',
        ...inputs
      },
      env: { GITHUB_API_URL: world.github.baseUrl },
      event
    })
  }

  /** alice's comment on pull request 7, as GitHub stores it and sends it. */
  function commentOn(body: string): ReturnType<typeof issueCommentEvent> {
    const stored = world.github.addComment(7, body, { login: 'alice', type: 'User' })
    return issueCommentEvent({ body, pullRequest: true, issueNumber: 7, commentId: stored.id })
  }

  const onPullRequest = () => pullRequestEvent('synchronize', { number: 7, head: HEAD })

  const annotationsOf = (request: RecordedGitHubRequest): FakeAnnotation[] =>
    (request.body as { output?: { annotations?: FakeAnnotation[] } } | undefined)?.output?.annotations ?? []
  /** The requests that added annotations to a check run. */
  const annotationWrites = () => world.github.requests.filter(request => annotationsOf(request).length > 0)
  const reviewPosts = () =>
    world.github.requests.filter(request => request.method === 'POST' && request.path.endsWith('/reviews'))
  /** Calls `inject` once, as the check run's conclusion is answered: its next write meets the fault. */
  function afterConclusion(inject: () => void): void {
    let injected = false
    world.clock.onAnswered = request => {
      const written = github.requests
        .filter(one => one.method === 'PATCH' && one.path === request.url.pathname)
        .at(-1)
      if (!injected && (written?.body as { status?: string } | undefined)?.status === 'completed') {
        injected = true
        inject()
      }
      return undefined
    }
  }

  const findingLines = (stdout: string): string[] =>
    stdout.split('\n').filter(line => /^ {2}(failure|warning|notice) /.test(line))

  /** A run that completes with `findings` in its answer block (and a follow-up for each of `followUps`). */
  function answering(findings: unknown[], followUps: unknown[][] = []): RunScript {
    const result = (found: unknown[]) =>
      `Reviewed.\n\n\`\`\`json\n${JSON.stringify({ findings: found })}\n\`\`\``
    const complete = (found: unknown[]) => [
      { at: 0, status: 'ACTIVE' },
      { at: 50, status: 'COMPLETE', result: result(found) }
    ]
    return { steps: complete(findings), followUps: followUps.map(found => ({ steps: complete(found) })) }
  }

  /** `n` findings on lines 1 to n of src/big.ts, every third a failure, the others warnings. */
  const many = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      path: 'src/big.ts',
      line: i + 1,
      severity: i % 3 === 0 ? 'failure' : 'warning',
      message: `Finding ${i + 1}`
    }))

  test('a /codegen review with findings: annotations on the check, one review on the diff, the count on the thread, the table, the console', async () => {
    const result = await step(commentOn('/codegen review [emulator:findings]'), {
      verdict: 'true',
      'review-comments': 'true'
    })
    expect(result.outputs).toMatchObject({ outcome: 'rejected', verdict: 'fail' })
    expect(JSON.parse(result.outputs['findings']!)).toEqual(FINDINGS)

    // The check: concluded, then the four findings annotated in one request, each once, most severe first.
    const [check, ...others] = github.checkRuns()
    expect(others).toEqual([])
    expect(check).toMatchObject({ conclusion: 'failure', head_sha: github.headSha(7) })
    expect(
      check!.annotations.map(one => [one.annotation_level, one.path, one.start_line, one.end_line])
    ).toEqual([
      ['failure', 'src/index.ts', 2, 2],
      ['warning', 'src/parser.ts', 46, 47],
      ['warning', 'docs/api.md', 14, 14],
      ['notice', 'src/parser.ts', 88, 88]
    ])
    expect(check!.annotations[0]).toMatchObject({
      title: 'Renamed export breaks v1 clients',
      message: FINDINGS[0]!.message
    })
    expect(annotationWrites().map(request => annotationsOf(request).length)).toEqual([4])
    const conclusion = github.requests.findIndex(
      request => (request.body as { status?: string } | undefined)?.status === 'completed'
    )
    expect(github.requests.indexOf(annotationWrites()[0]!)).toBeGreaterThan(conclusion)
    expect(readerText(check!.output.summary!)).toContain(
      '4 findings: 1 failure, 2 warnings, 1 notice, annotated on the lines they are about.'
    )

    // One review, COMMENT on the head commit: inline where the diff has the lines, the others in its body.
    const [review, ...moreReviews] = github.reviews(7)
    expect(moreReviews).toEqual([])
    expect(review).toMatchObject({ state: 'COMMENTED', commit_id: github.headSha(7) })
    expect(reviewPosts().map(request => (request.body as { event: string }).event)).toEqual(['COMMENT'])
    expect(github.reviewComments(7).map(one => [one.path, one.start_line, one.line, one.side])).toEqual([
      ['src/index.ts', null, 2, 'RIGHT'],
      ['src/parser.ts', 46, 47, 'RIGHT']
    ])
    expect(readerText(github.reviewComments(7)[0]!.body).split('\n')[0]).toBe(
      '❌ failure · Renamed export breaks v1 clients'
    )
    expect(review!.body.startsWith(`${OWN_COMMENT_MARK} review sha=${github.headSha(7)} sig=`)).toBe(true)
    const body = readerText(review!.body)
    expect(body).toContain('4 findings: 1 failure, 2 warnings, 1 notice')
    expect(body).toContain('2 findings are commented on the lines of the diff.')
    expect(body).toContain(
      '⚠️ warning · The docs still name parseLine docs/api.md:14: The API page documents parseLine'
    )
    expect(body).toContain('ℹ️ notice · parseQuotedField is no longer called here src/parser.ts:88: ')

    // The tracking comment: the count, its split, and the check that shows them.
    const tracking = github.comments(7).find(comment => comment.body.startsWith(OWN_COMMENT_MARK))!
    expect(readerText(tracking.body)).toContain(
      '4 findings: 1 failure, 2 warnings, 1 notice · on the check run'
    )
    expect(renderMarkdown(tracking.body)).toContain(
      `href="https://github.com/octo-org/octo-repo/runs/${check!.id}"`
    )

    // The job summary: the table after the verdict, each place linked to its lines at the head commit.
    const summary = readerText(result.summary)
    expect(summary.indexOf('Verdict: ❌ fail')).toBeLessThan(summary.indexOf('Findings'))
    expect(summary).toMatch(
      /failure \| +src\/index\.ts:2 \| +Renamed export breaks v1 clients \| +parseLine is no longer/
    )
    expect(renderMarkdown(result.summary)).toContain(
      `href="https://github.com/octo-org/octo-repo/blob/${github.headSha(7)}/src/parser.ts#L46-L47"`
    )

    // The console: a line of text each, no workflow command of the agent's.
    expect(findingLines(result.stdout)).toEqual([
      '  failure  src/index.ts:2  Renamed export breaks v1 clients: `parseLine` is no longer exported: code that imports it from the package breaks. Keep `parseLine` as an alias of `parseRecord` until v2.',
      '  warning  src/parser.ts:46-47  The new guard throws on an empty field: `parseField` returns `next === at` for an empty last field, so a line ending in a comma now throws.',
      '  notice   src/parser.ts:88  parseQuotedField is no longer called here: The loop calls `parseField` now; `parseQuotedField` is only reached through it.',
      '  warning  docs/api.md:14  The docs still name parseLine: The API page documents `parseLine`, which this change renames.'
    ])
    expect(runnerCommands(result.stdout).filter(command => !OWN_COMMANDS.has(command.name))).toEqual([])

    // A second step on the same head commit (a re-run) annotates its own check, and posts no second review.
    const again = await step(onPullRequest(), {
      prompt: 'Review it [emulator:findings]',
      'check-run': 'true',
      'review-comments': 'true'
    })
    expect(again.exitCode).toBe(0)
    expect(github.reviews(7)).toHaveLength(1)
    expect(reviewPosts()).toHaveLength(1)
    expect(again.stdout).toContain(
      `The findings were reviewed on commit ${github.headSha(7).slice(0, 7)} by an earlier step (review ${review!.id}): no second review.`
    )
    expect(github.checkRuns()[1]!.annotations).toHaveLength(4)
  })

  test('a step about no pull request (a hand-run workflow): outputs, summary and console only, no request to GitHub', async () => {
    const result = await step(workflowDispatchEvent(), {
      prompt: 'Review main [emulator:findings]',
      'review-comments': 'true'
    })
    expect(result.exitCode).toBe(0)
    expect(result.outputs['outcome']).toBe('success')
    expect(JSON.parse(result.outputs['findings']!)).toHaveLength(4)
    expect(world.github.requests).toEqual([])
    expect(result.stdout).toContain(
      'review-comments: this step is about no pull request, so its findings get no review.'
    )
    expect(findingLines(result.stdout)).toHaveLength(4)
    // Linked to the lines at the workflow's commit.
    expect(renderMarkdown(result.summary)).toContain(
      'href="https://github.com/octo-org/octo-repo/blob/0123456789abcdef0123456789abcdef01234567/src/index.ts#L2"'
    )
  })

  test('250 findings: annotated in four requests of 50 a second apart after the conclusion, each once; the summary says 50 were left out', async () => {
    const { emulator } = world
    emulator.queueScript(answering(many(250)))
    const result = await step(onPullRequest(), { prompt: 'Review it', 'check-run': 'true' })
    expect(result.exitCode).toBe(0)
    const writes = annotationWrites()
    expect(writes.map(request => annotationsOf(request).length)).toEqual([50, 50, 50, 50])
    // GitHub asks a second between writes; the first batch waits its second after the conclusion.
    const conclusion = github.requests.find(
      request => (request.body as { status?: string } | undefined)?.status === 'completed'
    )!
    expect(
      [conclusion, ...writes].map((request, i, all) => (i === 0 ? 0 : request.at - all[i - 1]!.at))
    ).toEqual([0, 1_000, 1_000, 1_000, 1_000])
    const [check] = github.checkRuns()
    expect(check!.annotations).toHaveLength(200)
    expect(new Set(check!.annotations.map(one => one.start_line)).size).toBe(200)
    // The most severe first: all 84 failures are there.
    expect(check!.annotations.filter(one => one.annotation_level === 'failure')).toHaveLength(84)
    expect(readerText(check!.output.summary!)).toContain(
      '250 findings: 84 failures, 166 warnings, annotated on the lines they are about.\n\n50 findings were left out of the annotations (200 at most, the most severe first): the findings output has them all.'
    )
    expect(JSON.parse(result.outputs['findings']!)).toHaveLength(250)
    expect(findingLines(result.stdout)).toHaveLength(250)
    expect(readerText(result.summary)).toContain('And 50 findings more: the findings output has them all.')
  })

  test('a batch of annotations answered 502 is not sent again (GitHub may have appended it): a warning, the other batches go', async () => {
    const { emulator } = world
    emulator.queueScript(answering(many(120)))
    afterConclusion(() => github.injectServerError(1, /\/check-runs\/\d+$/, 502))
    const result = await step(onPullRequest(), { prompt: 'Review it', 'check-run': 'true' })
    expect(annotationWrites().map(request => [annotationsOf(request).length, request.status])).toEqual([
      [50, 502],
      [50, 200],
      [20, 200]
    ])
    expect(github.checkRuns()[0]!.annotations).toHaveLength(70)
    expect(result.stdout).toMatch(/^::warning::Could not annotate the check run \d+: /m)
  })

  test("the review's answer lost (GitHub made it): looked for before it is sent again, and found: one review", async () => {
    world.clock.onAnswered = request =>
      request.method === 'POST' && request.url.pathname.endsWith('/reviews')
        ? world.clock.sleep(31_000)
        : undefined
    const result = await step(onPullRequest(), {
      prompt: 'Review it [emulator:findings]',
      'check-run': 'false',
      'review-comments': 'true'
    })
    expect(result.exitCode).toBe(0)
    expect(reviewPosts()).toHaveLength(1)
    expect(github.reviews(7)).toHaveLength(1)
    const looks = github.requests.filter(
      request => request.method === 'GET' && request.path.endsWith('/reviews')
    )
    // Once before the post, once a second after its answer was lost (held 31 s: past the request's
    // 30 s limit, then the first look's second).
    expect(looks.map(look => look.at - reviewPosts()[0]!.at)).toEqual([expect.any(Number), 32_000])
    expect(github.requests.indexOf(looks[0]!)).toBeLessThan(github.requests.indexOf(reviewPosts()[0]!))
    expect(result.stdout).toContain(
      `Posted review ${github.reviews(7)[0]!.id} of pull request #7: 2 inline, 2 in its body.`
    )
    expect(result.stdout).not.toMatch(/^::warning::/m)
  })

  test.each(['502', 'reset', 'late'] as const)(
    'the review made, its answer lost (%s): looked for, found, not posted again: one review',
    async how => {
      github.injectLostAnswer(1, how, /\/pulls\/7\/reviews$/, 'POST')
      const result = await step(onPullRequest(), {
        prompt: 'Review it [emulator:findings]',
        'check-run': 'true',
        'review-comments': 'true'
      })
      expect(result.exitCode).toBe(0)
      expect(reviewPosts().map(post => [post.status, !!post.applied])).toEqual([
        [how === '502' ? 502 : 0, true]
      ])
      expect(github.reviews(7)).toHaveLength(1)
      expect(github.checkRuns()).toEqual([expect.objectContaining({ status: 'completed' })])
      expect(result.stdout).not.toMatch(/^::warning::/m)
    }
  )

  test('a review GitHub did not make (502, nothing made): looked for 1, 4 and 9 s after, not there, posted again once', async () => {
    github.injectServerError(1, /\/pulls\/7\/reviews$/, 502, 'POST')
    const result = await step(onPullRequest(), {
      prompt: 'Review it [emulator:findings]',
      'check-run': 'false',
      'review-comments': 'true'
    })
    expect(result.exitCode).toBe(0)
    const [first, again] = reviewPosts()
    expect(reviewPosts().map(post => [post.at - first!.at, post.status])).toEqual([
      [0, 502],
      [14_000, 200]
    ])
    const looks = github.requests.filter(
      request => request.method === 'GET' && request.path.endsWith('/reviews') && request.at > first!.at
    )
    expect(looks.map(look => look.at - first!.at)).toEqual([1_000, 5_000, 14_000])
    expect(again!.at).toBeGreaterThanOrEqual(looks[2]!.at)
    expect(github.reviews(7)).toHaveLength(1)
  })

  test.each(['502', 'reset', 'late'] as const)(
    'a batch of annotations appended, its answer lost (%s): never sent again, each annotation once',
    async how => {
      world.emulator.queueScript(answering(many(120)))
      afterConclusion(() => github.injectLostAnswer(1, how, /\/check-runs\/\d+$/, 'PATCH'))
      const result = await step(onPullRequest(), {
        prompt: 'Review it',
        'check-run': 'true',
        'timeout-minutes': '3'
      })
      expect(annotationWrites().map(request => [annotationsOf(request).length, !!request.applied])).toEqual([
        [50, true],
        [50, false],
        [20, false]
      ])
      expect(github.checkRuns()[0]!.annotations).toHaveLength(120)
      expect(github.checkRuns()[0]).toMatchObject({ status: 'completed' })
      expect(result.stdout).toMatch(/^::warning::Could not annotate the check run \d+: /m)
    }
  )

  test('inline comments refused (the diff changed under the review): the review again, three seconds later, every finding in its body', async () => {
    world.clock.onAnswered = request => {
      // The head moves on after the files were read: GitHub no longer counts those lines in the diff.
      if (request.url.pathname.endsWith('/pulls/7/files')) github.setPullRequestFiles(7, [])
      return undefined
    }
    const result = await step(onPullRequest(), {
      prompt: 'Review it [emulator:findings]',
      'check-run': 'false',
      'review-comments': 'true'
    })
    expect(reviewPosts().map(request => request.status)).toEqual([422, 200])
    expect(reviewPosts()[1]!.at - reviewPosts()[0]!.at).toBe(3_000)
    const [review, ...others] = github.reviews(7)
    expect(others).toEqual([])
    expect(review!.comments).toEqual([])
    expect(readerText(review!.body)).toContain('Not on the lines of the diff:')
    expect(readerText(review!.body).match(/^(❌|⚠️|ℹ️) /gm)).toHaveLength(4)
    expect(result.stdout).toMatch(
      /^::warning::GitHub refused the review's inline comments \(Unprocessable Entity: .*Pull request review thread line must be part of the diff.*\): the review lists every finding in its body\.$/m
    )
  })

  test('a token without pull-requests: write: one warning naming the permission; the check and the step as they were', async () => {
    github.setPullRequestsPermission('read')
    const result = await step(onPullRequest(), {
      prompt: 'Review it [emulator:findings]',
      'check-run': 'true',
      'review-comments': 'true'
    })
    expect(result.exitCode).toBe(0)
    expect(github.reviews(7)).toEqual([])
    expect(github.checkRuns()[0]!.annotations).toHaveLength(4)
    expect(result.stdout.match(/^::warning::.*$/gm)).toEqual([
      expect.stringMatching(
        /^::warning::Could not post the review of the findings: GitHub answered 403 \(.*\)\. The token needs the `pull-requests: write` permission/
      )
    ])
  })

  test('hostile findings (a path out of the repository, a line 0) make the answer invalid: repaired by the same resume', async () => {
    const { emulator } = world
    const bad = [
      { path: '../../etc/passwd', line: 1, severity: 'failure', message: 'x' },
      { path: 'src/a.ts', line: 0, severity: 'notice', message: 'y' }
    ]
    emulator.queueScript(answering(bad, [[{ path: 'src/a.ts', line: 3, severity: 'notice', message: 'y' }]]))
    const result = await step(workflowDispatchEvent(), { prompt: 'Review main' })
    expect(result.outputs['outcome']).toBe('success')
    expect(JSON.parse(result.outputs['findings']!)).toEqual([
      { path: 'src/a.ts', line: 3, severity: 'notice', message: 'y' }
    ])
    expect(emulator.requests.filter(request => request.route === 'resume')).toHaveLength(1)
    expect(result.stdout).toContain(
      'No valid answer (the answer does not satisfy the schema: /findings/0/path must match pattern'
    )
  })

  test('the findings are service text: no form of the token, no live mention, no HTML, no workflow command anywhere', async () => {
    const { emulator } = world
    const hostile =
      'The key emulator-token leaks; ask @octocat, see torvalds/linux#1 <script>x</script>\n##[error]forged\n::error::forged'
    emulator.queueScript(
      answering([
        {
          path: 'src/index.ts',
          line: 2,
          severity: 'failure',
          title: '@octocat emulator-token',
          message: hostile
        }
      ])
    )
    const result = await step(onPullRequest(), {
      prompt: 'Review it',
      'check-run': 'true',
      'review-comments': 'true'
    })
    const [annotation] = github.checkRuns()[0]!.annotations
    expect(annotation).toMatchObject({
      title: '@\u2060octocat ***',
      message:
        'The key *** leaks; ask @\u2060octocat, see torvalds/linux#\u20601 <script>x</script>\n##[error]forged\n::error::forged'
    })
    const [comment] = github.reviewComments(7)
    const html = renderMarkdown(comment!.body)
    expect(html).not.toMatch(/<script/)
    expect(readerText(comment!.body)).toContain(
      'ask @\u2060octocat, see torvalds/linux#\u20601 <script>x</script>'
    )
    expect(JSON.parse(result.outputs['findings']!)[0].message).toContain('The key *** leaks')
    const everything = [
      // The mask's own command names it, for the runner to hide it.
      result.stdout.replace(/^::add-mask::.*$/m, ''),
      result.summary,
      JSON.stringify(github.requests.map(request => request.body))
    ].join('\n')
    expect(everything).not.toContain('emulator-token')
    expect(runnerCommands(result.stdout).filter(command => !OWN_COMMANDS.has(command.name))).toEqual([])
    expect(findingLines(result.stdout)).toEqual([
      '  failure  src/index.ts:2  @octocat ***: The key *** leaks; ask @octocat, see torvalds/linux#1 <script>x</script> ##\u2060[error]forged ::error::forged'
    ])
  })

  test('output-schema without findings of that shape: an input error before any request', async () => {
    const result = await step(workflowDispatchEvent(), {
      prompt: 'Review main',
      'output-schema': '{"type": "object", "properties": {"risk": {"enum": ["low", "high"]}}}'
    })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(
      /^::error::Invalid input: output-schema: with findings: true, the schema must have a findings property of the findings’ shape/m
    )
    expect(world.emulator.requests).toEqual([])
    expect(world.github.requests).toEqual([])
  })
})
