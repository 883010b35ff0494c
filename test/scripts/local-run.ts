import {
  AgentRunEmulator,
  FINDINGS,
  FIRST_PLAN,
  PLAN_PULL_REQUEST,
  REVISED_PLAN
} from '../../emulator/index.js'
import {
  emulatorInputs,
  emulatorScenario,
  planComments,
  readCommand,
  USAGE,
  UsageError,
  type Command
} from '../../scripts/local-run-command.js'
import { readerText } from '../../scripts/render-markdown.js'
import { inDiff, rightSideHunks } from '../../src/report/diff.js'
import {
  SAMPLE_PULL_REQUEST,
  SAMPLE_WORKFLOW_RUN,
  SampleGitHub,
  type SampleEvent
} from '../../scripts/sample-github.js'
import { runFlowStep } from '../support/flow-step.js'
import { VirtualClock } from '../support/virtual-clock.js'

/**
 * `npm start` tries the action's features locally (issue #27): its command line, and a comment on a
 * pull request, a review with findings (issue #35) or a failed CI run (issue #36) through the fake
 * GitHub it starts
 * (scripts/sample-github.ts), the step given what `npm start` gives the bundle, run in process on the
 * virtual clock (the bundle as the runner runs it: test/bundle).
 */

const command = (...argv: string[]): Command => readCommand(argv, true) as Command

/**
 * What npm start does for `asked`: the sample GitHub, the event `eventOf` makes on it, the step given
 * what npm start gives the bundle, on the emulator; both stopped after, what they hold kept.
 */
async function sample(asked: Command, eventOf: (github: SampleGitHub) => SampleEvent) {
  const clock = new VirtualClock()
  const emulator = new AgentRunEmulator({ clock, defaultScenario: asked.options.scenario })
  const github = new SampleGitHub({ clock })
  try {
    const [baseUrl, gitHubUrl] = await Promise.all([emulator.start(), github.start()])
    const event = eventOf(github)
    const result = await runFlowStep(clock, {
      inputs: { ...emulatorInputs(asked, baseUrl), 'github-token': 'github-token' },
      env: { GITHUB_API_URL: gitHubUrl, GITHUB_SHA: SAMPLE_PULL_REQUEST.sha, GITHUB_EVENT_NAME: event.name },
      event
    })
    return { result, emulator, github, event }
  } finally {
    await Promise.all([emulator.stop(), github.stop()])
  }
}

test('--help is the usage, naming every feature it can try; a bad option is one line', () => {
  expect(readCommand(['--help'], true)).toBe('help')
  expect(readCommand(['-h'], false)).toBe('help')
  for (const option of [
    '--event',
    'workflow-run',
    '--conclusion',
    '--fork',
    '--runs',
    '--max-parallel',
    '--verdict',
    '--findings',
    '--review-comments',
    'pull-request',
    '--check-run',
    '--wait',
    '--timeout-minutes',
    '--fail-on'
  ])
    expect(USAGE).toContain(option)
  expect(() => readCommand(['--bogus'], true)).toThrow(UsageError)
  expect(() => readCommand(['--bogus'], true)).toThrow(/--bogus/)
  expect(() => readCommand(['--event', 'review'], true)).toThrow(
    'Unknown event "review": comment, pr-comment, pull-request or workflow-run'
  )
  expect(() => readCommand(['--conclusion', 'failure'], true)).toThrow(
    '--conclusion and --fork go with --event workflow-run'
  )
  expect(() => readCommand(['--event', 'comment', '--fork'], true)).toThrow(
    '--conclusion and --fork go with --event workflow-run'
  )
  expect(() => readCommand(['--event', 'workflow-run', '--conclusion', 'red'], true)).toThrow(
    /^Unknown conclusion "red": one of failure, timed_out, success, cancelled, skipped/
  )
  expect(() => readCommand(['--event', 'workflow-run', '--runs', '2'], true)).toThrow(UsageError)
  expect(() => readCommand(['--runs', '101'], true)).toThrow('--runs 101: from 1 to 100 runs')
  expect(() => readCommand(['--scenario', 'nope'], true)).toThrow(/Unknown scenario "nope"/)
})

