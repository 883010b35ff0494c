import { jest } from '@jest/globals'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../../src/main.js'
import { ActionsRunner } from '../../src/runner/runner.js'
import { AgentRunEmulator, scenario } from '../../emulator/index.js'
import { inputEnvironment, parseOutputFile } from '../../scripts/runner-process.js'

/**
 * The entry point in process, with the real runner (@actions/core on INPUT_*, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY), the system clock and the emulator on loopback: what main.ts wires together
 * and the one place that fails the step. The console is captured from process.stdout.
 */

let emulator: AgentRunEmulator
let temp: string
let stdout: string
const savedEnv = { ...process.env }
const signalListeners = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') }

// One folder for the file: @actions/core keeps the summary's path once it has written there.
beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), 'codegen-action-'))
})
afterAll(() => rmSync(temp, { recursive: true, force: true }))

beforeEach(async () => {
  emulator = new AgentRunEmulator()
  await emulator.start()
  writeFileSync(join(temp, 'output'), '')
  writeFileSync(join(temp, 'summary.md'), '')
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

function runnerEnvironment(inputs: Record<string, string>): void {
  process.env = {
    ...savedEnv,
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'octo-org/octo-repo',
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_EVENT_PATH: '',
    GITHUB_WORKSPACE: temp,
    RUNNER_TEMP: temp,
    GITHUB_OUTPUT: join(temp, 'output'),
    GITHUB_STEP_SUMMARY: join(temp, 'summary.md'),
    ...inputEnvironment({
      'api-token': 'emulator-token',
      'org-id': '1',
      'base-url': emulator.baseUrl,
      prompt: 'Fix the failing test',
      'poll-interval': '0.1',
      'timeout-minutes': '1',
      'fail-on': 'failure,timeout',
      'mirror-logs': 'console,summary',
      ...inputs
    })
  }
}

test('runs the action through @actions/core: outputs, summary, the live log, and a passing step', async () => {
  emulator.queueScript(scenario('success', 20))
  runnerEnvironment({})
  await run()
  const outputs = parseOutputFile(readFileSync(join(temp, 'output'), 'utf8'))
  expect(outputs).toMatchObject({ outcome: 'success', status: 'COMPLETE' })
  expect(readFileSync(join(temp, 'summary.md'), 'utf8')).toContain('## ✅ Agent run succeeded')
  expect(stdout).toContain('::add-mask::emulator-token')
  expect(stdout).toMatch(/^::group::\d\d:\d\d:\d\d {2}PLAN_EVALUATION/m)
  expect(stdout).toContain('::endgroup::')
  expect(process.exitCode).toBeUndefined()
})

test('a failed run fails the step, once, through setFailed', async () => {
  emulator.queueScript(scenario('failure', 20))
  runnerEnvironment({})
  await run()
  expect(stdout.match(/^::error::/gm)).toHaveLength(1)
  expect(stdout).toMatch(/^::error::The agent run failed\. Result: .+%0AAgent run \d+, status ERROR/m)
  expect(process.exitCode).toBe(1)
})

test('SIGTERM cancels the job: outputs and summary are written, and the process exits at once', async () => {
  emulator.queueScript(scenario('endless'))
  runnerEnvironment({})
  const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as () => never)
  const running = run()
  const runs = (): number => emulator.runs().length
  while (runs() === 0) await new Promise(resolve => setTimeout(resolve, 20))
  process.emit('SIGTERM', 'SIGTERM')
  await running
  const outputs = parseOutputFile(readFileSync(join(temp, 'output'), 'utf8'))
  expect(outputs['outcome']).toBe('cancelled')
  expect(stdout).toContain('::warning::SIGTERM received: the job is being cancelled')
  expect(exit).toHaveBeenCalledWith(1)
})

test('an unexpected error fails the step with its message, not a crash', async () => {
  runnerEnvironment({ 'github-token': 'github-token' })
  process.env.GITHUB_EVENT_NAME = 'issue_comment'
  process.env.GITHUB_EVENT_PATH = join(temp, 'missing-event.json')
  await run()
  expect(stdout).toMatch(/^::error::Unexpected error: Error: ENOENT/m)
  expect(process.exitCode).toBe(1)
})

test('the entry module runs the action when loaded, then ends the process a second later', async () => {
  runnerEnvironment({ 'org-id': 'acme' })
  const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as () => never)
  await import('../../src/index.js')
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
