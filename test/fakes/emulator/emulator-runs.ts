import { parseModes, scenario, type RunScript } from '../../../emulator/index.js'
import { answerProblems } from '../../support/openapi.js'
import {
  clock,
  emulator,
  ORG,
  request,
  startEmulator,
  START,
  TOKEN,
  type Reply
} from '../../support/emulator-world.js'

/**
 * What stopping runs and daily limits need of the emulator: the beta stop path and its modes, the
 * list of the organization's runs (order, filters, pages), each run's metadata, and runs seeded
 * earlier on the emulator's clock. Over real HTTP on loopback with a hand-driven clock; every answer
 * is checked against the OpenAPI document.
 */

const STOP = '/v1/beta/organizations/1/agent/run/stop'
const HOUR = 3_600_000

const call = (method: 'GET' | 'POST', path: string, body?: unknown, token?: string) =>
  request(method, path, { body, token })

const get = (path: string, token?: string) => call('GET', path, undefined, token)
const stop = (id: unknown, token?: string) => call('POST', STOP, { agent_run_id: id }, token)
const ids = (reply: Reply): number[] => reply.body.items.map((run: { id: number }) => run.id)

/** ACTIVE, an entry every 100 ms for a second, then `ending`. */
const working = (ending = 'COMPLETE'): RunScript => ({
  steps: [
    { at: 0, status: 'ACTIVE' },
    ...Array.from({ length: 10 }, (_, n) => ({
      at: 100 * (n + 1),
      log: { message_type: 'ACTION', tool_name: 'run_command', tool_input: { step: n } }
    })),
    { at: 1_100, status: ending, result: `ended ${ending}` }
  ]
})

async function createdRun(script: RunScript = working(), body: object = {}): Promise<number> {
  emulator.queueScript(script)
  const created = await call('POST', `${ORG}/agent/run`, { prompt: 'Fix it', ...body })
  expect(created.status).toBe(200)
  return created.body.id as number
}

/** The service's `2025-06-21 11:20:04.338000` (UTC, no zone) as ms. */
const createdAtMs = (text: string): number => Date.parse(`${text.replace(' ', 'T').slice(0, 23)}Z`)

