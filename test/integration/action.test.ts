import { readFileSync } from 'node:fs'
import { AgentRunEmulator, scenario, type EmulatorOptions, type RunScript } from '../../emulator/index.js'
import { entryHeadline } from '../../src/report/console-text.js'
import { entrySections } from '../../src/report/entry-text.js'
import { renderMarkdown, visibleText } from '../../scripts/render-markdown.js'
import { OWN_COMMANDS, runnerCommands } from '../support/runner-commands.js'
import { runBundledAction, type RunnerResult } from '../../scripts/runner-process.js'

/** The bundled action against the emulator over real HTTP on loopback, as the runner runs it. */

const TOKEN = 'emulator-token'
let emulator: AgentRunEmulator

async function startEmulator(options: EmulatorOptions = {}): Promise<string> {
  // New runs start PENDING and go RUNNING and EVALUATION, as the live service's may.
  emulator = new AgentRunEmulator({ modes: ['pending-start', 'extra-statuses'], pendingMs: 300, ...options })
  return emulator.start()
}

afterEach(async () => {
  await emulator?.stop()
})

async function action(
  inputs: Record<string, string>,
  extra: Partial<Parameters<typeof runBundledAction>[0]> = {}
) {
  return runBundledAction({
    inputs: {
      'api-token': TOKEN,
      'org-id': '1',
      'base-url': emulator.baseUrl,
      prompt: 'Fix the failing test',
      'poll-interval': '0.1',
      'timeout-minutes': '1',
      ...inputs
    },
    killAfterMs: 60_000,
    ...extra
  })
}

const fast = (name: string): RunScript => scenario(name, 20)
const routes = (route: string) => emulator.requests.filter(request => request.route === route)
/** The job log as a reader sees it: group titles shown, other workflow commands hidden. */
const consoleLines = (result: RunnerResult) =>
  result.stdout
    .split('\n')
    .map(line => line.replace(/^::group::/, ''))
    .filter(line => !line.startsWith('::'))