test('with no arguments, the sample run as before', () => {
  expect(command().inputs).toEqual({
    verdict: 'false',
    'output-schema': '',
    'output-retries': '1',
    wait: 'true',
    prompt: 'Fix the failing test in src/parser.ts'
  })
  // Against the emulator: its token and address, the token's only organization, a poll a second.
  expect(emulatorInputs(command(), 'http://127.0.0.1:9')).toEqual({
    task: 'run',
    'api-token': 'emulator-token',
    'org-id': '',
    repository: '',
    'base-url': 'http://127.0.0.1:9',
    'poll-interval': '1',
    'timeout-minutes': '5',
    ...command().inputs
  })
  expect(emulatorInputs(command('--timeout-minutes', '0.5'), '')['timeout-minutes']).toBe('0.5')
})

test('the step’s inputs: runs, wait, timeout-minutes, fail-on, a check run', () => {
  const many = command('--runs', '3', '--max-parallel', '2', 'Bump the linter')
  expect(JSON.parse(many.inputs['runs']!)).toEqual([
    { name: 'run-1', prompt: 'Bump the linter' },
    { name: 'run-2', prompt: 'Bump the linter' },
    { name: 'run-3', prompt: 'Bump the linter' }
  ])
  expect(many.inputs).toMatchObject({ 'max-parallel': '2' })
  expect(many.inputs).not.toHaveProperty('prompt')
  const options = command('--wait', 'false', '--fail-on', 'none', '--check-run', '--check-name', 'Nightly')
  expect(options.inputs).toMatchObject({
    wait: 'false',
    'fail-on': 'none',
    'check-run': 'true',
    'check-name': 'Nightly'
  })
  expect(command('--timeout-minutes', '0.5').options['timeout-minutes']).toBe('0.5')
  expect(command('--scenario', 'verdict-fail').inputs['verdict']).toBe('true')
})

test('--event pr-comment: a reaction, the tracking comment and a failed check for a verdict of fail', async () => {
  const asked = command('--event', 'pr-comment', '--scenario', 'verdict-fail', 'review it')
  const { result, emulator, github } = await sample(asked, github =>
    github.ask(`/codegen ${asked.prompt}`, true)
  )
  expect(result.exitCode).toBe(1)
  expect(result.outputs).toMatchObject({ outcome: 'rejected', trigger: 'comment', verdict: 'fail' })
  expect(github.reactions.map(reaction => reaction.content)).toEqual(['eyes'])
  // The thread on #7: the comment asked, then the tracking comment that answered it.
  const thread = github.threadComments()
  expect(thread.map(comment => [comment.issueNumber, comment.user.login])).toEqual([
    [7, 'octocat'],
    [7, 'github-actions[bot]']
  ])
  expect(readerText(thread[1]!.body)).toContain('rejected')
  expect(github.checkRuns()).toEqual([
    expect.objectContaining({ name: 'Codegen', head_sha: SAMPLE_PULL_REQUEST.sha, status: 'completed' })
  ])
  expect(github.checkRuns()[0]!.conclusion).not.toBe('success')
  expect(github.unanswered()).toEqual([])
  expect(github.invalidCheckRunRequests).toEqual([])
  const request = emulator.requests.find(r => r.route === 'create')!.body as { prompt: string }
  expect(request.prompt).toContain('review it')

  // What npm start prints of it, as a reader sees it on GitHub.
  const written = github.written()
  expect(written).toMatch(
    /^Reactions on the comment: eyes\n\nComment on #7 \(as GitHub shows it\):\n {4}Codegen agent run #\d+ .*rejected/
  )
  expect(written).toContain('\n\nCheck run "Codegen" on fffffff: completed, failure: Rejected: ')
  expect(written).not.toContain('no answer')
})

