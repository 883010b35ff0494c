import {
  account,
  MODE_NAMES,
  parseModes,
  parseRateLimits,
  scenario,
  type RouteName,
  type RunScript
} from '../../../emulator/index.js'
import { withExtraStatuses } from '../../../emulator/modes.js'
import { answerProblems } from '../../support/openapi.js'
import {
  clock,
  conformance,
  emulator,
  ORG,
  request,
  startEmulator,
  START
} from '../../support/emulator-world.js'

/**
 * The emulator's modes (emulator/modes.ts): where the live service may answer otherwise. Over real
 * HTTP on loopback with a hand-driven clock; every answer is checked against the OpenAPI document.
 */

/** Status and body only, so that a whole answer can be compared. */
async function call(method: 'GET' | 'POST', path: string, body?: unknown, token?: string) {
  const { status, body: answer } = await request(method, path, { body, token })
  return { status, body: answer }
}

const get = (path: string, token?: string) => call('GET', path, undefined, token)
const resume = (id: number, prompt = 'And the docs') =>
  call('POST', `${ORG}/agent/run/resume`, { agent_run_id: id, prompt })

/** ACTIVE, two entries, then `ending` at 300 ms. */
const short = (ending = 'COMPLETE'): RunScript => ({
  steps: [
    { at: 0, status: 'ACTIVE' },
    { at: 100, log: { message_type: 'PLAN_EVALUATION', thought: 'Plan the fix' } },
    { at: 200, log: { message_type: 'FINAL_ANSWER', observation: 'Fixed' } },
    { at: 300, status: ending, result: `ended ${ending}` }
  ]
})

async function createdRun(script: RunScript = short()): Promise<number> {
  emulator.queueScript(script)
  const created = await call('POST', `${ORG}/agent/run`, { prompt: 'Fix it' })
  expect(created.status).toBe(200)
  return created.body.id as number
}

describe('resume only when paused', () => {
  test('resume-paused-only: 422 with a validation detail for a run that is not PAUSED; a paused one resumes', async () => {
    await startEmulator({ modes: ['resume-paused-only'] })
    const done = await createdRun()
    clock.time += 1_000
    const refused = await resume(done)
    expect(refused).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'value_error',
            loc: ['body', 'agent_run_id'],
            msg: `Value error, Agent run ${done} is COMPLETE: only a paused agent run can be resumed.`,
            input: done
          }
        ]
      }
    })
    expect(emulator.run(done)).toMatchObject({ status: 'COMPLETE', resumes: [] })

    // Still working: refused too.
    const working = await createdRun(scenario('endless'))
    expect((await resume(working)).status).toBe(422)

    const paused = await createdRun(short('PAUSED'))
    clock.time += 1_000
    emulator.queueScript(short())
    expect(await resume(paused)).toMatchObject({ status: 200, body: { id: paused } })
    expect(emulator.run(paused)!.resumes).toHaveLength(1)
  })

  test("resume-paused-only-400: 400 with the service's message body", async () => {
    await startEmulator({ modes: ['resume-paused-only-400'] })
    const failed = await createdRun(short('ERROR'))
    clock.time += 1_000
    expect(await resume(failed)).toEqual({
      status: 400,
      body: {
        message: `Agent run ${failed} is ERROR: only a paused agent run can be resumed.`,
        status_code: 400
      }
    })
    expect(emulator.run(failed)!.resumes).toEqual([])
  })

  test('by default any run resumes', async () => {
    await startEmulator()
    const done = await createdRun()
    clock.time += 1_000
    expect((await resume(done)).status).toBe(200)
  })
})

test("members-admin-only: the organization's members are refused (403) to a token that is not an admin", async () => {
  await startEmulator({ modes: ['members-admin-only'], ...account('member') })
  const me = await get('/v1/users/me')
  expect(me.body).toMatchObject({ id: 2, github_username: 'member-2' })
  const refusal = {
    status: 403,
    body: { message: 'Only administrators of this organization can view its members.', status_code: 403 }
  }
  expect(await get(`${ORG}/users/2`)).toEqual(refusal)
  expect(await get(`${ORG}/users`)).toEqual(refusal)
  // The admin may; the rest of the organization stays readable to the member.
  expect(await get(`${ORG}/users/2`, 'admin-token')).toMatchObject({ status: 200, body: { role: 'MEMBER' } })
  expect((await get(`${ORG}/integrations`)).status).toBe(200)
  expect((await get(`${ORG}/repos`)).status).toBe(200)
  await emulator.stop()

  // Without the mode the member reads itself.
  await startEmulator(account('member'))
  expect(await get(`${ORG}/users/2`)).toMatchObject({ status: 200, body: { is_admin: false } })
})

