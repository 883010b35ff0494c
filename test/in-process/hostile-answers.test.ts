import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction, type ActionEnvironment } from '../../src/action.js'
import { openLogFile } from '../../src/runner/log-file.js'
import type { InputName } from '../../src/settings/settings.js'
import { AgentRunEmulator, type EmulatorOptions } from '../emulator/index.js'
import { FakeClock } from '../support/fake-clock.js'
import { FakeRunner } from '../support/fake-runner.js'

/**
 * Hostile answers of the service (redirects, answers past the size cap), in process: runAction with a fake runner and a fake clock shared with the emulator, over real HTTP
 * on loopback. What the runner would show: outputs, summary, console lines, the step's failure.
 */

const TOKEN = 'emulator-token'
let clock: FakeClock
let emulator: AgentRunEmulator | undefined
let temp: string

async function startEmulator(options: EmulatorOptions = {}): Promise<AgentRunEmulator> {
  emulator = new AgentRunEmulator({ now: () => clock.now(), ...options })
  await emulator.start()
  return emulator
}

beforeEach(() => {
  clock = new FakeClock()
  temp = mkdtempSync(join(tmpdir(), 'codegen-action-'))
})

afterEach(async () => {
  await emulator?.stop()
  emulator = undefined
  rmSync(temp, { recursive: true, force: true })
})

interface Step {
  runner: FakeRunner
  failure: string | undefined
}

async function step(
  inputs: Partial<Record<InputName, string>>,
  options: { env?: Record<string, string>; event?: { name: string; payload: unknown } } = {}
): Promise<Step> {
  const runner = new FakeRunner({
    'api-token': TOKEN,
    'base-url': emulator!.baseUrl,
    prompt: 'Fix the failing test',
    'timeout-minutes': '5',
    'poll-interval': '5',
    ...inputs
  })
  const environment: ActionEnvironment = {
    runner,
    env: {
      GITHUB_REPOSITORY: 'octo-org/octo-repo',
      GITHUB_RUN_ID: '4242',
      GITHUB_EVENT_NAME: options.event?.name ?? 'workflow_dispatch',
      GITHUB_EVENT_PATH: join(temp, 'event.json'),
      GITHUB_WORKSPACE: temp,
      RUNNER_TEMP: temp,
      ...options.env
    },
    clock,
    signal: new AbortController().signal,
    openLogFile,
    readEventPayload: () => options.event?.payload ?? {}
  }
  const failure = await runAction(environment)
  return { runner, failure }
}

const routes = (...names: string[]) => emulator!.requests.filter(request => names.includes(request.route))

test('a redirect to another host fails the step naming that host; it is not followed', async () => {
  await startEmulator()
  emulator!.injectFaults({
    route: 'create',
    fault: { kind: 'redirect', status: 307, location: 'http://localhost:9/steal' }
  })
  const { runner, failure } = await step({ 'org-id': '1', 'repo-id': '101' })
  expect(failure).toBe(
    'Could not create the agent run: the service answered 307 redirecting to localhost:9; redirects are not followed (check base-url).'
  )
  expect(emulator!.runs()).toHaveLength(0)
  expect(runner.outputs['outcome']).toBe('error')
})

test('a redirect on the same host, and one to a Location that is no URL, are named as such', async () => {
  await startEmulator()
  emulator!.injectFaults({
    route: 'create',
    fault: { kind: 'redirect', status: 302, location: '/v1/elsewhere' }
  })
  const same = await step({ 'org-id': '1', 'repo-id': '101' })
  expect(same.failure).toMatch(
    /^Could not create the agent run: the service answered 302 redirecting to http:\/\/127\.0\.0\.1:\d+ \(the same host\); redirects are not followed/
  )
  emulator!.injectFaults({
    route: 'create',
    fault: { kind: 'redirect', status: 301, location: 'http://[::1' }
  })
  const invalid = await step({ 'org-id': '1', 'repo-id': '101' })
  expect(invalid.failure).toMatch(
    /^Could not create the agent run: the service answered 301 redirecting to an invalid Location;/
  )
  expect(emulator!.runs()).toHaveLength(0)
})

test('a create answered past the size cap is not read on; the run is looked up, not sent again', async () => {
  await startEmulator()
  emulator!.queueScript({
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 500, status: 'COMPLETE', result: 'done' }
    ]
  })
  emulator!.injectFaults({ route: 'create', fault: { kind: 'huge', bytes: 20 * 1024 * 1024 } })
  const { runner, failure } = await step({ 'org-id': '1', 'repo-id': '101' })
  expect(failure).toBeUndefined()
  expect(
    runner.lines.some(line =>
      line.startsWith(
        'warning: Could not create the agent run: the answer was larger than 16 MiB. Checking whether the run was created'
      )
    )
  ).toBe(true)
  expect(emulator!.runs()).toHaveLength(1)
  expect(routes('create')).toHaveLength(1)
  expect(runner.outputs).toMatchObject({ outcome: 'success', result: 'done' })
})
