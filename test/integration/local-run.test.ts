import { AgentRunEmulator } from '../../emulator/index.js'
import { LOCAL_PULL_REQUEST, LOCAL_TOKEN, LocalGitHub } from '../../scripts/local-github.js'
import { readCommand, USAGE, UsageError, type Command } from '../../scripts/local-run-command.js'
import { readerText } from '../../scripts/render-markdown.js'
import { runBundledAction } from '../../scripts/runner-process.js'

/**
 * `npm start` tries the action's features locally (issue #27): its command line, and a comment on a
 * pull request through the loopback stand-in of GitHub it starts (scripts/local-github.ts), the
 * bundle run as `npm start` runs it.
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
  const { options, prompt, inputs } = command(
    '--event',
    'pr-comment',
    '--scenario',
    'verdict-fail',
    'review it'
  )
  const emulator = new AgentRunEmulator({ defaultScenario: options.scenario, speed: 20 })
  const github = new LocalGitHub()
  try {
    const [baseUrl, gitHubUrl] = await Promise.all([emulator.start(), github.start()])
    const event = github.ask(`/codegen ${prompt}`, true)
    const result = await runBundledAction({
      inputs: {
        'api-token': 'emulator-token',
        'base-url': baseUrl,
        'poll-interval': '0.1',
        'github-token': LOCAL_TOKEN,
        ...inputs
      },
      env: { GITHUB_API_URL: gitHubUrl, GITHUB_SHA: LOCAL_PULL_REQUEST.sha, GITHUB_EVENT_NAME: event.name },
      event,
      killAfterMs: 60_000
    })
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ outcome: 'rejected', trigger: 'comment', verdict: 'fail' })
    expect(github.reactions).toEqual(['eyes'])
    // The thread on #7: the comment asked, then the tracking comment that answered it.
    expect(github.comments.map(comment => [comment.issueNumber, comment.user.login])).toEqual([
      [7, 'octocat'],
      [7, 'github-actions[bot]']
    ])
    expect(readerText(github.comments[1]!.body)).toContain('rejected')
    expect(github.checkRuns).toEqual([
      expect.objectContaining({ name: 'Codegen', head_sha: LOCAL_PULL_REQUEST.sha, status: 'completed' })
    ])
    expect(github.checkRuns[0]!.conclusion).not.toBe('success')
    expect(github.unknownCalls).toEqual([])
    const request = emulator.requests.find(r => r.route === 'create')!.body as { prompt: string }
    expect(request.prompt).toContain('review it')
  } finally {
    await Promise.all([emulator.stop(), github.stop()])
  }
})
