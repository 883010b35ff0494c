import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction } from '../../../src/action.js'
import { markerLine } from '../../../src/github-shapes.js'
import { readMarker } from '../../../src/thread/tracking.js'
import { OWN_COMMENT_MARK } from '../../../src/github-shapes.js'
import type { InputName } from '../../../src/settings/settings.js'
import { AgentRunEmulator, scenario, type EmulatorOptions } from '../../../emulator/index.js'
import { FakeGitHub } from '../../../scripts/github-fake/index.js'
import { FakeRunner } from '../../support/fake-runner.js'
import { issueCommentEvent } from '../../support/webhooks.js'
import { stepEnvironment } from '../../support/step-environment.js'
import { completing, successOutputs } from '../../support/step-fixtures.js'
import { VirtualClock } from '../../support/virtual-clock.js'

describe('run-action', () => {
  /**
   * The orchestrator in process: runAction with a fake runner and a virtual clock shared with the
   * emulator and the fake GitHub (a scripted run plays out in milliseconds), over real HTTP on
   * loopback. What the runner would show: outputs, summary, console lines, the step's failure.
   */

  const TOKEN = 'emulator-token'
  let clock: VirtualClock
  let emulator: AgentRunEmulator
  let github: FakeGitHub | undefined
  let temp: string

  async function startEmulator(options: EmulatorOptions = {}): Promise<void> {
    emulator = new AgentRunEmulator({ clock, ...options })
    await emulator.start()
  }

  beforeEach(async () => {
    clock = new VirtualClock()
    temp = mkdtempSync(join(tmpdir(), 'codegen-action-'))
    await startEmulator()
  })

  afterEach(async () => {
    await Promise.all([emulator.stop(), github?.stop()])
    github = undefined
    rmSync(temp, { recursive: true, force: true })
  })

  interface Step {
    runner: FakeRunner
    failure: string | undefined
  }

  async function step(
    inputs: Partial<Record<InputName, string>>,
    options: {
      env?: Record<string, string>
      event?: { name: string; payload: unknown }
      signal?: AbortSignal
      /** Looked at whenever the step waits on time alone (a cancellation sent then). */
      onQuiet?: () => void
    } = {}
  ): Promise<Step> {
    const runner = new FakeRunner({
      'api-token': TOKEN,
      'org-id': '1',
      'base-url': emulator.baseUrl,
      prompt: 'Fix the failing test',
      wait: 'true',
      'timeout-minutes': '30',
      'poll-interval': '5',
      'fail-on': 'failure,timeout',
      'mirror-logs': 'console,summary',
      'trigger-phrase': '/codegen',
      comment: 'true',
      ...inputs
    })
    const environment = stepEnvironment(runner, {
      clock,
      temp,
      event: options.event,
      env: options.env,
      signal: options.signal
    })
    const failure = await clock.run(() => runAction(environment), { onQuiet: options.onQuiet })
    return { runner, failure }
  }

  const routes = (route: string) => emulator.requests.filter(request => request.route === route)

  test('creates a run, follows it in virtual time, and sets outputs, summary and console', async () => {
    emulator.queueScript(scenario('success'))
    const started = clock.now()
    const { runner, failure } = await step({})
    expect(failure).toBeUndefined()
    const run = emulator.runs()[0]!
    expect(runner.outputs).toMatchObject(successOutputs(run))
    expect(routes('create')).toHaveLength(1)
    expect(routes('create')[0]!.body).toMatchObject({ prompt: 'Fix the failing test', repo_id: 101 })
    expect(runner.summary).toContain('## ✅ Agent run succeeded')
    expect(runner.lines).toContain(`Agent run ${run.id} created: ${run.web_url} (status ACTIVE)`)
    expect(runner.lines.some(line => /Status ACTIVE → COMPLETE \(the run ended\)/.test(line))).toBe(true)
    // The token is masked before anything is printed.
    expect(runner.masked[0]).toBe(TOKEN)
    const logFile = readFileSync(runner.outputs['log-file']!, 'utf8').trim().split('\n')
    expect(logFile).toHaveLength(run.logs.length)
    // The scripted run's 14 s passed on the virtual clock, not on the wall's: its end seen at the
    // first look after it (poll-interval 5 s).
    expect(clock.now() - started).toBe(15_000)
  })

  test('a failed run fails the step with the run named', async () => {
    emulator.queueScript(scenario('failure'))
    const { runner, failure } = await step({})
    const run = emulator.runs()[0]!
    // Why (the first line of the run's result), then where the run is.
    expect(failure).toBe(
      `The agent run failed. Result: ${run.result!.split('\n')[0]}\nAgent run ${run.id}, status ERROR: ${run.web_url}`
    )
    expect(runner.outputs['outcome']).toBe('failure')
    expect(runner.summary).toContain('## ❌ Agent run failed')
  })

  test('a create whose answer is lost is looked up by its key, not sent again', async () => {
    emulator.queueScript(scenario('success'))
    emulator.injectFaults({ route: 'create', fault: { kind: 'reset-after' } })
    const { runner, failure } = await step({})
    expect(failure).toBeUndefined()
    expect(emulator.runs()).toHaveLength(1)
    expect(routes('create')).toHaveLength(1)
    expect(routes('list-runs').length).toBeGreaterThan(0)
    expect(runner.outputs['agent-run-id']).toBe(String(emulator.runs()[0]!.id))
    expect(runner.lines).toContain(
      `warning: Found agent run ${emulator.runs()[0]!.id}: the create had reached the service; it is not sent again.`
    )
  })

  test('bad inputs fail the step before any request, the token masked all the same', async () => {
    const { runner, failure } = await step({ 'org-id': 'acme', 'timeout-minutes': '-5' })
    expect(failure).toMatch(
      /^Invalid inputs:\n- org-id: expected a positive integer, got "acme"\n- timeout-minutes/
    )
    expect(emulator.requests).toHaveLength(0)
    expect(runner.masked).toEqual([TOKEN])
    expect(runner.outputs).toEqual({})
  })

  test('wait false starts the run and returns with outcome started', async () => {
    emulator.queueScript(scenario('success'))
    const { runner, failure } = await step({ wait: 'false' })
    expect(failure).toBeUndefined()
    expect(runner.outputs['outcome']).toBe('started')
    expect(routes('create')).toHaveLength(1)
  })

  test('a resume follows the run again and reports only the new entries', async () => {
    emulator.queueScript(scenario('success'))
    const first = await step({})
    const runId = first.runner.outputs['agent-run-id']!
    const before = emulator.run(Number(runId))!.logs.length
    emulator.queueScript({
      steps: [
        { at: 0, status: 'ACTIVE' },
        { at: 2_000, log: { message_type: 'FINAL_ANSWER', observation: 'Changelog updated' } },
        { at: 3_000, status: 'COMPLETE', result: 'Changelog updated.' }
      ]
    })
    const { runner, failure } = await step({ 'agent-run-id': runId, prompt: 'Update the changelog' })
    expect(failure).toBeUndefined()
    expect(routes('resume')).toHaveLength(1)
    expect(routes('resume')[0]!.body).toMatchObject({
      agent_run_id: Number(runId),
      prompt: 'Update the changelog'
    })
    expect(runner.outputs).toMatchObject({ outcome: 'success', result: 'Changelog updated.' })
    expect(Number(runner.outputs['log-count'])).toBe(emulator.run(Number(runId))!.logs.length - before)
  })

  test('a resume whose answer is lost is not sent again once the run is seen restarting', async () => {
    emulator.queueScript(scenario('success'))
    const runId = (await step({})).runner.outputs['agent-run-id']!
    emulator.queueScript({
      steps: [
        { at: 0, status: 'ACTIVE' },
        { at: 1_000, log: { message_type: 'ACTION', thought: 'again' } },
        { at: 3_000, status: 'COMPLETE', result: 'Again.' }
      ]
    })
    emulator.injectFaults({ route: 'resume', fault: { kind: 'reset-after' } })
    const { runner, failure } = await step({ 'agent-run-id': runId, prompt: 'Again' })
    expect(failure).toBeUndefined()
    expect(routes('resume')).toHaveLength(1)
    expect(emulator.run(Number(runId))!.resumes).toHaveLength(1)
    expect(runner.outputs).toMatchObject({ outcome: 'success', result: 'Again.' })
    expect(runner.lines.some(line => line.includes('restarted: the resume had reached the service'))).toBe(
      true
    )
  })

  test('a resume of a long log counts its entries page by page, and mirrors only the new ones', async () => {
    emulator.queueScript(scenario('big'))
    const runId = (await step({ 'mirror-logs': 'none' })).runner.outputs['agent-run-id']!
    expect(emulator.run(Number(runId))!.logs).toHaveLength(3_000)
    emulator.queueScript({
      steps: [
        { at: 0, status: 'ACTIVE' },
        { at: 1_000, log: { message_type: 'ACTION', thought: 'one more' } },
        { at: 2_000, status: 'COMPLETE', result: 'More.' }
      ]
    })
    const { runner } = await step({ 'agent-run-id': runId, prompt: 'More', 'mirror-logs': 'none' })
    expect(runner.outputs).toMatchObject({ outcome: 'success', 'log-count': '1' })
  })

  test('a repository the organization does not have: the run is created without one, with a notice', async () => {
    emulator.queueScript(scenario('success'))
    const { runner, failure } = await step({}, { env: { GITHUB_REPOSITORY: 'octo-org/elsewhere' } })
    expect(failure).toBeUndefined()
    expect(routes('create')[0]!.body).not.toHaveProperty('repo_id')
    expect(
      runner.lines.some(line => line.includes('Repository octo-org/elsewhere is not among the organization'))
    ).toBe(true)
  })

  test('a job cancelled before its run exists ends cancelled, without a run', async () => {
    // Cancelled while the create waits out a 429.
    emulator.injectFaults({ route: 'create', fault: { kind: 'status', status: 429 } })
    const cancellation = new AbortController()
    const refused = () => routes('create').some(request => request.status === 429)
    const { runner, failure } = await step(
      { 'repo-id': '101' },
      { signal: cancellation.signal, onQuiet: () => (refused() ? cancellation.abort() : undefined) }
    )
    expect(routes('create')).toHaveLength(1)
    expect(runner.outputs['outcome']).toBe('cancelled')
    expect(runner.outputs['agent-run-id']).toBe('')
    expect(failure).toBeDefined()
    expect(emulator.runs()).toHaveLength(0)
  })

  test('a create refused past timeout-minutes ends in a timeout before the run exists', async () => {
    emulator.injectFaults({ route: 'create', times: 100, fault: { kind: 'status', status: 429 } })
    const started = clock.now()
    const { runner, failure } = await step({ 'repo-id': '101', 'timeout-minutes': '0.5' })
    expect(runner.outputs['outcome']).toBe('timeout')
    expect(failure).toBe('The wait ended: timeout-minutes was reached.')
    expect(emulator.runs()).toHaveLength(0)
    expect(routes('create').length).toBeGreaterThan(1)
    expect(clock.now() - started).toBe(30_000)
  })

  test('a run that never ends times out at timeout-minutes, on the virtual clock', async () => {
    emulator.queueScript(scenario('endless'))
    const started = clock.now()
    const { runner, failure } = await step({ 'timeout-minutes': '3' })
    expect(runner.outputs['outcome']).toBe('timeout')
    expect(failure).toMatch(/^The agent run did not end within timeout-minutes\./)
    // Ended at its deadline to the millisecond: the last reads take no virtual time.
    expect(clock.now() - started).toBe(180_000)
  })

  test('a cancelled job reports outcome cancelled with its outputs', async () => {
    emulator.queueScript(scenario('endless'))
    const cancellation = new AbortController()
    // Cancelled once the run exists and the first poll has been read, as the step waits for the next.
    const polled = () => routes('logs').length > 0
    const { runner, failure } = await step(
      {},
      { signal: cancellation.signal, onQuiet: () => (polled() ? cancellation.abort() : undefined) }
    )
    expect(routes('logs')).toHaveLength(1)
    expect(runner.outputs['outcome']).toBe('cancelled')
    expect(runner.outputs['agent-run-id']).toBe(String(emulator.runs()[0]!.id))
    expect(failure).toBeDefined()
  })

  test('the service text never carries the token out, in any output, line or summary', async () => {
    emulator.queueScript(scenario('hostile'))
    const { runner } = await step({}, { env: { RUNNER_DEBUG: '1' } })
    expect(runner.outputs['outcome']).toBeDefined()
    expect(runner.everything).not.toContain(TOKEN)
  })

  describe('on a comment event', () => {
    beforeEach(async () => {
      github = new FakeGitHub({ clock, permissions: { alice: 'write', reader: 'read' } })
      await github.start()
    })

    function comment(body: string, login = 'alice', pullRequest = false): { name: string; payload: unknown } {
      const stored = github!.addComment(7, body, { login, type: 'User' })
      return issueCommentEvent({ body, login, commentId: stored.id, pullRequest })
    }

    const onComment = (
      event: { name: string; payload: unknown },
      inputs: Partial<Record<InputName, string>> = {}
    ) =>
      step({ 'github-token': 'github-token', ...inputs }, { event, env: { GITHUB_API_URL: github!.baseUrl } })

    test('starts a run and writes its ending to one tracking comment', async () => {
      emulator.queueScript(scenario('success'))
      const { runner, failure } = await onComment(comment('/codegen fix the typo'))
      expect(failure).toBeUndefined()
      expect(runner.masked).toEqual([TOKEN, 'github-token'])
      const run = emulator.runs()[0]!
      const tracking = github!.comments(7).filter(c => c.body.startsWith(OWN_COMMENT_MARK))
      expect(tracking).toHaveLength(1)
      expect(readMarker(tracking[0]!.body)?.runId).toBe(run.id)
      expect(tracking[0]!.body).toContain('✅ **succeeded**')
      expect((routes('create')[0]!.body as { prompt: string }).prompt).toContain('fix the typo')
    })

    test('a comment without the trigger phrase runs nothing', async () => {
      const { runner, failure } = await onComment(comment('thanks, looks good'))
      expect(failure).toBeUndefined()
      expect(runner.outputs['outcome']).toBe('skipped')
      expect(emulator.requests).toHaveLength(0)
    })

    test('a commenter without write permission is skipped with a notice', async () => {
      const { runner } = await onComment(comment('/codegen do it', 'reader'))
      expect(runner.outputs['outcome']).toBe('skipped')
      expect(
        runner.lines.some(line => line.startsWith('notice: No agent run: @reader has read permission'))
      ).toBe(true)
      expect(emulator.requests).toHaveLength(0)
    })

    test('a permission check GitHub refuses fails the step before any run', async () => {
      github!.injectClientError(10, /collaborators/, 403, 'Forbidden')
      const { runner, failure } = await onComment(comment('/codegen do it'))
      expect(runner.outputs['outcome']).toBe('error')
      expect(failure).toMatch(/^Could not read @alice's permission on octo-org\/octo-repo/)
      expect(emulator.requests).toHaveLength(0)
    })

    test('on a pull request: its branches in the prompt; a refused reaction is a warning only', async () => {
      github!.addPullRequest({ number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' })
      github!.injectClientError(1, /reactions/, 403, 'Forbidden')
      emulator.queueScript(scenario('success'))
      const { runner, failure } = await onComment(comment('/codegen rebase', 'alice', true))
      expect(failure).toBeUndefined()
      expect((routes('create')[0]!.body as { prompt: string }).prompt).toContain(
        'merges branch feature/parser into main'
      )
      expect(runner.lines.some(line => line.startsWith('warning: Could not react to the comment'))).toBe(true)
    })

    test("GitHub's own words in a warning are redacted: a refusal that echoes the tokens shows ***", async () => {
      github!.injectClientError(1, /reactions/, 403, `Forbidden for github-token and ${TOKEN}`)
      emulator.queueScript(scenario('success'))
      const { runner, failure } = await onComment(comment('/codegen fix'))
      expect(failure).toBeUndefined()
      const warning = runner.lines.find(line => line.startsWith('warning: Could not react to the comment'))
      expect(warning).toContain('Forbidden for *** and ***')
      expect(runner.everything).not.toContain(TOKEN)
      expect(runner.everything).not.toContain('github-token')
    })

    test('a pull request whose branches GitHub will not tell still gets its run', async () => {
      github!.addPullRequest({ number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' })
      github!.injectClientError(1, /\/pulls\/7$/, 404, 'Not Found')
      emulator.queueScript(scenario('success'))
      const { runner, failure } = await onComment(comment('/codegen rebase', 'alice', true))
      expect(failure).toBeUndefined()
      expect(
        runner.lines.some(line => line.startsWith("warning: Could not read the pull request's branches"))
      ).toBe(true)
    })

    test('comments GitHub will not list: no run, and the tracking comment says why', async () => {
      github!.injectClientError(1, /\/issues\/7\/comments$/)
      const { failure } = await onComment(comment('/codegen fix'))
      expect(failure).toMatch(/^Could not read the comments of #7 to find its tracking comment/)
      expect(emulator.requests).toHaveLength(0)
      const tracking = github!.comments(7).filter(c => c.body.startsWith(OWN_COMMENT_MARK))
      expect(tracking[0]!.body).toContain('⚠️ could not be started')
    })

    test('an unsigned marker of another bot is not followed, and a notice says so', async () => {
      const other = github!.addComment(7, 'Tracking run 4242', { login: 'some-app[bot]', type: 'Bot' })
      github!.editComment(other.id, `${markerLine(4242, 'ab'.repeat(16))}\nTracking run 4242`)
      emulator.queueScript(scenario('success'))
      const { runner } = await onComment(comment('/codegen fix it'))
      expect(routes('resume')).toHaveLength(0)
      expect(routes('create')).toHaveLength(1)
      expect(
        runner.lines.some(line =>
          /^notice: Not following the run marker of comment \d+ \(run 4242\)/.test(line)
        )
      ).toBe(true)
    })

    test('the next comment resumes the run of the tracking comment', async () => {
      emulator.queueScript(scenario('success'))
      await onComment(comment('/codegen fix the typo'))
      emulator.queueScript(completing('Changelog updated.', 2_000))
      const { runner } = await onComment(comment('/codegen also the changelog'))
      expect(routes('resume')).toHaveLength(1)
      expect(routes('resume')[0]!.body).toMatchObject({ agent_run_id: emulator.runs()[0]!.id })
      expect(runner.outputs['result']).toBe('Changelog updated.')
    })
  })
})
