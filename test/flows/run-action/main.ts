import { jest } from '@jest/globals'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../../../src/main.js'
import { ActionsRunner } from '../../../src/runner/runner.js'
import { AgentRunEmulator, scenario } from '../../../emulator/index.js'
import { inputEnvironment, parseOutputFile } from '../../../scripts/runner-process.js'
import { FlowWorld } from '../../support/flow-world.js'

/**
 * main.ts: the step (runStep, the one place that fails it) as run() runs it, through the real runner
 * (@actions/core on INPUT_*, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY) on the virtual clock
 * (flow-step.ts); and what only run() and the entry module do, on the system clock: the job's
 * cancellation heard on SIGINT and SIGTERM and the process ended at once, and the process ended
 * soon after the step. The console is captured from process.stdout.
 */

const inputs = (emulator: AgentRunEmulator, more: Record<string, string> = {}): Record<string, string> => ({
  'api-token': 'emulator-token',
  'org-id': '1',
  'base-url': emulator.baseUrl,
  prompt: 'Fix the failing test',
  'poll-interval': '0.1',
  'timeout-minutes': '1',
  'fail-on': 'failure,timeout',
  'mirror-logs': 'console,summary',
  ...more
})

describe('the step (runStep), as run() runs it, on the virtual clock', () => {
  const world = new FlowWorld()

  test('runs the action through @actions/core: outputs, summary, the live log, and a passing step', async () => {
    world.emulator.queueScript(scenario('success', 20))
    const result = await world.step({ inputs: inputs(world.emulator) })
    expect(result.outputs).toMatchObject({ outcome: 'success', status: 'COMPLETE' })
    expect(result.summary).toContain('## ✅ Agent run succeeded')
    expect(result.stdout).toContain('::add-mask::emulator-token')
    expect(result.stdout).toMatch(/^::group::\d\d:\d\d:\d\d {2}PLAN_EVALUATION/m)
    expect(result.stdout).toContain('::endgroup::')
    expect(result.exitCode).toBe(0)
  })

  test('a failed run fails the step, once, through setFailed', async () => {
    world.emulator.queueScript(scenario('failure', 20))
    const result = await world.step({ inputs: inputs(world.emulator) })
    expect(result.stdout.match(/^::error::/gm)).toHaveLength(1)
    expect(result.stdout).toMatch(
      /^::error::The agent run failed\. Result: .+%0AAgent run \d+, status ERROR/m
    )
    expect(result.exitCode).toBe(1)
  })

  test('a cancelled job writes its outputs and summary, says so once, and fails the step', async () => {
    world.emulator.queueScript(scenario('endless'))
    const result = await world.step({
      inputs: inputs(world.emulator),
      // Once the run exists, at the step's first wait on time alone after that.
      terminateAfterMs: 0,
      terminateWhen: () => world.emulator.runs().length > 0
    })
    expect(result.outputs['outcome']).toBe('cancelled')
    expect(result.outputs['agent-run-id']).toBe(String(world.emulator.runs()[0]!.id))
    expect(result.summary).toContain('## 🛑 Job cancelled while following the agent run')
    expect(result.stdout.match(/^::warning::SIGTERM received: the job is being cancelled/gm)).toHaveLength(1)
    expect(result.exitCode).toBe(1)
  })

  test('an unexpected error fails the step with its message, not a crash', async () => {
    const result = await world.step({
      inputs: inputs(world.emulator, { 'github-token': 'github-token' }),
      env: {
        GITHUB_EVENT_NAME: 'issue_comment',
        GITHUB_EVENT_PATH: join(tmpdir(), 'codegen-no-such-folder', 'event.json')
      }
    })
    expect(result.stdout).toMatch(/^::error::Unexpected error: Error: ENOENT/m)
    expect(result.stdout.match(/^::error::/gm)).toHaveLength(1)
    expect(result.exitCode).toBe(1)
    expect(world.emulator.requests).toEqual([])
  })
})