describe('--scenario findings', () => {
  test('asks for findings, a verdict and a review, on pull request #7 opened unless an event is given', () => {
    const findings = command('--scenario', 'findings')
    expect(findings.options.event).toBe('pull-request')
    expect(findings.inputs).toMatchObject({
      verdict: 'true',
      findings: 'true',
      'review-comments': 'true',
      'check-run': 'true',
      prompt: expect.stringContaining('Report each problem on the lines it is about.')
    })
    expect(command('--scenario', 'findings', '--event', 'pr-comment', 'review it')).toMatchObject({
      options: { event: 'pr-comment' },
      inputs: { findings: 'true', 'review-comments': 'true', prompt: '' }
    })
    expect(command('--findings').inputs).toMatchObject({ findings: 'true' })
    expect(command('--findings').inputs).not.toHaveProperty('review-comments')
    expect(command('--event', 'pull-request').inputs).toMatchObject({ 'check-run': 'true' })
  })

  test('the sample pull request’s diff holds some of the scenario’s findings, and not the others', async () => {
    const github = new SampleGitHub()
    try {
      await github.start()
      const response = await fetch(`${github.baseUrl}/repos/octo-org/octo-repo/pulls/7/files`, {
        headers: { authorization: 'token github-token' }
      })
      const files = (await response.json()) as Array<{ filename: string; patch: string }>
      const inside = FINDINGS.filter(finding => {
        const file = files.find(one => one.filename === finding.path)
        return file && inDiff(rightSideHunks(file.patch), finding.line, finding.end_line ?? finding.line)
      })
      expect(inside.map(finding => finding.title)).toEqual([FINDINGS[0]!.title, FINDINGS[1]!.title])
      expect(FINDINGS.length - inside.length).toBe(2)
    } finally {
      await github.stop()
    }
  })

  test('npm start -- --scenario findings: the check’s annotations and one review, two findings inline and two in its body', async () => {
    const { result, github } = await sample(command('--scenario', 'findings'), github =>
      github.pullRequestEvent()
    )
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ outcome: 'rejected', trigger: 'inputs', verdict: 'fail' })
    expect(JSON.parse(result.outputs['findings']!)).toEqual(FINDINGS)
    expect(github.unanswered()).toEqual([])
    expect(github.invalidCheckRunRequests).toEqual([])
    expect(github.invalidReviewRequests).toEqual([])
    const [check, ...others] = github.checkRuns()
    expect(others).toEqual([])
    expect(check).toMatchObject({ head_sha: SAMPLE_PULL_REQUEST.sha, conclusion: 'failure' })
    expect(check!.annotations).toHaveLength(4)
    const [review, ...more] = github.reviews(7)
    expect(more).toEqual([])
    expect(review).toMatchObject({ state: 'COMMENTED', commit_id: SAMPLE_PULL_REQUEST.sha })
    expect(review!.comments).toHaveLength(2)

    // What npm start prints of it.
    const written = github.written()
    expect(written).toContain(
      'Its annotations:\n    failure src/index.ts:2: Renamed export breaks v1 clients\n' +
        '    warning src/parser.ts:46-47: The new guard throws on an empty field\n'
    )
    expect(written).toContain(`Review of #7 on fffffff (COMMENTED), as GitHub shows it:\n`)
    expect(written).toContain('docs/api.md:14: The API page documents parseLine')
    expect(written).toMatch(
      /Its comments on the lines of the diff:\n {4}on src\/index\.ts:2: .*Renamed export\n? ?.*\n {4}on src\/parser\.ts:46-47: /
    )
  })
})

describe('--scenario images', () => {
  test('a comment on issue #9 with screenshots, the emulator’s success; no other event', () => {
    const asked = command('--scenario', 'images')
    expect(asked.options.event).toBe('comment')
    expect(emulatorScenario(asked.options.scenario)).toBe('success')
    expect(asked.inputs.prompt).toBe('')
    expect(() => command('--scenario', 'images', '--event', 'pr-comment')).toThrow(/--scenario images/)
  })

  test('npm start -- --scenario images: the comment’s and the issue’s screenshots, served at the sample’s own origin, go with the run', async () => {
    const asked = command('--scenario', 'images')
    const clock = new VirtualClock()
    const emulator = new AgentRunEmulator({
      clock,
      defaultScenario: emulatorScenario(asked.options.scenario)
    })
    const github = new SampleGitHub({ clock })
    try {
      const [baseUrl, gitHubUrl] = await Promise.all([emulator.start(), github.start()])
      const event = github.askWithScreenshots(`/codegen ${asked.prompt}`)
      const result = await runFlowStep(clock, {
        inputs: { ...emulatorInputs(asked, baseUrl), 'github-token': 'github-token' },
        env: {
          GITHUB_API_URL: gitHubUrl,
          GITHUB_SERVER_URL: new URL(gitHubUrl).origin,
          GITHUB_EVENT_NAME: event.name
        },
        event
      })
      expect(result.exitCode).toBe(0)
      const created = emulator.requests.find(request => request.route === 'create')!.body as {
        prompt: string
        images: string[]
      }
      expect(created.images).toHaveLength(3)
      expect(created.images.every(uri => uri.startsWith('data:image/png;base64,iVBORw0KGgo'))).toBe(true)
      expect(created.prompt).toContain("At 320 px: [Image 1: in @octocat's comment of")
      expect(created.prompt).toContain("> [Image 3: in the issue's description]")
      expect(github.written()).toMatch(/Images from the thread: 3 images sent/)
      expect(github.written()).not.toMatch(/jwt|private-user-images/)
    } finally {
      await Promise.all([emulator.stop(), github.stop()])
    }
  })
})