describe('the beta stop path', () => {
  test('a working run ends STOPPED at once, is answered as GET shows it, and writes no more log entries', async () => {
    await startEmulator()
    const id = await createdRun()
    clock.time += 250
    const stopped = await stop(id)
    expect(stopped.status).toBe(200)
    expect(stopped.body).toMatchObject({ id, organization_id: 1, status: 'STOPPED', result: null })
    expect(stopped.body).toEqual((await get(`${ORG}/agent/run/${id}`)).body)

    clock.time += 60_000
    expect((await get(`${ORG}/agent/run/${id}`)).body).toEqual(stopped.body)
    const logs = (await get(`/v1/alpha/organizations/1/agent/run/${id}/logs`)).body
    expect(logs).toMatchObject({ status: 'STOPPED', total_logs: 2 })
    expect(emulator.run(id)).toMatchObject({ status: 'STOPPED', result: null })
    expect(emulator.run(id)!.logs).toHaveLength(2)
    expect(emulator.requests.filter(request => request.route === 'stop')).toMatchObject([
      { method: 'POST', path: STOP, status: 200, body: { agent_run_id: id } }
    ])
  })

  test('a run that has ended is left as it is: 200 with the run, again and again', async () => {
    await startEmulator()
    const done = await createdRun()
    clock.time += 5_000
    const asItIs = (await get(`${ORG}/agent/run/${done}`)).body
    expect(asItIs).toMatchObject({ status: 'COMPLETE', result: 'ended COMPLETE' })
    expect(await stop(done)).toMatchObject({ status: 200, body: asItIs })

    const failed = await createdRun(working('ERROR'))
    clock.time += 5_000
    expect((await stop(failed)).body).toMatchObject({ status: 'ERROR', result: 'ended ERROR' })

    // A stop retried after a lost answer finds the run stopped, and says so the same way.
    const once = await createdRun()
    const first = await stop(once)
    clock.time += 5_000
    expect(await stop(once)).toMatchObject({ status: 200, body: first.body })
    expect(emulator.run(once)!.logs).toHaveLength(0)
  })

  test('a paused run, and one resumed a moment ago that still shows its old ending, are stopped', async () => {
    await startEmulator()
    const paused = await createdRun(working('PAUSED'))
    clock.time += 5_000
    expect((await stop(paused)).body.status).toBe('STOPPED')

    const resumed = await createdRun()
    clock.time += 5_000
    emulator.queueScript({ ...working(), staleAfterResumeMs: 2_000 })
    await call('POST', `${ORG}/agent/run/resume`, { agent_run_id: resumed, prompt: 'And the docs' })
    clock.time += 1_000
    expect((await get(`${ORG}/agent/run/${resumed}`)).body.status).toBe('COMPLETE')
    expect((await stop(resumed)).body.status).toBe('STOPPED')
    clock.time += 60_000
    expect(emulator.run(resumed)).toMatchObject({ status: 'STOPPED' })
    expect(emulator.run(resumed)!.logs).toHaveLength(10)

    // A stopped run that is resumed turns ACTIVE again, as a finished one does.
    emulator.queueScript(working())
    await call('POST', `${ORG}/agent/run/resume`, { agent_run_id: resumed, prompt: 'Go on' })
    clock.time += 50
    expect((await get(`${ORG}/agent/run/${resumed}`)).body.status).toBe('ACTIVE')
  })

  test('refusals: an unknown run or another organization’s is 404, an organization the token lacks 403, a bad body 422, no token 401', async () => {
    await startEmulator({ tokens: { [TOKEN]: [1, 2], other: [2] } })
    const id = await createdRun()
    const notFound = { status: 404, body: { message: 'Agent run not found.', status_code: 404 } }
    expect(await stop(999_999)).toMatchObject(notFound)
    expect(await call('POST', '/v1/beta/organizations/2/agent/run/stop', { agent_run_id: id })).toMatchObject(
      notFound
    )
    expect(await stop(id, 'other')).toMatchObject({ status: 403 })
    expect(await stop(id, 'nobody')).toMatchObject({ status: 401 })
    const bad = await call('POST', STOP, { agent_run_id: String(id), before_card_order_id: 3 })
    expect(bad.status).toBe(422)
    expect(bad.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'agent_run_id'],
      ['body', 'before_card_order_id']
    ])
    expect((await call('POST', STOP)).status).toBe(422)
    expect(
      (await call('POST', '/v1/beta/organizations/one/agent/run/stop', { agent_run_id: id })).status
    ).toBe(422)
    // GET on the path: the route is there for POST only.
    const wrongMethod = await get(STOP)
    expect(wrongMethod).toMatchObject({ status: 405, body: { detail: 'Method Not Allowed' } })
    expect(wrongMethod.headers.get('allow')).toBe('POST')
    // None of these stopped anything.
    expect(emulator.run(id)).toMatchObject({ status: 'ACTIVE' })
  })

  test('it counts in the general rate window', async () => {
    await startEmulator({ rateLimits: { general: { limit: 2, windowMs: 30_000 } } })
    const id = await createdRun()
    expect((await stop(id)).status).toBe(200)
    expect(await stop(id)).toMatchObject({ status: 429, body: { status_code: 429 } })
  })

  test('no-stop: 404 as a service without the path; nothing is stopped', async () => {
    await startEmulator({ modes: ['no-stop'] })
    const id = await createdRun()
    expect(await stop(id)).toMatchObject({ status: 404, body: { detail: 'Not Found' } })
    expect(await stop('not even valid')).toMatchObject({ status: 404, body: { detail: 'Not Found' } })
    clock.time += 60_000
    expect(emulator.run(id)).toMatchObject({ status: 'COMPLETE' })
    expect(
      emulator.requests.filter(request => request.route === 'stop').map(request => request.status)
    ).toEqual([404, 404])
  })

  test('stop-405: 405 Method Not Allowed, Allow: GET; stop-cancelled: the run shows CANCELLED', async () => {
    await startEmulator({ modes: ['stop-405'] })
    const id = await createdRun()
    const refused = await stop(id)
    expect(refused).toMatchObject({ status: 405, body: { detail: 'Method Not Allowed' } })
    expect(refused.headers.get('allow')).toBe('GET')
    clock.time += 60_000
    expect(emulator.run(id)).toMatchObject({ status: 'COMPLETE' })

    await startEmulator({ modes: ['stop-cancelled'] })
    const cancelled = await createdRun()
    clock.time += 250
    expect((await stop(cancelled)).body).toMatchObject({ status: 'CANCELLED' })
    clock.time += 60_000
    expect(emulator.run(cancelled)).toMatchObject({ status: 'CANCELLED' })
    expect(emulator.run(cancelled)!.logs).toHaveLength(2)
    expect(parseModes(['no-stop,stop-405', 'stop-cancelled'])).toEqual([
      'no-stop',
      'stop-405',
      'stop-cancelled'
    ])
  })

  test('the checker: a stop answers the run, or an error the ban path documents, or no route', () => {
    const request = (status: number) =>
      ({
        at: 0,
        method: 'POST',
        path: STOP,
        route: 'stop',
        query: {},
        body: undefined,
        authorization: undefined,
        status
      }) as const
    expect(answerProblems(request(200), { id: 1, organization_id: 1, status: 'STOPPED' })).toEqual([])
    expect(answerProblems(request(200), { ok: true })).toHaveLength(3)
    expect(answerProblems(request(404), { detail: 'Not Found' })).toEqual([])
    expect(answerProblems(request(405), { detail: 'Method Not Allowed' })).toEqual([])
    expect(answerProblems(request(404), { message: 'Agent run not found.', status_code: 404 })).toEqual([])
    expect(answerProblems(request(200), { detail: 'Not Found' })).not.toEqual([])
    expect(answerProblems(request(404), { message: 'Agent run not found.', status_code: 403 })).toHaveLength(
      1
    )
  })
})