describe('run() and the entry module, on the system clock', () => {
  let emulator: AgentRunEmulator
  let temp: string
  let stdout: string
  const savedEnv = { ...process.env }
  const signalListeners = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') }

  // @actions/core keeps the summary's path once it has written there: the flow steps' file (so the
  // summary is asserted above, through the same @actions/core). One folder for the outputs.
  beforeAll(() => {
    temp = mkdtempSync(join(tmpdir(), 'codegen-action-'))
  })
  afterAll(() => rmSync(temp, { recursive: true, force: true }))

  beforeEach(async () => {
    emulator = new AgentRunEmulator()
    await emulator.start()
    writeFileSync(join(temp, 'output'), '')
    stdout = ''
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout += String(chunk)
      return true
    })
  })

  afterEach(async () => {
    jest.restoreAllMocks()
    process.env = { ...savedEnv }
    process.exitCode = undefined
    // run() listens for the job's cancellation; the test's process keeps only its own listeners.
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(name))
        if (!signalListeners[name].includes(listener)) process.off(name, listener)
    }
    await emulator.stop()
  })

  function runnerEnvironment(more: Record<string, string>): void {
    process.env = {
      ...savedEnv,
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: 'octo-org/octo-repo',
      GITHUB_EVENT_NAME: 'workflow_dispatch',
      GITHUB_EVENT_PATH: '',
      GITHUB_WORKSPACE: temp,
      RUNNER_TEMP: temp,
      GITHUB_OUTPUT: join(temp, 'output'),
      ...inputEnvironment(inputs(emulator, more))
    }
  }

  test('wires the real runner, clock and network: a run followed to its end, its outputs written', async () => {
    emulator.queueScript(scenario('success', 20))
    runnerEnvironment({})
    await run()
    const outputs = parseOutputFile(readFileSync(join(temp, 'output'), 'utf8'))
    expect(outputs).toMatchObject({ outcome: 'success', status: 'COMPLETE' })
    expect(stdout).toContain('::add-mask::emulator-token')
    expect(stdout).toContain('Status ACTIVE → COMPLETE (the run ended)')
    expect(process.exitCode).toBeUndefined()
  })

  test.each(['SIGTERM', 'SIGINT'] as const)(
    '%s cancels the job: the outputs are written, and the process exits at once',
    async signal => {
      emulator.queueScript(scenario('endless'))
      runnerEnvironment({})
      const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as () => never)
      const running = run()
      // Sent once the run exists, however long that takes.
      while (emulator.runs().length === 0) await new Promise(resolve => setTimeout(resolve, 20))
      process.emit(signal, signal)
      await running
      const outputs = parseOutputFile(readFileSync(join(temp, 'output'), 'utf8'))
      expect(outputs['outcome']).toBe('cancelled')
      expect(stdout).toContain(`::warning::${signal} received: the job is being cancelled`)
      expect(exit).toHaveBeenCalledWith(1)
    }
  )

  test('the entry module runs the action when loaded, then ends the process a second later', async () => {
    runnerEnvironment({ 'org-id': 'acme' })
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as () => never)
    await import('../../../src/index.js')
    for (let waited = 0; !stdout.includes('::error::') && waited < 5_000; waited += 20)
      await new Promise(resolve => setTimeout(resolve, 20))
    expect(stdout).toContain('::error::Invalid input: org-id: expected a positive integer, got "acme"')
    // A socket or timer left behind does not hold the step: the entry exits once the work is written.
    expect(exit).not.toHaveBeenCalled()
    for (let waited = 0; exit.mock.calls.length === 0 && waited < 3_000; waited += 50)
      await new Promise(resolve => setTimeout(resolve, 50))
    expect(exit).toHaveBeenCalled()
  })

  test('the runner writes notices as annotations, and no summary where the runner gives no file', async () => {
    runnerEnvironment({})
    delete process.env.GITHUB_STEP_SUMMARY
    const runner = new ActionsRunner()
    runner.notice('No agent run: not a trigger')
    await runner.appendSummary('## not written')
    expect(stdout).toContain('::notice::No agent run: not a trigger')
    expect(stdout).toContain('::debug::GITHUB_STEP_SUMMARY is not set: no job summary written')
  })
})
