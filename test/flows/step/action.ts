import { readFileSync } from 'node:fs'
import { scenario } from '../../../emulator/index.js'
import { entryHeadline } from '../../../src/report/console-text.js'
import { entrySections } from '../../../src/report/entry-text.js'
import { renderMarkdown } from '../../../scripts/render-markdown.js'
import { runnerCommands } from '../../support/runner-commands.js'
import { PROVENANCE, successOutputs } from '../../support/step-fixtures.js'
import {
  TOKEN,
  emulator,
  startEmulator,
  action,
  fast,
  routes,
  consoleLines
} from '../../support/action-world.js'

/**
 * The bundled action against the emulator over real HTTP on loopback, as the runner runs it: a run
 * created, mirrored, followed to each ending, resumed. Errors, hostile text and cancellations:
 * action-errors.ts; the edges of a run: run-edges.ts.
 */

describe('the bundled action, end to end', () => {
  test('creates a run, mirrors its log live, writes outputs and summary, and passes', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    const result = await action({})
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)

    const run = emulator.runs()[0]!
    expect(emulator.runs()).toHaveLength(1)
    expect(result.outputs).toMatchObject({ ...successOutputs(run), summary: run.summary })
    expect(JSON.parse(result.outputs['github-pull-requests']!)).toEqual(run.github_pull_requests)

    // The create: prompt, the repository resolved from GITHUB_REPOSITORY, provenance in metadata.
    const creates = routes('create')
    expect(creates).toHaveLength(1)
    expect(creates[0]!.authorization).toBe(`Bearer ${TOKEN}`)
    expect(creates[0]!.body).toMatchObject({
      prompt: 'Fix the failing test',
      repo_id: 101,
      metadata: { github_action: PROVENANCE }
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
    expect(result.stdout).toMatch(/Status (RUNNING|EVALUATION) → COMPLETE \(the run ended\)/)

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
    expect(paused.summary).toMatch(
      /^### The agent’s question\n\n> Waiting for an answer: remove <code>legacyMode<\/code>, or only document it\?\n\nAnswer by resuming the run in a step with `agent-run-id: \d+` and the answer as `prompt`\./m
    )
    // Green, but not silent: a warning annotation with the question and how to answer it. A run
    // from inputs has no thread: no /codegen.
    expect(paused.stdout).toMatch(
      /^::warning::The agent run paused\. The agent’s question: Waiting for an answer: remove `legacyMode`, or only document it\?%0AAnswer by resuming the run in a step with `agent-run-id: (\d+)` and the answer as `prompt`\.%0AAgent run \1, status PAUSED/m
    )
    expect(paused.stdout).not.toMatch(/`\/codegen /)
    // The status line agrees with the outcome.
    expect(consoleLines(paused)).toContainEqual(
      expect.stringMatching(/^Status \w+ → PAUSED \(the run paused\)$/)
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
    // Still working, whichever of its statuses the last read saw (a loaded machine reads later).
    expect(result.outputs).toMatchObject({
      outcome: 'timeout',
      status: expect.stringMatching(/^(ACTIVE|RUNNING)$/)
    })
    // It waited for its deadline, no longer than that plus GitHub's few seconds: on the virtual clock
    // in test/flows/deadlines/step-deadlines.ts (here a loaded machine's seconds would count).
    expect(result.durationMs).toBeGreaterThanOrEqual(3_000)
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
})