test('pending-start: a new run answers PENDING and its script starts pendingMs later', async () => {
  await startEmulator({ modes: ['pending-start'], pendingMs: 500 })
  const created = await call('POST', `${ORG}/agent/run`, { prompt: 'Fix it' })
  expect(created.body.status).toBe('PENDING')
  const id = created.body.id as number
  emulator.queueScript(short())
  clock.time += 499
  expect((await get(`${ORG}/agent/run/${id}`)).body.status).toBe('PENDING')
  clock.time += 1
  expect((await get(`${ORG}/agent/run/${id}/logs`)).body).toMatchObject({ status: 'ACTIVE', total_logs: 0 })
  await emulator.stop()

  // Default: 1.5 s, compressed by speed like the scenarios.
  await startEmulator({ modes: ['pending-start'], speed: 10 })
  const fast = await createdRun(short())
  clock.time += 149
  expect(emulator.run(fast)!.status).toBe('PENDING')
  clock.time += 1
  expect(emulator.run(fast)!.status).toBe('ACTIVE')
})

describe('extra-statuses', () => {
  test('RUNNING from the first entry, EVALUATION from the last one before the ending', async () => {
    await startEmulator({ modes: ['extra-statuses'] })
    const id = await createdRun()
    const statuses: string[] = []
    for (const at of [0, 100, 199, 200, 300]) {
      clock.time = START + at
      statuses.push((await get(`${ORG}/agent/run/${id}`)).body.status)
    }
    expect(statuses).toEqual(['ACTIVE', 'RUNNING', 'RUNNING', 'EVALUATION', 'COMPLETE'])
    // A resume's script goes through them too.
    emulator.queueScript(short('PAUSED'))
    await resume(id)
    clock.time += 250
    expect(emulator.run(id)!.status).toBe('EVALUATION')
  })

  test('every built-in scenario keeps its ending and its entries', () => {
    for (const name of ['success', 'failure', 'paused', 'no-pr', 'big', 'setup-commands']) {
      const plain = scenario(name)
      const extra = withExtraStatuses(plain)
      const statuses = extra.steps.flatMap(step => (step.status === undefined ? [] : [step.status]))
      expect([name, statuses]).toEqual([
        name,
        ['ACTIVE', 'RUNNING', 'EVALUATION', plain.steps.at(-1)!.status]
      ])
      expect(extra.steps.filter(step => step.log)).toEqual(plain.steps.filter(step => step.log))
    }
    // No ending: RUNNING only. No ACTIVE: left alone.
    const endless = withExtraStatuses(scenario('endless'))
    expect(new Set(endless.steps.map(step => step.status).filter(Boolean))).toEqual(
      new Set(['ACTIVE', 'RUNNING'])
    )
    const hostile = scenario('hostile')
    expect(withExtraStatuses(hostile).steps.map(step => step.status)).toEqual(
      hostile.steps.map(step => step.status)
    )
    // An entry at the ending's own moment never puts a status after the ending.
    const tight = withExtraStatuses({
      steps: [
        { at: 0, status: 'ACTIVE' },
        { at: 100, log: { message_type: 'FINAL_ANSWER' } },
        { at: 100, status: 'COMPLETE' }
      ]
    })
    expect(tight.steps.at(-1)).toMatchObject({ status: 'COMPLETE' })
  })
})

test('resume-user-message: a resume writes a USER_MESSAGE entry with the follow-up at once', async () => {
  await startEmulator({ modes: ['resume-user-message'] })
  const id = await createdRun()
  clock.time += 1_000
  emulator.queueScript({ staleAfterResumeMs: 500, steps: [{ at: 0, status: 'ACTIVE' }] })
  await resume(id, 'Also the changelog')
  const logs = (await get(`/v1/alpha/organizations/1/agent/run/${id}/logs`)).body
  expect(logs.status).toBe('COMPLETE')
  expect(logs.logs.at(-1)).toEqual({
    agent_run_id: id,
    created_at: new Date(clock.time).toISOString(),
    tool_name: null,
    message_type: 'USER_MESSAGE',
    thought: null,
    observation: 'Also the changelog',
    tool_input: null,
    tool_output: null
  })
})

describe('options', () => {
  test('modes and rate limits as the command lines write them; unknown ones are refused', () => {
    expect(parseModes(['pending-start,extra-statuses', 'pending-start'])).toEqual([
      'pending-start',
      'extra-statuses'
    ])
    expect(() => parseModes(['paused-only'])).toThrow(
      `Unknown mode "paused-only": one of ${MODE_NAMES.join(', ')}`
    )
    expect(parseRateLimits('general=20/20,logs=20/20s')).toEqual({
      general: { limit: 20, windowMs: 20_000 },
      logs: { limit: 20, windowMs: 20_000 }
    })
    expect(parseRateLimits('off')).toBe(false)
    for (const bad of ['reads=20/20', 'logs=20', 'logs=0/20', 'logs=20/0'])
      expect(() => parseRateLimits(bad)).toThrow(`got "${bad}"`)
  })

  test('a short window given alone: 20 reads per 20 s; the other windows stay documented', async () => {
    await startEmulator({ rateLimits: parseRateLimits('logs=20/20') as object, retryAfterHeader: true })
    const id = await createdRun()
    const statuses: number[] = []
    for (let n = 0; n < 21; n++) statuses.push((await get(`${ORG}/agent/run/${id}/logs`)).status)
    expect(statuses).toEqual([...Array(20).fill(200), 429])
    clock.time += 19_999
    expect((await get(`${ORG}/agent/run/${id}/logs`)).status).toBe(429)
    clock.time += 1
    expect((await get(`${ORG}/agent/run/${id}/logs`)).status).toBe(200)
    // The general window is still 60 per 30 s: 22 requests counted so far (not the refused ones).
    for (let n = 0; n < 38; n++) expect((await get(`${ORG}/agent/run/${id}`)).status).toBe(200)
    expect((await get(`${ORG}/agent/run/${id}`)).status).toBe(429)
  })
})