describe('the bundled action, end to end', () => {
  test('creates a run, mirrors its log live, writes outputs and summary, and passes', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    const result = await action({})
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)

    const run = emulator.runs()[0]!
    expect(emulator.runs()).toHaveLength(1)
    expect(result.outputs).toMatchObject({
      'agent-run-id': String(run.id),
      status: 'COMPLETE',
      outcome: 'success',
      'web-url': run.web_url,
      result: run.result,
      summary: run.summary,
      'pull-request-url': 'https://github.com/octo-org/octo-repo/pull/42',
      'log-count': String(run.logs.length)
    })
    expect(JSON.parse(result.outputs['github-pull-requests']!)).toEqual(run.github_pull_requests)

    // The create: prompt, the repository resolved from GITHUB_REPOSITORY, provenance in metadata.
    const creates = routes('create')
    expect(creates).toHaveLength(1)
    expect(creates[0]!.authorization).toBe(`Bearer ${TOKEN}`)
    expect(creates[0]!.body).toMatchObject({
      prompt: 'Fix the failing test',
      repo_id: 101,
      metadata: {
        github_action: {
          repository: 'octo-org/octo-repo',
          workflow_run_url: 'https://github.com/octo-org/octo-repo/actions/runs/4242',
          run_id: '4242',
          run_attempt: '1',
          event: 'workflow_dispatch',
          actor: 'octocat',
          sha: '0123456789abcdef0123456789abcdef01234567'
        }
      }
    })

    // Every entry once, in order, on the console and in the log file.
    const headlines = new Set(run.logs.map(entryHeadline))
    expect(consoleLines(result).filter(line => headlines.has(line))).toEqual(run.logs.map(entryHeadline))
    const logFile = readFileSync(result.outputs['log-file']!, 'utf8')
      .trim()
      .split('\n')
      .map(line => JSON.parse(line))
    expect(logFile.map(entry => entry.created_at)).toEqual(run.logs.map(entry => entry.created_at))
    expect(result.outputs['log-file']!.startsWith(`${result.runnerTemp}/`)).toBe(true)
    // The run starts PENDING and works as RUNNING (then EVALUATION, when a look falls in it); a look
    // that falls between its start and its first entry sees it ACTIVE first.
    expect(result.stdout).toContain(`Agent run ${run.id} created: ${run.web_url} (status PENDING)`)
    expect(result.stdout).toMatch(/Status PENDING → (ACTIVE|RUNNING) \(working\)/)
    expect(result.stdout).toMatch(/Status (PENDING|ACTIVE) → RUNNING \(working\)/)
    expect(result.stdout).toMatch(/Status (RUNNING|EVALUATION) → COMPLETE \(success\)/)

    // Logs are read incrementally; the full run once at the end.
    const skips = [...routes('logs'), ...routes('logs-alpha')].map(request => Number(request.query.skip ?? 0))
    expect(skips).toEqual([...skips].sort((a, b) => a - b))
    expect(routes('get').length).toBeLessThanOrEqual(1)

    expect(result.summary).toContain('## ✅ Agent run succeeded')
    expect(result.summary).toContain(`| Agent run | [#${run.id}](${run.web_url}) |`)
    expect(result.summary).toContain('### Result')
    expect(result.summary).toContain('### Log')
    // One <details> per entry with something to unfold; the others are a line.
    const withDetails = run.logs.filter(entry => entrySections(entry, 4_000, 200).length > 0)
    expect(withDetails.length).toBeGreaterThan(0)
    expect(renderMarkdown(result.summary).match(/<details>/g)).toHaveLength(withDetails.length)
  })

  test('a failed run fails the step, with every output set', async () => {
    await startEmulator()
    emulator.queueScript(fast('failure'))
    const result = await action({})
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({
      outcome: 'failure',
      status: 'ERROR',
      'github-pull-requests': '[]'
    })
    expect(result.outputs['result']).toBe(emulator.runs()[0]!.result)
    // The annotation says why (the result's first line), then where the run is.
    expect(result.stdout).toMatch(
      /::error::The agent run failed\. Result: The agent could not finish: installing the dependencies failed because the private package `@octo-org\/private-utils` is not reachable from the sandbox\. Add a registry token to the repository's setup commands and try again\.%0AAgent run \d+, status ERROR: https:\/\/app\.codegen\.com\/agent\/trace\/\d+$/m
    )
    expect(result.summary).toContain('## ❌ Agent run failed')
  })

  test("the failure annotation quotes the result's first line: bounded, one line, no command", async () => {
    await startEmulator()
    emulator.queueScript({
      steps: [
        { at: 0, status: 'ACTIVE' },
        { at: 50, status: 'ERROR', result: `\n  ##[error]forged ${'why '.repeat(500)}\n::error::second line` }
      ]
    })
    const result = await action({})
    expect(result.exitCode).toBe(1)
    const annotation = result.stdout.split('\n').find(line => line.startsWith('::error::')) ?? ''
    expect(annotation).toMatch(
      /^::error::The agent run failed\. Result: ##\u2060\[error\]forged (why ){50,}why…%0AAgent run \d+, status ERROR: https:/
    )
    expect(annotation.length).toBeLessThan(500)
    expect(annotation).not.toContain('second line')
    expect(runnerCommands(result.stdout).filter(command => command.parser === 'legacy')).toEqual([])
  })

  test('fail-on decides which outcomes fail the step', async () => {
    await startEmulator()
    emulator.queueScript(fast('failure'))
    expect((await action({ 'fail-on': 'none' })).exitCode).toBe(0)
    emulator.queueScript(fast('paused'))
    const paused = await action({})
    expect([paused.exitCode, paused.outputs['outcome']]).toEqual([0, 'paused'])
    expect(paused.summary).toMatch(/Resume it with `agent-run-id: \d+` and a follow-up `prompt`/)
    // Green, but not silent: a warning annotation with the question and how to answer it.
    expect(paused.stdout).toMatch(
      /^::warning::The agent run paused, waiting for an answer: Waiting for an answer: remove `legacyMode`, or only document it\?%0AAnswer with a comment `\/codegen <answer>` on the issue or pull request that started it, or resume it in a step with `agent-run-id: (\d+)` and the answer as `prompt`\.%0AAgent run \1, status PAUSED/m
    )
    emulator.queueScript(fast('no-pr'))
    const noPr = await action({ 'fail-on': 'failure,no-pull-request' })
    expect([noPr.exitCode, noPr.outputs['outcome']]).toEqual([1, 'success'])
    expect(noPr.stdout).toContain('::error::The agent run ended without a pull request')
  })

  test('times out at timeout-minutes with outcome timeout', async () => {
    await startEmulator()
    emulator.queueScript(scenario('endless'))
    const result = await action({ 'timeout-minutes': '0.05', 'poll-interval': '0.5' })
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ outcome: 'timeout', status: 'RUNNING' })
    expect(result.durationMs).toBeLessThan(3_000 + 3_000)
    expect(result.stdout).toContain('::error::The agent run did not end within timeout-minutes.')
  })

  test('wait: false starts the run and returns', async () => {
    await startEmulator()
    emulator.queueScript(scenario('endless'))
    const result = await action({ wait: 'false' })
    expect(result.exitCode).toBe(0)
    expect(result.outputs).toMatchObject({
      outcome: 'started',
      'agent-run-id': String(emulator.runs()[0]!.id)
    })
    expect(routes('logs')).toHaveLength(0)
  })

  test('resumes a run, reporting only the new work even while the old ending lingers', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    const first = await action({})
    const runId = first.outputs['agent-run-id']!
    const before = emulator.run(Number(runId))!.logs.length

    emulator.queueScript({
      staleAfterResumeMs: 1_500,
      steps: [
        { at: 0, status: 'ACTIVE' },
        {
          at: 300,
          log: { message_type: 'ACTION', tool_name: 'edit_file', thought: 'Updating the changelog' }
        },
        { at: 600, log: { message_type: 'FINAL_ANSWER', observation: 'Changelog updated' } },
        { at: 700, status: 'COMPLETE', result: 'Changelog updated.', summary: 'One more commit.' }
      ]
    })
    const resumed = await action({ 'agent-run-id': runId, prompt: 'Also update the changelog' })
    expect(resumed.exitCode).toBe(0)
    expect(routes('resume')).toHaveLength(1)
    expect(routes('resume')[0]!.body).toEqual({
      agent_run_id: Number(runId),
      prompt: 'Also update the changelog'
    })
    expect(routes('create')).toHaveLength(1)
    expect(resumed.outputs).toMatchObject({
      'agent-run-id': runId,
      outcome: 'success',
      status: 'COMPLETE',
      result: 'Changelog updated.',
      'log-count': '2'
    })
    expect(emulator.run(Number(runId))!.logs.length).toBe(before + 2)
    expect(resumed.stdout).toContain(`Agent run ${runId} resumed`)
    expect(resumed.stdout).toContain('Updating the changelog')
  })

  test('follows the OpenAPI log path when the interface path is missing, and the status alone when both are', async () => {
    await startEmulator({ logPaths: ['alpha'] })
    emulator.queueScript(fast('success'))
    const alpha = await action({})
    expect(alpha.exitCode).toBe(0)
    expect(alpha.outputs['log-count']).toBe(String(emulator.runs()[0]!.logs.length))
    expect(routes('logs-alpha').length).toBeGreaterThan(0)
    await emulator.stop()

    await startEmulator({ logPaths: [] })
    emulator.queueScript(fast('success'))
    const none = await action({})
    expect(none.exitCode).toBe(0)
    expect(none.outputs).toMatchObject({ outcome: 'success', 'log-count': '0' })
    expect(none.stdout).toContain('::warning::The run log is unavailable')
  })

  test('an unknown repository is warned about and the run created without repo_id', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    const result = await action({}, { env: { GITHUB_REPOSITORY: 'someone/elsewhere' } })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('::warning::Repository someone/elsewhere is not among the organization')
    expect(routes('create')[0]!.body).not.toHaveProperty('repo_id')
    // With repo-id given, no look-up at all.
    emulator.queueScript(fast('success'))
    await action({ 'repo-id': '102' })
    expect(routes('create')[1]!.body).toMatchObject({ repo_id: 102 })
    expect(routes('repos')).toHaveLength(1)
  })

  test('mirror-logs: none keeps the console and summary quiet, the log file complete', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    const result = await action({ 'mirror-logs': 'none' })
    const run = emulator.runs()[0]!
    expect(result.stdout).not.toContain('FINAL_ANSWER')
    expect(result.summary).not.toContain('### Log')
    expect(readFileSync(result.outputs['log-file']!, 'utf8').trim().split('\n')).toHaveLength(run.logs.length)
  })

  test('bad inputs fail with one message naming them, before any request', async () => {
    await startEmulator()
    const result = await action({ 'org-id': 'acme', 'timeout-minutes': '-5' })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toContain(
      '::error::Invalid inputs:%0A- org-id: expected a positive integer, got "acme"%0A- timeout-minutes: expected a positive number'
    )
    expect(emulator.requests).toHaveLength(0)
  })

  test('a rejected token says to check api-token, and the token never shows', async () => {
    await startEmulator()
    const secret = 'cg_live_0123456789abcdef'
    const result = await action({ 'api-token': secret })
    expect(result.exitCode).toBe(1)
    expect(result.outputs['outcome']).toBe('error')
    // The check's reads say why, in place of the bare 401; the service's answer follows.
    expect(result.stdout).toMatch(
      /::error::The service rejected the api-token \(401\): check the api-token input.*%0A\(Authentication failed \(401\) while trying to/
    )
    expect(routes('create')).toHaveLength(0)
    // Masked first: the only line that holds it is the one that tells the runner to hide it.
    expect(result.stdout.split('\n')[0]).toBe(`::add-mask::${secret}`)
    const shown = `${result.stdout.split('\n').slice(1).join('\n')}${result.summary}${JSON.stringify(result.outputs)}`
    expect(shown).not.toContain(secret)
  })

  test('an error body that echoes the token past the length cap leaks no part of it', async () => {
    const secret = 'cg_secret_0123456789'
    await startEmulator({ tokens: { [secret]: [1] } })
    // The cap on the service's message (1,000 characters) falls inside the echoed token.
    emulator.injectFaults({
      route: 'repos',
      fault: { kind: 'status', status: 403, body: { message: `${'x'.repeat(990)}${secret}` } }
    })
    const result = await action({ 'api-token': secret })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/::error::Permission denied \(403\)/)
    const shown = `${result.stdout.split('\n').slice(1).join('\n')}${result.summary}${JSON.stringify(result.outputs)}`
    expect(shown).not.toContain('cg_secret')
  })

  test('survives 5xx, 429 and resets, creating the run exactly once', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    emulator.injectFaults(
      { route: 'repos', fault: { kind: 'status', status: 503 } },
      { route: 'create', fault: { kind: 'reset-after' } },
      { route: 'list-runs', fault: { kind: 'status', status: 429 } },
      { route: 'logs', times: 2, fault: { kind: 'status', status: 502 } },
      { route: 'logs', after: 3, fault: { kind: 'malformed' } },
      { route: 'logs', after: 5, fault: { kind: 'reset-before' } }
    )
    const result = await action({})
    expect(result.exitCode).toBe(0)
    expect(emulator.runs()).toHaveLength(1)
    expect(routes('create')).toHaveLength(1)
    expect(result.outputs).toMatchObject({
      outcome: 'success',
      'log-count': String(emulator.runs()[0]!.logs.length)
    })
    expect(result.stdout).toContain('the create had reached the service; it is not sent again')
  })

  test('a create refused with 429 is sent again; a 402 is explained', async () => {
    await startEmulator({ runAllowance: 1 })
    emulator.queueScript(fast('success'))
    emulator.injectFaults({ route: 'create', fault: { kind: 'status', status: 429 } })
    expect((await action({})).exitCode).toBe(0)
    expect(routes('create').map(request => request.status)).toEqual([429, 200])
    const refused = await action({})
    expect(refused.exitCode).toBe(1)
    expect(refused.stdout).toMatch(/::error::The organization's agent run allowance is used up \(402\)/)
  })

  test('service text cannot issue workflow commands', async () => {
    await startEmulator()
    emulator.queueScript(fast('hostile'))
    const result = await action({})
    expect(result.outputs['outcome']).toBe('success')
    // Read by both of the runner's parsers (`::` after blanks, `##[` anywhere): only our own commands.
    const commands = runnerCommands(result.stdout)
    expect(commands.filter(command => command.parser === 'legacy')).toEqual([])
    expect(commands.filter(command => !OWN_COMMANDS.has(command.name))).toEqual([])
    // Our commands only. Its warnings are ours too: the unknown hostile status (quoted, commanding
    // nothing), and the pace notice a loaded machine may draw.
    const names = new Set(commands.map(command => command.name))
    names.delete('warning')
    expect(names).toEqual(new Set(['add-mask', 'group', 'endgroup', 'debug']))
    const ownWarning = /^::warning::(Unknown run status "|poll-interval \S+ s is faster)/
    expect(commands.filter(c => c.name === 'warning' && !ownWarning.test(c.line))).toEqual([])
    expect(result.stdout).not.toMatch(/^\s*::(set-output|stop-commands|add-mask::x|error::pwned)/m)
    // The hostile text stays readable: `##[` shows as written (a word joiner hides in it).
    expect(result.stdout.replace(/\u2060/g, '')).toContain('Found it ##[error]forged')

    // Nor break the summary: as rendered, its raw HTML is text, and only our <details> are elements.
    const html = renderMarkdown(result.summary)
    expect(html).not.toMatch(/<script|<img|<!--/)
    // Balanced, and not because nothing rendered: the entries' blocks are there.
    expect(html.match(/<details>/g)?.length ?? 0).toBeGreaterThan(0)
    expect(html.match(/<details>/g)?.length).toBe(html.match(/<\/details>/g)?.length)
    const text = visibleText(html)
    expect(text).toContain('</details></summary><script>alert(1)</script>')
    expect(text).toContain('::error::pwned ##[error]title')
    expect(Buffer.byteLength(result.summary)).toBeLessThan(1024 * 1024)
  })

  test('a run of 3,000 entries of 2 KB: the summary stays under 1 MiB and says what it left out; the log file has all', async () => {
    await startEmulator()
    emulator.queueScript(fast('big'))
    const result = await action({ 'poll-interval': '0.5' })
    expect(result.exitCode).toBe(0)
    const run = emulator.runs()[0]!
    expect(run.logs).toHaveLength(3_000)
    expect(result.outputs['log-count']).toBe('3000')
    const logFile = readFileSync(result.outputs['log-file']!, 'utf8').trim().split('\n')
    expect(logFile).toHaveLength(3_000)
    expect(Buffer.byteLength(result.summary)).toBeLessThanOrEqual(1_000_000)
    const leftOut = Number(/\*\*(\d+) log entries left out here\*\*/.exec(result.summary)?.[1])
    const shown = renderMarkdown(result.summary).match(/<details>/g)?.length ?? 0
    expect(leftOut + shown).toBe(3_000)
    expect(result.summary).toContain(
      `| Log entries | 3000, ${shown} shown below (all in the \`log-file\` output`
    )
    // Catching up reads full pages back to back: 30 pages, within the documented 60 log reads a minute.
    expect(emulator.requests.filter(request => request.route === 'logs').length).toBeLessThanOrEqual(35)
  })

  test.each(['SIGTERM', 'SIGINT'] as const)(
    'a job cancelled by %s writes its summary and outputs within seconds',
    async signal => {
      await startEmulator()
      emulator.queueScript(scenario('endless'))
      const result = await action(
        { 'poll-interval': '2' },
        // Once the run exists: a loaded machine may take longer than that to start the step.
        { terminateAfterMs: 1_500, terminateSignal: signal, terminateWhen: () => emulator.runs().length > 0 }
      )
      expect(result.terminatedAtMs).toBeDefined()
      expect(result.durationMs - result.terminatedAtMs!).toBeLessThan(3_000)
      expect(result.exitCode).toBe(1)
      expect(result.outputs).toMatchObject({
        outcome: 'cancelled',
        'agent-run-id': String(emulator.runs()[0]!.id)
      })
      expect(result.summary).toContain('Job cancelled while following the agent run')
      // The last read after the cancellation is still made: the outputs show the run as it stands.
      expect(routes('get').at(-1)?.at).toBeGreaterThanOrEqual(emulator.requests.at(-1)!.at)
      expect(routes('get').at(-1)?.status).toBe(200)
    }
  )
})

