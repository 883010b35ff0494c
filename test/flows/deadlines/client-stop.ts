import { HttpAgentRunApi } from '../../../src/api/client.js'
import { AmbiguousWriteError, ServiceError, UnsupportedEndpointError } from '../../../src/api/errors.js'
import { AgentRunEmulator, scenario, type EmulatorOptions } from '../../../emulator/index.js'
import { conformanceCheck } from '../../support/openapi.js'
import { VirtualClock } from '../../support/virtual-clock.js'

describe('client-stop', () => {
  /**
   * The client's stop (the beta path Codegen's own client uses) and the filters of the list of runs,
   * in process against the emulator over loopback, its clock shared and virtual: each test's calls
   * run inside `clock.run`.
   */

  const TOKEN = 'emulator-token'
  let clock: VirtualClock
  let emulator: AgentRunEmulator
  let conformance: ReturnType<typeof conformanceCheck>

  async function start(options: EmulatorOptions = {}): Promise<HttpAgentRunApi> {
    emulator = new AgentRunEmulator({ clock, onAnswer: conformance.onAnswer, ...options })
    await emulator.start()
    return new HttpAgentRunApi({
      baseUrl: emulator.baseUrl,
      token: TOKEN,
      orgId: 1,
      clock,
      fetch: clock.network.service
    })
  }

  beforeEach(() => {
    clock = new VirtualClock()
    conformance = conformanceCheck()
  })
  afterEach(async () => {
    await emulator.stop()
    // Every answer drawn, the stop path's 404 and 405 included, as the service's documents allow.
    expect(conformance.problems).toEqual([])
  })

  const routes = (route: string) => emulator.requests.filter(request => request.route === route)

  /** A run still working a second on. */
  async function workingRun(api: HttpAgentRunApi): Promise<number> {
    emulator.queueScript(scenario('endless'))
    const { id } = await api.createRun({ prompt: 'Fix it' })
    await clock.advance(1_000)
    expect((await api.getRun(id)).status).toBe('ACTIVE')
    return id
  }

  describe('stopRun', () => {
    test('posts the beta path with the run id; answers the run, stopped; a second stop is harmless', async () => {
      const api = await start()
      await clock.run(async () => {
        const id = await workingRun(api)
        const stopped = await api.stopRun(id)
        expect(stopped).toMatchObject({ id, status: 'STOPPED' })
        expect(routes('stop')).toHaveLength(1)
        expect(routes('stop')[0]).toMatchObject({
          method: 'POST',
          path: '/v1/beta/organizations/1/agent/run/stop',
          body: { agent_run_id: id },
          authorization: `Bearer ${TOKEN}`
        })
        expect(await api.stopRun(id)).toMatchObject({ id, status: 'STOPPED' })
        expect((await api.getRun(id)).status).toBe('STOPPED')
      })
    })

    test('a lost answer is sent again (stopping twice is stopping once), unlike a create', async () => {
      const api = await start()
      await clock.run(async () => {
        const id = await workingRun(api)
        emulator.injectFaults(
          { route: 'stop', fault: { kind: 'status', status: 502 } },
          { route: 'stop', fault: { kind: 'reset-after' } }
        )
        expect(await api.stopRun(id)).toMatchObject({ id, status: 'STOPPED' })
        expect(routes('stop')).toHaveLength(3)
        // The same faults on a create leave its fate unknown: not sent again.
        emulator.injectFaults({ route: 'create', fault: { kind: 'reset-after' } })
        await expect(api.createRun({ prompt: 'x' })).rejects.toBeInstanceOf(AmbiguousWriteError)
        expect(routes('create')).toHaveLength(2)
      })
    })

    test('its undocumented answer is read leniently: not a run, or not JSON, is nothing, not a failure', async () => {
      const api = await start()
      await clock.run(async () => {
        const first = await workingRun(api)
        emulator.injectFaults({ route: 'stop', fault: { kind: 'drift', mutate: () => ({ ok: true }) } })
        expect(await api.stopRun(first)).toBeUndefined()
        const second = await workingRun(api)
        emulator.injectFaults({ route: 'stop', fault: { kind: 'malformed' } })
        expect(await api.stopRun(second)).toBeUndefined()
        // Each sent once: the service did stop them, as the runs read afterwards show.
        expect(routes('stop')).toHaveLength(2)
        expect((await api.getRun(first)).status).toBe('STOPPED')
        expect((await api.getRun(second)).status).toBe('STOPPED')
      })
    })

    test.each([
      ['no-stop', 404],
      ['stop-405', 405]
    ] as const)(
      'a service without the path (%s) is told apart: UnsupportedEndpointError %i, sent once',
      async (mode, status) => {
        const api = await start({ modes: [mode] })
        await clock.run(async () => {
          const id = await workingRun(api)
          const error = await api.stopRun(id).catch((caught: unknown) => caught)
          expect(error).toBeInstanceOf(UnsupportedEndpointError)
          expect(error).toMatchObject({
            httpStatus: status,
            message: `The service has no endpoint to stop agent run ${id} (${status}).`
          })
          expect(routes('stop')).toHaveLength(1)
          expect((await api.getRun(id)).status).toBe('ACTIVE')
        })
      }
    )

    test('another refusal stays a ServiceError of its own status, not "no endpoint"', async () => {
      const api = await start()
      await clock.run(async () => {
        const id = await workingRun(api)
        emulator.injectFaults({
          route: 'stop',
          fault: { kind: 'status', status: 403, body: { message: 'Forbidden.', status_code: 403 } }
        })
        const error = await api.stopRun(id).catch((caught: unknown) => caught)
        expect(error).toBeInstanceOf(ServiceError)
        expect(error).not.toBeInstanceOf(UnsupportedEndpointError)
        expect(error).toMatchObject({ httpStatus: 403 })
        expect((error as Error).message).toContain('Permission denied (403) while trying to stop agent run')
      })
    })

    test('a 404 on a documented path is still "not found", not a missing endpoint', async () => {
      const api = await start()
      await clock.run(async () => {
        const error = await api.getRun(999_999).catch((caught: unknown) => caught)
        expect(error).toBeInstanceOf(ServiceError)
        expect(error).not.toBeInstanceOf(UnsupportedEndpointError)
        expect(error).toMatchObject({ httpStatus: 404 })
      })
    })
  })

  describe('listRuns filters', () => {
    test('the action’s API runs by default; source_type and user_id as given; none with {}', async () => {
      const api = await start()
      await clock.run(async () => {
        const mine = emulator.seedRun({ ageMs: 3_000, userId: 1 })
        const colleague = emulator.seedRun({ ageMs: 2_000, userId: 2 })
        const slack = emulator.seedRun({ ageMs: 1_000, userId: 2, sourceType: 'SLACK' })
        const ids = async (...args: Parameters<HttpAgentRunApi['listRuns']>): Promise<number[]> =>
          (await api.listRuns(...args)).items.map(run => run.id)

        expect(await ids(0, 100)).toEqual([colleague, mine])
        expect(await ids(0, 100, { source_type: 'API', user_id: 2 })).toEqual([colleague])
        expect(await ids(0, 100, { user_id: 2 })).toEqual([slack, colleague])
        expect(await ids(0, 100, {})).toEqual([slack, colleague, mine])
        expect(routes('list-runs').map(request => request.query)).toEqual([
          { skip: '0', limit: '100', source_type: 'API' },
          { skip: '0', limit: '100', source_type: 'API', user_id: '2' },
          { skip: '0', limit: '100', user_id: '2' },
          { skip: '0', limit: '100' }
        ])
      })
    })
  })
})