describe('--event workflow-run', () => {
  test('the prompt, optional, is the workflow’s instructions for the fix', () => {
    expect(command('--event', 'workflow-run').inputs['prompt']).toBe('')
    expect(command('--event', 'workflow-run', 'Leave', 'the migrations alone').inputs['prompt']).toBe(
      'Leave the migrations alone'
    )
    expect(command('--event', 'workflow-run', '--conclusion', 'timed_out', '--fork').options).toMatchObject({
      event: 'workflow-run',
      conclusion: 'timed_out',
      fork: true
    })
  })

  /** What npm start does for `argv`: the sample GitHub's CI run, its event, the step on the emulator. */
  function play(...argv: string[]) {
    const asked = command('--event', 'workflow-run', ...argv)
    return sample(asked, github =>
      github.ciRun({ conclusion: asked.options.conclusion, fork: asked.options.fork })
    )
  }

  test('a failed CI run: one CI fix, its prompt from the failed job and its log, the tracking comment’s attempt 1 of 3', async () => {
    const { result, emulator, github, event } = await play('Fix the cause, not the test')
    expect(event.name).toBe('workflow_run')
    expect(event.payload).toMatchObject({
      action: 'completed',
      workflow_run: {
        id: SAMPLE_WORKFLOW_RUN.id,
        conclusion: 'failure',
        head_branch: SAMPLE_PULL_REQUEST.head,
        head_sha: SAMPLE_PULL_REQUEST.sha,
        head_repository: { full_name: 'octo-org/octo-repo' },
        pull_requests: [{ number: SAMPLE_PULL_REQUEST.number, head: { ref: SAMPLE_PULL_REQUEST.head } }]
      },
      repository: { full_name: 'octo-org/octo-repo' }
    })
    expect(result.exitCode).toBe(0)
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'workflow-run' })
    const creates = emulator.requests.filter(request => request.route === 'create')
    expect(creates).toHaveLength(1)
    const prompt = (creates[0]!.body as { prompt: string }).prompt
    expect(prompt).toContain('push the fix to the branch `feature/parser` so that it updates pull request #7')
    expect(prompt).toContain('Instructions from the workflow (follow them):\n\nFix the cause, not the test')
    expect(prompt).toContain('- Job "test (ubuntu-latest)" (failure): failed step 3 "Run npm test"')
    expect(prompt).toContain('    Received: ["a"]\nTests: 1 failed, 41 passed, 42 total\n')
    expect(github.logDownloads).toEqual([expect.objectContaining({ authorization: undefined, status: 200 })])
    expect(github.unanswered()).toEqual([])
    expect(github.invalidQueryRequests).toEqual([])

    // What npm start prints of it: the tracking comment on #7, and the log read without the token.
    const written = github.written()
    expect(written).toMatch(/^Comment on #7 \(as GitHub shows it\):\n {4}Codegen agent run #\d+ ✅ succeeded/)
    expect(written).toContain(
      'CI fix of CI #163, which failed on feature/parser: attempt 1 of 3 for fffffff.'
    )
    expect(written).toMatch(
      /\n\nJob logs read from the log storage \(127\.0\.0\.2:\d+, not GitHub's host\): 1, none with an Authorization header$/
    )
  })

  test.each([
    [['--conclusion', 'success'], 'concluded success: there is no failure to fix.'],
    [['--fork'], 'ran on a branch of the fork someone-else/octo-repo'],
    [['--fork', '--conclusion', 'timed_out'], 'ran on a branch of the fork someone-else/octo-repo']
  ])('%j: nothing starts, nothing is written, a notice says why', async (argv, why) => {
    const { result, emulator, github } = await play(...argv)
    expect(result.exitCode).toBe(0)
    expect(result.outputs['outcome']).toBe('skipped')
    expect(result.stdout).toContain(`::notice::No agent run: The workflow run CI #163 ${why}`)
    expect(emulator.requests).toEqual([])
    expect(github.requests).toEqual([])
    expect(github.written()).toBe('Nothing was written to GitHub.')
  })
})

