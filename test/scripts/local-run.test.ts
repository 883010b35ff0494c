import { AgentRunEmulator } from '../../emulator/index.js'
import {
  emulatorInputs,
  readCommand,
  USAGE,
  UsageError,
  type Command
} from '../../scripts/local-run-command.js'
import { readerText } from '../../scripts/render-markdown.js'
import { SAMPLE_PULL_REQUEST, SampleGitHub } from '../../scripts/sample-github.js'
import { runFlowStep } from '../support/flow-step.js'
import { VirtualClock } from '../support/virtual-clock.js'

/**
 * `npm start` tries the action's features locally (issue #27): its command line, and a comment on a
 * pull request through the fake GitHub it starts (scripts/sample-github.ts), the step given what
 * `npm start` gives the bundle, run in process on the virtual clock (the bundle as the runner runs
 * it: test/bundle).
 */

const command = (...argv: string[]): Command => readCommand(argv, true) as Command

test('--help is the usage, naming every feature it can try; a bad option is one line', () => {
  expect(readCommand(['--help'], true)).toBe('help')
  expect(readCommand(['-h'], false)).toBe('help')
  for (const option of [
    '--event',
    '--runs',
    '--max-parallel',
    '--verdict',
    '--check-run',
    '--wait',
    '--timeout-minutes',
    '--fail-on'
  ])
    expect(USAGE).toContain(option)
  expect(() => readCommand(['--bogus'], true)).toThrow(UsageError)
  expect(() => readCommand(['--bogus'], true)).toThrow(/--bogus/)
  expect(() => readCommand(['--event', 'review'], true)).toThrow(
    'Unknown event "review": comment or pr-comment'
  )
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
  const clock = new VirtualClock()
  const emulator = new AgentRunEmulator({ clock, defaultScenario: asked.options.scenario })
  const github = new SampleGitHub({ clock })
  try {
    const [baseUrl, gitHubUrl] = await Promise.all([emulator.start(), github.start()])
    const event = github.ask(`/codegen ${asked.prompt}`, true)
    const result = await runFlowStep(clock, {
      inputs: { ...emulatorInputs(asked, baseUrl), 'github-token': 'github-token' },
      env: { GITHUB_API_URL: gitHubUrl, GITHUB_SHA: SAMPLE_PULL_REQUEST.sha, GITHUB_EVENT_NAME: event.name },
      event
    })
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
  } finally {
    await Promise.all([emulator.stop(), github.stop()])
  }
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