describe('the edges of a run', () => {
  test('a Retry-After longer than the time left is waited out until timeout-minutes, not given up at once', async () => {
    await startEmulator({ retryAfterHeader: true })
    emulator.queueScript(scenario('endless'))
    emulator.injectFaults({
      route: 'logs',
      after: 1,
      times: 100,
      fault: { kind: 'status', status: 429, retryAfter: 120 }
    })
    const result = await action({ 'timeout-minutes': '0.1' })
    expect(result.outputs['outcome']).toBe('timeout')
    expect(result.durationMs).toBeGreaterThanOrEqual(5_500)
    expect(result.durationMs).toBeLessThan(6_000 + 5_000)
    expect(routes('logs').filter(request => request.status === 429)).toHaveLength(1)
  })

  test('a timeout before the run exists follows fail-on, and says why', async () => {
    await startEmulator()
    emulator.injectFaults({ route: 'repos', fault: { kind: 'slow', delayMs: 10_000 } })
    const result = await action({ 'timeout-minutes': '0.05', 'fail-on': 'none' })
    expect(result.exitCode).toBe(0)
    expect(result.outputs['outcome']).toBe('timeout')
    expect(result.stdout).toContain('::warning::The wait ended: timeout-minutes was reached.')
    expect(routes('create')).toHaveLength(0)
  })

  test('a hostile status cannot issue workflow commands, not even on the outcome line', async () => {
    await startEmulator()
    emulator.queueScript({
      steps: [{ at: 0, status: 'WORKING\n::set-output name=outcome::success\r::error::pwned' }]
    })
    const result = await action({ 'timeout-minutes': '0.05' })
    expect(result.outputs['outcome']).toBe('timeout')
    expect(result.stdout).toContain('Outcome: timeout (status WORKING ::set-output')
    expect(result.stdout).not.toMatch(/^\s*::(set-output|error::pwned)/m)
  })

  test('a resume that times out while the run still shows its earlier ending reports no result', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    const first = await action({})
    const runId = first.outputs['agent-run-id']!
    emulator.queueScript({ staleAfterResumeMs: 60_000, steps: [{ at: 0, status: 'ACTIVE' }] })
    const resumed = await action({ 'agent-run-id': runId, prompt: 'Again', 'timeout-minutes': '0.05' })
    expect(resumed.exitCode).toBe(1)
    expect(resumed.outputs).toMatchObject({
      'agent-run-id': runId,
      outcome: 'timeout',
      status: 'COMPLETE',
      result: '',
      summary: '',
      'github-pull-requests': '[]'
    })
    expect(resumed.summary).not.toContain(emulator.run(Number(runId))!.result!)
  })

  test("finds the repository on any page of the organization's repositories, in any case", async () => {
    await startEmulator({ manyRepos: true })
    emulator.queueScript(fast('success'))
    const result = await action({}, { env: { GITHUB_REPOSITORY: 'OCTO-ORG/Octo-Repo' } })
    expect(result.exitCode).toBe(0)
    expect(routes('repos').map(request => request.query.skip)).toEqual(['0', '100'])
    expect(routes('create')[0]!.body).toMatchObject({ repo_id: 101 })
  })

  test('sends images, model, agent type and the metadata input with the provenance; a resume its images', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    const image = 'data:image/png;base64,iVBORw0KGgo='
    const created = await action({
      images: image,
      model: 'claude-sonnet',
      'agent-type': 'claude_code',
      metadata: '{"team": "platform", "ticket": 7}'
    })
    expect(created.exitCode).toBe(0)
    expect(routes('create')[0]!.body).toMatchObject({
      images: [image],
      model: 'claude-sonnet',
      agent_type: 'claude_code',
      metadata: { team: 'platform', ticket: 7, github_action: { repository: 'octo-org/octo-repo' } }
    })
    emulator.queueScript(fast('success'))
    await action({ 'agent-run-id': created.outputs['agent-run-id']!, prompt: 'Look again', images: image })
    expect(routes('resume')[0]!.body).toEqual({
      agent_run_id: Number(created.outputs['agent-run-id']),
      prompt: 'Look again',
      images: [image]
    })
  })

  test("a 422 says the request was rejected, with the service's own words", async () => {
    await startEmulator()
    emulator.injectFaults({
      route: 'create',
      fault: {
        kind: 'status',
        status: 422,
        body: { detail: [{ loc: ['body', 'agent_type'], msg: 'Input should be codegen or claude_code' }] }
      }
    })
    const result = await action({})
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toContain(
      '::error::The service rejected the request as invalid (422) while trying to create the agent run. The service said: agent_type: Input should be codegen or claude_code'
    )
    expect(routes('create')).toHaveLength(1)
  })
})