test('what the step wrote, as npm start prints it: nothing, and each call the fake GitHub had no answer for', async () => {
  const github = new SampleGitHub()
  try {
    await github.start()
    expect(github.written()).toBe('Nothing was written to GitHub.')
    const ask = (method: string, path: string): Promise<Response> =>
      fetch(github.baseUrl + path, { method, headers: { authorization: 'token github-token' } })
    expect((await ask('GET', '/repos/octo-org/octo-repo/pulls/7')).status).toBe(200)
    expect((await ask('GET', '/repos/octo-org/octo-repo/pulls/8')).status).toBe(404)
    expect((await ask('DELETE', '/repos/octo-org/octo-repo/issues/comments/1')).status).toBe(404)
    expect(github.written()).toBe(
      'Nothing was written to GitHub.\n\n' +
        'The simulated GitHub had no answer for: GET /repos/octo-org/octo-repo/pulls/8, ' +
        'DELETE /repos/octo-org/octo-repo/issues/comments/1'
    )
  } finally {
    await github.stop()
  }
})

test('the sample GitHub holds the repository GITHUB_REPOSITORY names, its pull request at the sample head', async () => {
  const github = new SampleGitHub({ repository: 'someone/their-repo' })
  try {
    await github.start()
    const event = github.ask('/codegen go', false, 'alice')
    expect(event.payload).toMatchObject({
      issue: { number: 9, html_url: 'https://github.com/someone/their-repo/issues/9' },
      comment: { body: '/codegen go', user: { login: 'alice', type: 'User' } },
      repository: { full_name: 'someone/their-repo', name: 'their-repo', owner: { login: 'someone' } }
    })
    const get = async (path: string) =>
      (await fetch(github.baseUrl + path, { headers: { authorization: 'token github-token' } })).json()
    // The one who asks may write; the pull request's head is the commit a check run goes on.
    expect(await get('/repos/someone/their-repo/collaborators/alice/permission')).toMatchObject({
      permission: 'write'
    })
    expect(await get('/repos/someone/their-repo/pulls/7')).toMatchObject({
      title: SAMPLE_PULL_REQUEST.title,
      head: { ref: 'feature/parser', sha: SAMPLE_PULL_REQUEST.sha }
    })
    expect(github.threadComments().map(comment => comment.id)).toEqual([
      (event.payload.comment as { id: number }).id
    ])
  } finally {
    await github.stop()
  }
})