describe('the list of the organization’s runs', () => {
  test('newest first by creation date, whatever the ids of runs seeded as older', async () => {
    await startEmulator()
    const now = await createdRun()
    const dayOld = emulator.seedRun({ ageMs: 23 * HOUR })
    const older = emulator.seedRun({ ageMs: 25 * HOUR })
    const sameMoment = emulator.seedRun()
    const listed = await get(`${ORG}/agent/runs?source_type=API`)
    expect(ids(listed)).toEqual([sameMoment, now, dayOld, older])
    expect(listed.body.items.map((run: { created_at: string }) => createdAtMs(run.created_at))).toEqual([
      START,
      START,
      START - 23 * HOUR,
      START - 25 * HOUR
    ])
  })

  test('source_type and user_id filter as documented; unknown values; pages', async () => {
    await startEmulator({ tokens: { [TOKEN]: [1], colleague: [1] } })
    const slack = emulator.seedRun({ ageMs: HOUR, sourceType: 'SLACK' })
    const web = emulator.seedRun({ ageMs: HOUR, userId: 7 })
    const mine = await createdRun()
    emulator.queueScript(working())
    const theirs = (await call('POST', `${ORG}/agent/run`, { prompt: 'By a colleague' }, 'colleague')).body.id

    expect(ids(await get(`${ORG}/agent/runs`))).toEqual([theirs, mine, web, slack])
    expect(ids(await get(`${ORG}/agent/runs?source_type=API`))).toEqual([theirs, mine, web])
    expect(ids(await get(`${ORG}/agent/runs?source_type=SLACK`))).toEqual([slack])
    expect(ids(await get(`${ORG}/agent/runs?user_id=1`))).toEqual([mine, slack])
    expect(ids(await get(`${ORG}/agent/runs?user_id=2&source_type=API`))).toEqual([theirs])
    expect(ids(await get(`${ORG}/agent/runs?user_id=7`))).toEqual([web])
    // A user with no runs: an empty page, not an error.
    expect((await get(`${ORG}/agent/runs?user_id=99`)).body).toEqual({
      items: [],
      total: 0,
      page: 1,
      size: 100,
      pages: 0
    })
    // Values the document's types refuse: 422, each named.
    const refused = await get(`${ORG}/agent/runs?user_id=octocat&source_type=github&skip=-1&limit=101`)
    expect(refused.status).toBe(422)
    expect(
      refused.body.detail.map((issue: { type: string; loc: unknown[] }) => [issue.type, issue.loc])
    ).toEqual([
      ['int_parsing', ['query', 'user_id']],
      ['enum', ['query', 'source_type']],
      ['greater_than_equal', ['query', 'skip']],
      ['less_than_equal', ['query', 'limit']]
    ])
  })

  test('pages of at most 100, newest first across them', async () => {
    await startEmulator()
    const seeded = Array.from({ length: 150 }, (_, n) => emulator.seedRun({ ageMs: (150 - n) * 60_000 }))
    const first = await get(`${ORG}/agent/runs?source_type=API&limit=100`)
    const second = await get(`${ORG}/agent/runs?source_type=API&skip=100&limit=100`)
    expect(first.body).toMatchObject({ total: 150, page: 1, size: 100, pages: 2 })
    expect(second.body).toMatchObject({ total: 150, page: 2, size: 100, pages: 2 })
    expect([...ids(first), ...ids(second)]).toEqual([...seeded].reverse())
  })

  test('each run’s metadata as the action wrote it, on the create’s answer, GET, the log and the list', async () => {
    await startEmulator()
    const metadata = {
      github_action: {
        repository: 'octo-org/octo-repo',
        workflow_run_url: 'https://github.com/octo-org/octo-repo/actions/runs/42/attempts/1',
        run_id: '42',
        run_attempt: '1',
        workflow: 'Codegen – nightly ✓',
        event: 'issue_comment',
        actor: 'octocat',
        sha: 'ffac537e6cbbf934b08745a378932722df287a53',
        idempotency_key: 'octo-org/octo-repo#42.1/codegen'
      },
      team: { tags: ['a', 'b'], nested: { n: 1, none: null } }
    }
    emulator.queueScript(working())
    const created = await call('POST', `${ORG}/agent/run`, { prompt: 'Fix it', metadata })
    const id = created.body.id as number
    expect(created.body.metadata).toEqual(metadata)
    expect((await get(`${ORG}/agent/run/${id}`)).body.metadata).toEqual(metadata)
    expect((await get(`/v1/alpha/organizations/1/agent/run/${id}/logs`)).body.metadata).toEqual(metadata)
    expect((await get(`${ORG}/agent/runs`)).body.items[0].metadata).toEqual(metadata)
    expect((await stop(id)).body.metadata).toEqual(metadata)
    // Without metadata: null.
    expect((await call('POST', `${ORG}/agent/run`, { prompt: 'Fix it' })).body.metadata).toBeNull()
  })
})

