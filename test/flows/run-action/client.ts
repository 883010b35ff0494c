import { DEFAULT_REQUEST_TIMEOUT_MS, HttpAgentRunApi } from '../../../src/api/client.js'
import { AmbiguousWriteError, CancelledError, DeadlineError, ServiceError } from '../../../src/api/errors.js'
import { AgentRunEmulator, scenario, type EmulatorOptions } from '../../../emulator/index.js'
import { VirtualClock } from '../../support/virtual-clock.js'

describe('client', () => {
  /**
   * The service's HTTP client in process, against the emulator over real HTTP on loopback. The clock
   * is virtual and shared with the emulator: backoffs, Retry-After waits and request time limits take
   * no real time, and the waits the client made are read from the clock's record of sleeps.
   */

  const TOKEN = 'emulator-token'
  /** Every request's time limit is a sleep too, of the default 30 s while no deadline is nearer. */
  const LIMIT = DEFAULT_REQUEST_TIMEOUT_MS
  let clock: VirtualClock
  let emulator: AgentRunEmulator
  let debug: string[]

  async function start(options: EmulatorOptions = {}): Promise<void> {
    emulator = new AgentRunEmulator({ clock, ...options })
    await emulator.start()
  }

  /** The waits the client announced before its retries ("retry N in X ms"), in order. */
  const retryWaits = (): number[] =>
    debug.flatMap(line => {
      const wait = /; retry \d+ in (\d+) ms$/.exec(line)
      return wait ? [Number(wait[1])] : []
    })

  function client(
    overrides: Partial<ConstructorParameters<typeof HttpAgentRunApi>[0]> = {}
  ): HttpAgentRunApi {
    return new HttpAgentRunApi({
      baseUrl: `${emulator.baseUrl}/`,
      token: TOKEN,
      orgId: 1,
      clock,
      fetch: clock.network.service,
      debug: message => debug.push(message),
      ...overrides
    })
  }

  beforeEach(async () => {
    clock = new VirtualClock()
    debug = []
    await start()
  })
  afterEach(async () => {
    await emulator.stop()
  })

  const routes = (route: string) => emulator.requests.filter(request => request.route === route)

  test('creates, reads, pages the log on both paths, resumes and lists', async () => {
    emulator.queueScript(scenario('success'))
    const api = client()
    await clock.run(async () => {
      const created = await api.createRun({ prompt: 'Fix it', repo_id: 101 })
      expect(created).toMatchObject({ id: 1000, organization_id: 1, status: 'ACTIVE' })
      expect(routes('create')[0]).toMatchObject({
        authorization: `Bearer ${TOKEN}`,
        body: { prompt: 'Fix it', repo_id: 101 }
      })
      await clock.advance(60_000)
      const run = await api.getRun(created.id)
      expect(run.status).toBe('COMPLETE')
      const page = await api.getLogs(created.id, 'interface', 2, 3)
      expect(page.logs).toHaveLength(3)
      expect(page.status).toBe('COMPLETE')
      expect(routes('logs')[0]!.query).toEqual({ skip: '2', limit: '3' })
      const alpha = await api.getLogs(created.id, 'alpha', 0, 100)
      expect(alpha.logs.length).toBe(page.totalLogs)
      expect(routes('logs-alpha')).toHaveLength(1)
      emulator.queueScript({ steps: [{ at: 0, status: 'ACTIVE' }] })
      await api.resumeRun({ agent_run_id: created.id, prompt: 'Again' })
      expect(routes('resume')[0]!.body).toMatchObject({ agent_run_id: created.id, prompt: 'Again' })
      const repos = await api.listRepos(0, 100)
      expect(repos.items.map(repo => repo.full_name)).toContain('octo-org/octo-repo')
      const runs = await api.listRuns(0, 10)
      expect(runs.items.map(item => item.id)).toEqual([created.id])
      expect(routes('list-runs')[0]!.query).toMatchObject({ source_type: 'API' })
    })
  })

  test('a read retries 5xx, resets and malformed answers with backoff, then succeeds', async () => {
    emulator.queueScript(scenario('success'))
    const api = client()
    const { id } = await clock.run(() => api.createRun({ prompt: 'x' }))
    emulator.injectFaults(
      { route: 'get', fault: { kind: 'status', status: 502 } },
      { route: 'get', fault: { kind: 'reset-before' } },
      { route: 'get', fault: { kind: 'malformed' } }
    )
    const sleepsBefore = clock.sleeps.length
    const startedAt = clock.now()
    const run = await clock.run(() => api.getRun(id))
    expect(run.id).toBe(id)
    expect(routes('get')).toHaveLength(4)
    // Three waits between four attempts, none of them zero, each attempt under its time limit; the
    // waits are all the time that passed.
    const waits = retryWaits()
    expect(waits).toHaveLength(3)
    expect(waits.every(ms => ms > 0)).toBe(true)
    expect(clock.sleeps.slice(sleepsBefore)).toEqual([
      LIMIT,
      waits[0],
      LIMIT,
      waits[1],
      LIMIT,
      waits[2],
      LIMIT
    ])
    expect(clock.now() - startedAt).toBe(waits[0]! + waits[1]! + waits[2]!)
    expect(debug.some(line => line.includes('service error 502'))).toBe(true)
  })

  test('a read that keeps failing gives up after six attempts with one readable error', async () => {
    emulator.queueScript(scenario('success'))
    const api = client()
    const { id } = await clock.run(() => api.createRun({ prompt: 'x' }))
    emulator.injectFaults({ route: 'get', times: 50, fault: { kind: 'status', status: 503 } })
    await expect(clock.run(() => api.getRun(id))).rejects.toThrow(
      `Could not read agent run ${id} after 6 attempts: service error 503: 503 Service Unavailable`
    )
    expect(routes('get')).toHaveLength(6)
  })

  test('a write whose fate is unknown is not sent again', async () => {
    const api = client()
    await clock.run(async () => {
      emulator.injectFaults({ route: 'create', fault: { kind: 'status', status: 500 } })
      await expect(api.createRun({ prompt: 'x' })).rejects.toBeInstanceOf(AmbiguousWriteError)
      emulator.injectFaults({ route: 'create', fault: { kind: 'reset-after' } })
      await expect(api.createRun({ prompt: 'x' })).rejects.toBeInstanceOf(AmbiguousWriteError)
      emulator.injectFaults({ route: 'create', fault: { kind: 'truncated' } })
      await expect(api.createRun({ prompt: 'x' })).rejects.toBeInstanceOf(AmbiguousWriteError)
    })
    expect(routes('create')).toHaveLength(3)
  })

  test('a 429 is waited out (Retry-After, spread by up to a second) and the write sent again', async () => {
    await emulator.stop()
    await start({ retryAfterHeader: true })
    const api = client()
    emulator.injectFaults({ route: 'create', fault: { kind: 'status', status: 429, retryAfter: 7 } })
    const run = await clock.run(() => api.createRun({ prompt: 'x' }))
    expect(run.id).toBeGreaterThan(0)
    const [refused, sent] = routes('create')
    expect(routes('create')).toHaveLength(2)
    // One wait between the two attempts, each under its time limit: 7 s and up to a second more.
    const [wait] = retryWaits()
    expect(clock.sleeps).toEqual([LIMIT, wait, LIMIT])
    expect(wait).toBeGreaterThanOrEqual(7_000)
    expect(wait).toBeLessThanOrEqual(8_000)
    expect(sent!.at - refused!.at).toBe(wait)
  })

  test('4xx answers are not retried and say what was refused', async () => {
    const api = client({ token: 'wrong-token' })
    const right = client()
    await clock.run(async () => {
      await expect(api.getRun(1)).rejects.toThrow(/Authentication failed \(401\)/)
      await expect(right.getRun(4040)).rejects.toMatchObject({ httpStatus: 404 })
    })
    expect(emulator.requests).toHaveLength(2)
  })

  test('an error body that echoes the token is reported and debugged without it', async () => {
    emulator.injectFaults({
      route: 'get',
      fault: { kind: 'status', status: 400, body: { message: `bad token ${TOKEN}`, status_code: 400 } }
    })
    const error = await clock.run(() =>
      client()
        .getRun(1)
        .catch((e: Error) => e)
    )
    expect(error).toBeInstanceOf(ServiceError)
    expect((error as Error).message).not.toContain(TOKEN)
    expect((error as Error).message).toContain('***')
    expect(debug.join('\n')).not.toContain(TOKEN)
  })

  test('the deadline ends a call: no request past it, and no wait that would cross it', async () => {
    const api = client()
    await clock.run(async () => {
      await expect(api.getRun(1, { deadline: clock.now() - 1 })).rejects.toBeInstanceOf(DeadlineError)
      expect(emulator.requests).toHaveLength(0)
      emulator.injectFaults({ route: 'get', times: 10, fault: { kind: 'status', status: 503 } })
      // The second backoff (1 to 2 s) would cross the deadline: the call waits until it, and ends.
      const deadline = clock.now() + 1_500
      await expect(api.getRun(1, { deadline })).rejects.toBeInstanceOf(DeadlineError)
      expect(clock.now()).toBe(deadline)
      expect(routes('get')).toHaveLength(2)
      // A last read gives up at once rather than wait past the deadline.
      const before = clock.now()
      await expect(api.getRun(1, { deadline: clock.now() + 100, lastRead: true })).rejects.toBeInstanceOf(
        DeadlineError
      )
      expect(clock.now()).toBe(before)
      expect(routes('get')).toHaveLength(3)
    })
  })

  test('an answer slower than the request time limit (30 s) is a retry for a read', async () => {
    emulator.queueScript(scenario('success'))
    const api = client()
    const { id } = await clock.run(() => api.createRun({ prompt: 'x' }))
    emulator.injectFaults({ route: 'get', fault: { kind: 'slow', delayMs: 2 * LIMIT } })
    expect((await clock.run(() => api.getRun(id))).id).toBe(id)
    expect(LIMIT).toBe(30_000)
    expect(debug.some(line => line.includes('no answer within 30000 ms'))).toBe(true)
    // Sent again once the time limit, then the backoff, had passed.
    const [slow, retry] = routes('get')
    expect(routes('get')).toHaveLength(2)
    expect(retry!.at - slow!.at).toBe(LIMIT + retryWaits()[0]!)
  })

  test('cancellation ends a call with CancelledError, except for a last read', async () => {
    emulator.queueScript(scenario('success'))
    const cancellation = new AbortController()
    const api = client({ signal: cancellation.signal })
    await clock.run(async () => {
      const { id } = await api.createRun({ prompt: 'x' })
      cancellation.abort()
      await expect(api.getRun(id)).rejects.toBeInstanceOf(CancelledError)
      expect((await api.getRun(id, { lastRead: true })).id).toBe(id)
    })
  })

  test('a job cancelled before a write is sent does not send it (nor crash on the aborted signal)', async () => {
    const cancellation = new AbortController()
    cancellation.abort()
    await expect(
      clock.run(() => client({ signal: cancellation.signal }).createRun({ prompt: 'x' }))
    ).rejects.toBeInstanceOf(CancelledError)
    expect(emulator.requests).toHaveLength(0)
  })

  test('a refused connection is retried for a read, and reported as not sent', async () => {
    const url = emulator.baseUrl
    await emulator.stop()
    const api = new HttpAgentRunApi({
      baseUrl: url,
      token: TOKEN,
      orgId: 1,
      clock,
      fetch: clock.network.service
    })
    await clock.run(async () => {
      await expect(api.getRun(1)).rejects.toThrow(/after 6 attempts: connection failed \(ECONNREFUSED\)/)
      await expect(api.createRun({ prompt: 'x' })).rejects.toThrow(/connection failed \(ECONNREFUSED\)/)
    })
    await emulator.start()
  })
})