describe('--scenario plan', () => {
  test('three comments on issue #9 unless #7 is named: the plan asked, revised, and approved by another person', () => {
    const plan = command('--scenario', 'plan')
    expect(plan.options.event).toBe('comment')
    expect(plan.inputs['prompt']).toBe('')
    expect(plan.comments).toEqual([
      { body: '/codegen plan add a --json flag to the export command', login: 'octocat' },
      { body: '/codegen plan also write one object a line with --json-lines', login: 'octocat' },
      { body: '/codegen approve', login: 'monalisa' }
    ])
    expect(command('--scenario', 'plan', '--event', 'pr-comment', 'tidy the CLI').comments).toEqual(
      planComments('tidy the CLI')
    )
    expect(() => command('--scenario', 'plan', '--event', 'pull-request')).toThrow(
      '--scenario plan plays comments on a thread: --event comment or pr-comment'
    )
    expect(() => command('--scenario', 'plan', '--runs', '2')).toThrow(UsageError)
    expect(command('--event', 'comment', 'fix it').comments).toEqual([
      { body: '/codegen fix it', login: 'octocat' }
    ])
    expect(command().comments).toEqual([])
    expect(USAGE).toContain('--scenario plan plays three comments')
  })

  /** What npm start does for `asked`: each of its comments asked on the sample thread in turn, a step each. */
  async function conversation(asked: Command) {
    const clock = new VirtualClock()
    const emulator = new AgentRunEmulator({ clock, defaultScenario: asked.options.scenario })
    const github = new SampleGitHub({ clock })
    const onPullRequest = asked.options.event === 'pr-comment'
    const number = onPullRequest ? SAMPLE_PULL_REQUEST.number : 9
    try {
      const [baseUrl, gitHubUrl] = await Promise.all([emulator.start(), github.start()])
      const steps = []
      for (const comment of asked.comments) {
        // A person reads the answer before the next comment, as npm start waits.
        await clock.run(() => clock.advance(1_100))
        const event = github.ask(comment.body, onPullRequest, comment.login)
        const result = await runFlowStep(clock, {
          inputs: { ...emulatorInputs(asked, baseUrl), 'github-token': 'github-token' },
          env: {
            GITHUB_API_URL: gitHubUrl,
            GITHUB_SHA: SAMPLE_PULL_REQUEST.sha,
            GITHUB_EVENT_NAME: event.name
          },
          event
        })
        const replies = github.comments(number).filter(one => one.user.type === 'Bot')
        steps.push({ result, replies: replies.map(one => readerText(one.body)), checks: github.checkRuns() })
      }
      return { steps, emulator, github }
    } finally {
      await Promise.all([emulator.stop(), github.stop()])
    }
  }

  test('npm start -- --scenario plan: the plan shown, the plan revised, the revised plan carried out to its pull request', async () => {
    const { steps, emulator, github } = await conversation(command('--scenario', 'plan'))
    const [plan, revision, approval] = steps
    const firstLine = (text: string) => text.split('\n')[0]!.replace(/[#`]/g, '').trim()

    // The plan: the step passes, outcome planned, the plan the output and the comment.
    expect([plan!.result.exitCode, plan!.result.outputs['outcome'], plan!.result.outputs['plan']]).toEqual([
      0,
      'planned',
      FIRST_PLAN
    ])
    expect(plan!.replies).toHaveLength(1)
    expect(plan!.replies[0]).toContain(firstLine(FIRST_PLAN))
    expect(plan!.replies[0]).toContain(
      'Reply /codegen approve to carry out this plan, or /codegen plan <what to change> to revise it.'
    )

    // The revision: the same run resumed, the new plan shown, the earlier one kept (folded).
    expect([
      revision!.result.exitCode,
      revision!.result.outputs['outcome'],
      revision!.result.outputs['plan']
    ]).toEqual([0, 'planned', REVISED_PLAN])
    expect(revision!.result.outputs['agent-run-id']).toBe(plan!.result.outputs['agent-run-id'])
    const revised = revision!.replies.at(-1)!
    expect(revised).toContain(firstLine(REVISED_PLAN))
    expect(revised).toContain(firstLine(FIRST_PLAN))

    // The approval: the revised plan, whole, sent to the plan's run, carried out to a pull request.
    expect(approval!.result.exitCode).toBe(0)
    expect(approval!.result.outputs).toMatchObject({
      outcome: 'success',
      'agent-run-id': plan!.result.outputs['agent-run-id'],
      'pull-request-url': PLAN_PULL_REQUEST.url
    })
    const creates = emulator.requests.filter(request => request.route === 'create')
    const resumes = emulator.requests.filter(request => request.route === 'resume')
    expect(creates).toHaveLength(1)
    expect((creates[0]!.body as { prompt: string }).prompt).toContain(
      'add a --json flag to the export command'
    )
    const [revising, approving] = resumes.map(request => (request.body as { prompt: string }).prompt)
    expect(resumes).toHaveLength(2)
    expect(revising).toContain('also write one object a line with --json-lines')
    // The revised plan, quoted as data, whole.
    expect(approving!.replace(/^> ?/gm, '')).toContain(REVISED_PLAN)
    expect(approval!.replies.at(-1)).toContain('monalisa')
    expect(github.unanswered()).toEqual([])
    expect(github.written()).toMatch(/^Reactions on the comment: eyes, eyes, eyes\n\nComment on #9/)
  })
})