describe('runs seeded earlier', () => {
  /** The action's origin of a run, as src/settings/workflow-context.ts records it (the parts counted). */
  const origin = (repository: string, actor: string) => ({
    github_action: { repository, workflow: 'Codegen', actor, event: 'issue_comment' }
  })

  test('a day of runs on the emulator’s clock: this repository and another, two actors', async () => {
    await startEmulator()
    const seeded = [
      emulator.seedRun({ ageMs: 23 * HOUR, metadata: origin('octo-org/octo-repo', 'octocat') }),
      emulator.seedRun({ ageMs: 20 * HOUR, metadata: origin('octo-org/octo-repo', 'hubot') }),
      emulator.seedRun({ ageMs: 2 * HOUR, metadata: origin('octo-org/other-repo', 'octocat') }),
      emulator.seedRun({ ageMs: 30 * HOUR, metadata: origin('octo-org/octo-repo', 'octocat') })
    ]
    // The emulator's view and the list show them as created then, long ended.
    expect(emulator.run(seeded[0]!)).toMatchObject({
      status: 'COMPLETE',
      source_type: 'API',
      user_id: 1,
      prompt: 'Another job',
      metadata: origin('octo-org/octo-repo', 'octocat')
    })
    const inWindow = async () => {
      const runs = (await get(`${ORG}/agent/runs?source_type=API`)).body.items as Array<{
        created_at: string
        metadata: ReturnType<typeof origin>
      }>
      return runs
        .filter(run => createdAtMs(run.created_at) > clock.time - 24 * HOUR)
        .map(run => `${run.metadata.github_action.repository} ${run.metadata.github_action.actor}`)
    }
    expect(await inWindow()).toEqual([
      'octo-org/other-repo octocat',
      'octo-org/octo-repo hubot',
      'octo-org/octo-repo octocat'
    ])
    // Two hours on, the run of 23 hours ago is out of the day.
    clock.time += 2 * HOUR
    expect(await inWindow()).toEqual(['octo-org/other-repo octocat', 'octo-org/octo-repo hubot'])
  })

  test('a seeded run may still be working (and be stopped); its metadata is a copy', async () => {
    await startEmulator()
    const metadata = origin('octo-org/octo-repo', 'octocat')
    const id = emulator.seedRun({ ageMs: 60_000, metadata, script: scenario('endless'), userId: 2 })
    metadata.github_action.actor = 'changed afterwards'
    expect((await get(`${ORG}/agent/run/${id}`)).body).toMatchObject({
      status: 'ACTIVE',
      metadata: origin('octo-org/octo-repo', 'octocat')
    })
    expect((await stop(id)).body.status).toBe('STOPPED')
    expect(ids(await get(`${ORG}/agent/runs?user_id=2`))).toEqual([id])
    // No request was made for it: no create, nothing counted.
    expect(emulator.requests.map(request => request.route)).toEqual(['get', 'stop', 'list-runs'])
  })

  test('bad seeds are refused at once', async () => {
    await startEmulator()
    expect(() => emulator.seedRun({ ageMs: -1 })).toThrow('seedRun: ageMs must be >= 0, got -1')
    expect(() => emulator.seedRun({ ageMs: Number.NaN })).toThrow('ageMs must be >= 0')
    expect(() => emulator.seedRun({ sourceType: 'api' })).toThrow('unknown sourceType "api", one of LOCAL')
    expect(() => emulator.seedRun({ script: { steps: [{ at: -5 }] } })).toThrow('at >= 0')
    expect(emulator.runs()).toEqual([])
  })
})