test('every route answers as the OpenAPI document says, on success and on error, in every mode', async () => {
  await startEmulator({ modes: [...MODE_NAMES], ...account('member'), speed: 100, runAllowance: 5 })
  const routes: Array<[RouteName, 'GET' | 'POST', string, unknown?]> = [
    ['create', 'POST', `${ORG}/agent/run`, { prompt: 'Fix it', repo_id: 101 }],
    ['get', 'GET', `${ORG}/agent/run/1000`],
    ['logs', 'GET', `${ORG}/agent/run/1000/logs`],
    ['logs-alpha', 'GET', `/v1/alpha/organizations/1/agent/run/1000/logs?reverse=true`],
    ['list-runs', 'GET', `${ORG}/agent/runs`],
    ['repos', 'GET', `${ORG}/repos`],
    ['organizations', 'GET', '/v1/organizations'],
    ['me', 'GET', '/v1/users/me'],
    ['users', 'GET', `${ORG}/users`],
    ['user', 'GET', `${ORG}/users/2`],
    ['integrations', 'GET', `${ORG}/integrations`],
    ['setup-commands', 'POST', `${ORG}/setup-commands/generate`, { repo_id: 101 }]
  ]
  // Success (the admin), then the member (403 for members), no token (401), bad parameters (422).
  for (const [, method, path, body] of routes) await call(method, path, body, 'admin-token')
  for (const [, method, path, body] of routes) await call(method, path, body)
  for (const [, method, path, body] of routes) await call(method, path, body, 'nobody')
  for (const [, method, path, body] of routes)
    await call(method, path.replace('/1/', '/one/').replace('/me', '/me?x'), body && { images: 3 })
  // Runs: the pending start, the extra statuses, a refused (400: it wins over 422) and an accepted
  // resume, a missing run, a missing repository, the allowance used up (runs 1000-1003 so far).
  await get(`${ORG}/agent/run/1000`)
  clock.time += 60_000
  await get(`${ORG}/agent/run/1000/logs`)
  expect((await resume(1000)).status).toBe(400)
  await get(`${ORG}/agent/run/999`)
  await call('POST', `${ORG}/agent/run`, { prompt: 'Fix it', repo_id: 999 })
  await call('POST', `${ORG}/agent/run`, { prompt: 'Fix it [emulator:paused]' })
  await call('POST', `${ORG}/agent/run`, { prompt: 'over the allowance' })
  clock.time += 60_000
  expect((await resume(1004)).status).toBe(200)
  await resume(999)
  await call('POST', `${ORG}/setup-commands/generate`, { repo_id: 999 })
  await get('/v1/organizations/1/nothing')
  await call('POST', '/v1/users/me')
  for (let n = 0; n < 60; n++) await get('/v1/organizations')
  await get('/v1/organizations')

  const seen = [...conformance.seen.keys()].sort()
  for (const name of routes.map(([name]) => name).concat('resume'))
    expect([name, seen.some(key => key === `${name} 200`)]).toEqual([name, true])
  for (const status of [400, 401, 402, 403, 404, 405, 422, 429])
    expect([status, seen.some(key => key.endsWith(` ${status}`))]).toEqual([status, true])
  expect(seen).toEqual(expect.arrayContaining(['resume 400', 'user 403', 'users 403', 'unknown 404']))
})

test('the answer checker catches a wrong body, status_code, an undescribed status and a no-route body', () => {
  const request = (route: RouteName | 'unknown', status: number, fault?: 'malformed') =>
    ({
      at: 0,
      method: 'POST',
      path: '/p',
      route,
      query: {},
      body: undefined,
      authorization: undefined,
      status,
      fault
    }) as const
  expect(answerProblems(request('resume', 400), { message: 'no', status_code: 400 })).toEqual([])
  expect(answerProblems(request('resume', 400), { message: 'no', status_code: 422 })).toEqual([
    "POST /p 400 (/v1/organizations/{org_id}/agent/run/resume): $.status_code: 422, not the answer's status"
  ])
  expect(answerProblems(request('resume', 422), { message: 'no', status_code: 422 })).toHaveLength(2)
  expect(answerProblems(request('resume', 400), { detail: 'no' })).toHaveLength(3)
  expect(answerProblems(request('resume', 200), { id: 1 })[0]).toContain(
    '$.organization_id: required, missing'
  )
  expect(answerProblems(request('unknown', 200), { detail: 'Not Found' })).toHaveLength(1)
  expect(answerProblems(request('get', 500, 'malformed'), '<html>')).toEqual([])
})
