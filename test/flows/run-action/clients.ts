import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction } from '../../../src/action.js'
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../../src/api/client.js'
import { RETRY_BASE_MS } from '../../../src/api/retry.js'
import { serviceClients } from '../../../src/org/clients.js'
import { AgentRunEmulator, scenario } from '../../../emulator/index.js'
import { FakeRunner } from '../../support/fake-runner.js'
import { stepEnvironment } from '../../support/step-environment.js'
import { VirtualClock } from '../../support/virtual-clock.js'

describe('clients', () => {
  /**
   * The service's clients by organization (src/org/clients.ts), in process against the emulator on
   * the virtual clock: one client an organization on one budget, each request within the client's
   * 30 s time limit, which nothing in the environment changes (the environment holds no knob of the
   * product's behaviour).
   */

  const TOKEN = 'emulator-token'
  const LIMIT = DEFAULT_REQUEST_TIMEOUT_MS
  let clock: VirtualClock
  let emulator: AgentRunEmulator
  let temp: string

  beforeEach(async () => {
    clock = new VirtualClock()
    temp = mkdtempSync(join(tmpdir(), 'codegen-clients-'))
    emulator = new AgentRunEmulator({ clock })
    await emulator.start()
  })
  afterEach(async () => {
    await emulator.stop()
    rmSync(temp, { recursive: true, force: true })
  })

  const routes = (route: string) => emulator.requests.filter(request => request.route === route)

  test('one client an organization, each within the 30 s request time limit', async () => {
    const debug: string[] = []
    const apis = serviceClients(
      { baseUrl: emulator.baseUrl, apiToken: TOKEN },
      clock,
      new AbortController().signal,
      message => debug.push(message),
      clock.network.service
    )
    expect(apis(1)).toBe(apis(1))
    expect(apis(1)).not.toBe(apis(undefined))
    emulator.queueScript(scenario('success'))
    const { id } = await clock.run(() => apis(1).createRun({ prompt: 'x' }))
    emulator.injectFaults({ route: 'get', fault: { kind: 'slow', delayMs: 2 * LIMIT } })
    expect((await clock.run(() => apis(1).getRun(id))).id).toBe(id)
    // The read outlived its 30 s and was sent again, after the backoff.
    expect(LIMIT).toBe(30_000)
    expect(debug.some(line => line.includes('no answer within 30000 ms'))).toBe(true)
    const [slow, retry] = routes('get')
    expect(routes('get')).toHaveLength(2)
    const backoff = debug.map(line => /; retry 1 in (\d+) ms$/.exec(line)?.[1]).find(Boolean)
    expect(retry!.at - slow!.at).toBe(LIMIT + Number(backoff))
  })

  async function step(env: Record<string, string> = {}): Promise<FakeRunner> {
    const runner = new FakeRunner({
      'api-token': TOKEN,
      'base-url': emulator.baseUrl,
      'org-id': '1',
      'repo-id': '101',
      prompt: 'Fix the failing test',
      'timeout-minutes': '5'
    })
    const failure = await clock.run(() => runAction(stepEnvironment(runner, { clock, temp, env })))
    expect(failure).toBeUndefined()
    return runner
  }

  test('CODEGEN_REQUEST_TIMEOUT_MS in the environment changes nothing: the create is waited for', async () => {
    emulator.queueScript(scenario('success'))
    // Answered 20 s late: past the 300 ms the environment names, within the client's own 30 s.
    emulator.injectFaults({ route: 'create', fault: { kind: 'slow', delayMs: 20_000 } })
    const runner = await step({ CODEGEN_REQUEST_TIMEOUT_MS: '300' })
    expect(routes('create')).toHaveLength(1)
    expect(routes('list-runs')).toHaveLength(0)
    expect(runner.outputs.outcome).toBe('success')
  })

  test('a create with no answer within the 30 s time limit: the lost create is looked for, not sent again', async () => {
    emulator.queueScript(scenario('success'))
    emulator.injectFaults({ route: 'create', fault: { kind: 'slow', delayMs: 2 * LIMIT } })
    const runner = await step()
    expect(routes('create')).toHaveLength(1)
    expect(emulator.runs()).toHaveLength(1)
    expect(runner.outputs.outcome).toBe('success')
    expect(runner.outputs['agent-run-id']).toBe(String(emulator.runs()[0]?.id))
    expect(runner.lines).toContain(
      'warning: Could not create the agent run: no answer within 30000 ms. Checking whether the run was created before sending again.'
    )
    // Looked for once the time limit, then the first backoff, had passed.
    const [create] = routes('create')
    const [lookup] = routes('list-runs')
    expect(lookup!.at - create!.at).toBeGreaterThanOrEqual(LIMIT + RETRY_BASE_MS / 2)
    expect(lookup!.at - create!.at).toBeLessThanOrEqual(LIMIT + RETRY_BASE_MS)
  })
})
