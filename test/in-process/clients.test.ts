import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction, type ActionEnvironment } from '../../src/action.js'
import { checkInThread } from '../../src/answer/check.js'
import { serviceClients, type ServiceLimits } from '../../src/org/clients.js'
import { openLogFile } from '../../src/runner/log-file.js'
import { AgentRunEmulator, scenario } from '../../emulator/index.js'
import { FakeClock } from '../support/fake-clock.js'
import { FakeRunner } from '../support/fake-runner.js'

/**
 * The service's clients by organization (src/org/clients.ts), in process against the emulator: one
 * client an organization on one budget, and the limits a test hands in through ActionEnvironment,
 * the only way in; the environment holds no knob of the product's behaviour.
 */

const TOKEN = 'emulator-token'
let clock: FakeClock
let emulator: AgentRunEmulator
let temp: string

beforeEach(async () => {
  clock = new FakeClock()
  temp = mkdtempSync(join(tmpdir(), 'codegen-clients-'))
  emulator = new AgentRunEmulator({ now: () => clock.now() })
  await emulator.start()
})
afterEach(async () => {
  await emulator.stop()
  rmSync(temp, { recursive: true, force: true })
})

const routes = (route: string) => emulator.requests.filter(request => request.route === route)
/** An answer held back 600 ms: past a 300 ms limit, well within the client's own 30 s. */
const slowCreate = { route: 'create' as const, fault: { kind: 'slow' as const, delayMs: 600 } }

test('one client an organization, each within the limits handed in', async () => {
  const debug: string[] = []
  const apis = serviceClients(
    { baseUrl: emulator.baseUrl, apiToken: TOKEN },
    clock,
    new AbortController().signal,
    message => debug.push(message),
    { requestTimeoutMs: 300 }
  )
  expect(apis(1)).toBe(apis(1))
  expect(apis(1)).not.toBe(apis(undefined))
  emulator.queueScript(scenario('success'))
  const { id } = await apis(1).createRun({ prompt: 'x' })
  emulator.injectFaults({ route: 'get', fault: { kind: 'slow', delayMs: 600 } })
  expect((await apis(1).getRun(id)).id).toBe(id)
  // The read outlived its 300 ms and was sent again.
  expect(routes('get')).toHaveLength(2)
  expect(debug.some(line => line.includes('no answer within 300 ms'))).toBe(true)
})

async function step(env: Record<string, string>, serviceLimits?: ServiceLimits): Promise<FakeRunner> {
  const runner = new FakeRunner({
    'api-token': TOKEN,
    'base-url': emulator.baseUrl,
    'org-id': '1',
    'repo-id': '101',
    prompt: 'Fix the failing test',
    'timeout-minutes': '5'
  })
  const environment: ActionEnvironment = {
    runner,
    env: { GITHUB_REPOSITORY: 'octo-org/octo-repo', GITHUB_WORKSPACE: temp, RUNNER_TEMP: temp, ...env },
    clock,
    signal: new AbortController().signal,
    openLogFile,
    readEventPayload: () => ({}),
    checkAnswer: checkInThread,
    ...(serviceLimits ? { serviceLimits } : {})
  }
  const failure = await runAction(environment)
  expect(failure).toBeUndefined()
  return runner
}

test('CODEGEN_REQUEST_TIMEOUT_MS in the environment changes nothing: the create is waited for', async () => {
  emulator.queueScript(scenario('success'))
  emulator.injectFaults(slowCreate)
  const runner = await step({ CODEGEN_REQUEST_TIMEOUT_MS: '300' })
  expect(routes('create')).toHaveLength(1)
  expect(routes('list-runs')).toHaveLength(0)
  expect(runner.outputs.outcome).toBe('success')
})

test('a request time limit handed in through ActionEnvironment: the lost create is looked for, not sent again', async () => {
  emulator.queueScript(scenario('success'))
  emulator.injectFaults(slowCreate)
  const runner = await step({}, { requestTimeoutMs: 300 })
  expect(routes('create')).toHaveLength(1)
  expect(routes('list-runs').length).toBeGreaterThan(0)
  expect(emulator.runs()).toHaveLength(1)
  expect(runner.outputs.outcome).toBe('success')
  expect(runner.outputs['agent-run-id']).toBe(String(emulator.runs()[0]?.id))
})
