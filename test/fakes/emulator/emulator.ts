import {
  AgentRunEmulator,
  DOCUMENTED_RATE_LIMITS,
  SCENARIO_NAMES,
  scenario,
  type RunScript
} from '../../../emulator/index.js'
import { clock, emulator, ORG, request, startEmulator, START, TOKEN } from '../../support/emulator-world.js'
import { VirtualClock } from '../../support/virtual-clock.js'

/** The emulator over real HTTP on loopback, with a hand-driven clock where time matters. */

const get = (path: string, token?: string | null) => request('GET', path, { token })
const post = (path: string, body: unknown, token?: string | null) => request('POST', path, { body, token })
const create = (body: unknown = { prompt: 'Fix the failing test' }) => post(`${ORG}/agent/run`, body)

const SHORT: RunScript = {
  steps: [
    { at: 0, status: 'ACTIVE' },
    { at: 100, log: { message_type: 'PLAN_EVALUATION', thought: 'Plan the fix' } },
    {
      at: 200,
      log: {
        message_type: 'ACTION',
        tool_name: 'run_command',
        tool_input: { command: 'npm test' },
        tool_output: { exit_code: 0 }
      }
    },
    {
      at: 300,
      status: 'COMPLETE',
      result: 'Done.',
      summary: 'Fixed it.',
      pullRequests: [
        { id: 7, title: 'Fix', url: 'https://github.com/octo-org/octo-repo/pull/7', head_branch_name: 'fix' }
      ]
    }
  ]
}

/** A run already created from `script`. */
async function createdRun(script: RunScript = SHORT, body?: unknown): Promise<number> {
  emulator.queueScript(script)
  const created = await create(body)
  expect(created.status).toBe(200)
  return created.body.id as number
}

describe('auth', () => {
  test('a missing or unknown token is 401, a token without the organization 403', async () => {
    await startEmulator({ tokens: { [TOKEN]: [1], other: [2] } })
    const invalid = { message: 'Invalid or missing API token.', status_code: 401 }
    expect(await get(`${ORG}/repos`, null)).toMatchObject({ status: 401, body: invalid })
    expect(await get(`${ORG}/repos`, 'nope')).toMatchObject({ status: 401, body: invalid })
    expect((await request('GET', `${ORG}/repos`, { token: `${TOKEN} extra` })).status).toBe(401)
    expect(await get(`${ORG}/repos`, 'other')).toMatchObject({
      status: 403,
      body: { message: 'You do not have access to this organization.', status_code: 403 }
    })
    expect((await get('/v1/organizations/2/repos', 'other')).body).toMatchObject({ items: [], total: 0 })
    expect(emulator.requests.map(request => [request.route, request.status, request.authorization])).toEqual([
      ['repos', 401, undefined],
      ['repos', 401, 'Bearer nope'],
      ['repos', 401, `Bearer ${TOKEN} extra`],
      ['repos', 403, 'Bearer other'],
      ['repos', 200, 'Bearer other']
    ])
  })

  test("another organization's run is not found", async () => {
    await startEmulator({ tokens: { [TOKEN]: [1, 2] } })
    const id = await createdRun()
    const notFound = { status: 404, body: { message: 'Agent run not found.', status_code: 404 } }
    expect(await get(`/v1/organizations/2/agent/run/${id}`)).toMatchObject(notFound)
    expect(await get(`/v1/organizations/2/agent/run/${id}/logs`)).toMatchObject(notFound)
    expect(await get(`${ORG}/agent/run/999999`)).toMatchObject(notFound)
    expect(
      await post('/v1/organizations/2/agent/run/resume', { agent_run_id: id, prompt: 'x' })
    ).toMatchObject(notFound)
  })
})

describe('runs', () => {
  test('create, then get and logs as the script unfolds', async () => {
    await startEmulator()
    emulator.queueScript(SHORT)
    const metadata = { github_action: { repository: 'octo-org/octo-repo', run_id: '4242' } }
    const created = await create({
      prompt: 'Fix it',
      repo_id: 101,
      metadata,
      model: 'claude',
      agent_type: 'codegen'
    })
    expect(created.status).toBe(200)
    expect(created.headers.get('content-type')).toBe('application/json')
    // The run, ACTIVE, as both answers show it.
    const active = {
      id: 1000,
      organization_id: 1,
      status: 'ACTIVE',
      created_at: '2025-06-21 11:20:04.338000',
      web_url: 'https://app.codegen.com/agent/trace/1000',
      result: null
    }
    expect(created.body).toEqual({
      ...active,
      summary: null,
      source_type: 'API',
      github_pull_requests: [],
      metadata
    })

    clock.time += 150
    const logs = await get(`${ORG}/agent/run/1000/logs`)
    expect(logs.body).toEqual({
      ...active,
      metadata,
      logs: [
        {
          agent_run_id: 1000,
          created_at: '2025-06-21T11:20:04.438Z',
          tool_name: null,
          message_type: 'PLAN_EVALUATION',
          thought: 'Plan the fix',
          observation: null,
          tool_input: null,
          tool_output: null
        }
      ],
      total_logs: 1,
      page: 1,
      size: 100,
      pages: 1
    })

    clock.time += 150
    const done = await get(`${ORG}/agent/run/1000`)
    expect(done.body).toMatchObject({ status: 'COMPLETE', result: 'Done.', summary: 'Fixed it.' })
    expect(done.body.github_pull_requests).toEqual([
      {
        id: 7,
        title: 'Fix',
        url: 'https://github.com/octo-org/octo-repo/pull/7',
        head_branch_name: 'fix',
        created_at: '2025-06-21T11:20:04.638Z'
      }
    ])
    const finalLogs = await get(`/v1/alpha/organizations/1/agent/run/1000/logs`)
    expect(finalLogs.body).toMatchObject({ status: 'COMPLETE', result: 'Done.', total_logs: 2 })

    expect(emulator.run(1000)).toMatchObject({
      status: 'COMPLETE',
      prompt: 'Fix it',
      repo_id: 101,
      model: 'claude',
      agent_type: 'codegen',
      images: null,
      user_id: 1,
      metadata
    })
    expect(emulator.run(1000)!.logs).toHaveLength(2)
    expect(emulator.run(1)).toBeUndefined()
    expect(emulator.runs().map(run => run.id)).toEqual([1000])
  })

  test('log pages: skip and limit, page math, reverse on the OpenAPI path only', async () => {
    await startEmulator()
    const steps = Array.from({ length: 250 }, (_, n) => ({
      at: 0,
      log: { message_type: 'ACTION', thought: `${n}` }
    }))
    const id = await createdRun({ steps })
    const page = async (query: string, path = `${ORG}/agent/run/${id}/logs`) =>
      (await get(`${path}${query}`)).body

    expect(await page('')).toMatchObject({ total_logs: 250, page: 1, size: 100, pages: 3 })
    expect((await page('')).logs).toHaveLength(100)
    const third = await page('?skip=200&limit=100')
    expect(third).toMatchObject({ total_logs: 250, page: 3, size: 100, pages: 3 })
    expect(third.logs.map((entry: { thought: string }) => entry.thought)).toEqual(
      Array.from({ length: 50 }, (_, n) => `${200 + n}`)
    )
    expect(await page('?skip=250&limit=100')).toMatchObject({ logs: [], total_logs: 250, page: 3 })
    expect(await page('?skip=30&limit=7')).toMatchObject({ page: 5, size: 7, pages: 36 })
    expect((await page('?skip=30&limit=7')).logs[0].thought).toBe('30')

    const alpha = `/v1/alpha/organizations/1/agent/run/${id}/logs`
    expect(
      (await page('?reverse=true&limit=2', alpha)).logs.map((e: { thought: string }) => e.thought)
    ).toEqual(['249', '248'])
    expect((await page('?reverse=true&limit=2')).logs.map((e: { thought: string }) => e.thought)).toEqual([
      '0',
      '1'
    ])
    expect((await get(`${alpha}?reverse=maybe`)).status).toBe(422)

    const bounds = await get(`${ORG}/agent/run/${id}/logs?skip=-1&limit=101`)
    expect(bounds).toMatchObject({
      status: 422,
      body: {
        detail: [
          {
            type: 'greater_than_equal',
            loc: ['query', 'skip'],
            msg: 'Input should be greater than or equal to 0',
            input: '-1',
            ctx: { ge: 0 }
          },
          {
            type: 'less_than_equal',
            loc: ['query', 'limit'],
            msg: 'Input should be less than or equal to 100',
            input: '101',
            ctx: { le: 100 }
          }
        ]
      }
    })
    expect((await get(`${ORG}/agent/run/${id}/logs?limit=0`)).status).toBe(422)
  })

  test('both log paths answer by default; a disabled one is an unknown route', async () => {
    await startEmulator({ logPaths: ['alpha'] })
    const id = await createdRun()
    expect(await get(`${ORG}/agent/run/${id}/logs`)).toMatchObject({
      status: 404,
      body: { detail: 'Not Found' }
    })
    expect((await get(`/v1/alpha/organizations/1/agent/run/${id}/logs`)).status).toBe(200)
    expect(emulator.requests.slice(-2).map(request => [request.route, request.status])).toEqual([
      ['logs', 404],
      ['logs-alpha', 200]
    ])
    await emulator.stop()

    await startEmulator()
    const both = await createdRun()
    expect((await get(`${ORG}/agent/run/${both}/logs`)).status).toBe(200)
    expect((await get(`/v1/alpha/organizations/1/agent/run/${both}/logs`)).status).toBe(200)
  })

  test('resume: the old ending lingers for staleAfterResumeMs, then the new script appends to the log', async () => {
    await startEmulator()
    const id = await createdRun()
    clock.time += 1_000
    emulator.queueScript({
      staleAfterResumeMs: 1_000,
      steps: [
        { at: 0, status: 'ACTIVE', result: null },
        { at: 100, log: { message_type: 'FINAL_ANSWER', observation: 'Changelog updated' } },
        { at: 200, status: 'COMPLETE', result: 'Changelog updated.' }
      ]
    })
    const resumed = await post(`${ORG}/agent/run/resume`, { agent_run_id: id, prompt: 'Also the changelog' })
    expect(resumed.body).toMatchObject({ id, status: 'COMPLETE', result: 'Done.' })

    clock.time += 999
    expect((await get(`${ORG}/agent/run/${id}`)).body).toMatchObject({ status: 'COMPLETE', result: 'Done.' })
    clock.time += 1
    expect((await get(`${ORG}/agent/run/${id}`)).body).toMatchObject({ status: 'ACTIVE', result: null })
    clock.time += 200
    const logs = (await get(`${ORG}/agent/run/${id}/logs`)).body
    expect(logs).toMatchObject({ status: 'COMPLETE', result: 'Changelog updated.', total_logs: 3 })
    expect(logs.logs.map((entry: { message_type: string }) => entry.message_type)).toEqual([
      'PLAN_EVALUATION',
      'ACTION',
      'FINAL_ANSWER'
    ])
    // The pull request of the first script stays: the new one did not replace it.
    expect(emulator.run(id)).toMatchObject({ github_pull_requests: [{ id: 7 }] })
    expect(emulator.run(id)!.resumes).toEqual([
      { at: START + 1_000, prompt: 'Also the changelog', images: null }
    ])
  })

  test('a resume interrupts what the old script had not done yet', async () => {
    await startEmulator()
    const id = await createdRun(scenario('endless'))
    clock.time += 5_000
    emulator.queueScript({ steps: [{ at: 0, status: 'PAUSED' }] })
    await post(`${ORG}/agent/run/resume`, { agent_run_id: id, prompt: 'Stop and wait' })
    clock.time += 60_000
    expect(emulator.run(id)).toMatchObject({ status: 'PAUSED' })
    expect(emulator.run(id)!.logs).toHaveLength(2)
  })

  test('list-runs: newest first, filters, and a run found by its metadata', async () => {
    await startEmulator({ tokens: { [TOKEN]: [1], colleague: [1] } })
    for (const runId of ['41', '42', '43']) {
      emulator.queueScript(SHORT)
      await create({ prompt: `run ${runId}`, metadata: { github_action: { run_id: runId } } })
    }
    emulator.queueScript(SHORT)
    await post(`${ORG}/agent/run`, { prompt: 'by a colleague' }, 'colleague')

    const listed = await get(`${ORG}/agent/runs?source_type=API&limit=100`)
    expect(listed.body).toMatchObject({ total: 4, page: 1, size: 100, pages: 1 })
    expect(listed.body.items.map((run: { id: number }) => run.id)).toEqual([1003, 1002, 1001, 1000])
    const found = listed.body.items.find(
      (run: { metadata: { github_action?: { run_id: string } } | null }) =>
        run.metadata?.github_action?.run_id === '42'
    )
    expect(found).toMatchObject({
      id: 1001,
      status: 'ACTIVE',
      source_type: 'API',
      web_url: expect.any(String)
    })

    expect((await get(`${ORG}/agent/runs?user_id=2`)).body).toMatchObject({ total: 1, items: [{ id: 1003 }] })
    expect((await get(`${ORG}/agent/runs?source_type=SLACK`)).body).toMatchObject({ total: 0, pages: 0 })
    expect((await get(`${ORG}/agent/runs?skip=3&limit=2`)).body).toMatchObject({
      items: [{ id: 1000 }],
      page: 2,
      size: 2,
      pages: 2
    })
    const wrong = await get(`${ORG}/agent/runs?source_type=api`)
    expect(wrong.status).toBe(422)
    expect(wrong.body.detail[0]).toMatchObject({ type: 'enum', loc: ['query', 'source_type'], input: 'api' })
  })

  test('the scenario: queued script, else the prompt directive, else the default', async () => {
    await startEmulator({ defaultScenario: 'no-pr', speed: 10 })
    emulator.queueScript({ steps: [{ at: 0, status: 'QUEUED-SCRIPT' }] })
    expect((await create({ prompt: '[emulator:failure]' })).body.status).toBe('QUEUED-SCRIPT')
    const failing = (await create({ prompt: 'Please [emulator:failure] now' })).body.id
    const fallback = (await create({ prompt: 'Nothing named [emulator:unknown]' })).body.id
    clock.time += 60_000
    expect(emulator.run(failing)).toMatchObject({ status: 'ERROR', github_pull_requests: [] })
    expect(emulator.run(fallback)).toMatchObject({ status: 'COMPLETE', github_pull_requests: [] })
  })
})

describe('scenarios', () => {
  const finalState = async (name: string) => {
    await startEmulator({ defaultScenario: name })
    const id = (await create()).body.id as number
    clock.time += 700_000
    return emulator.run(id)!
  }

  test('success: about 12 s, varied entries, COMPLETE with one pull request', async () => {
    const steps = scenario('success').steps
    expect(Math.max(...steps.map(step => step.at))).toBeGreaterThan(10_000)
    expect(Math.max(...steps.map(step => step.at))).toBeLessThanOrEqual(12_000)
    const run = await finalState('success')
    expect(run.logs.length).toBeGreaterThanOrEqual(10)
    expect(new Set(run.logs.map(entry => entry.message_type))).toEqual(
      new Set(['PLAN_EVALUATION', 'ACTION', 'ERROR', 'FINAL_ANSWER'])
    )
    expect(run.logs.filter(entry => entry.message_type === 'ACTION').map(entry => entry.tool_name)).toEqual(
      expect.arrayContaining(['ripgrep_search', 'view_file', 'run_command', 'create_pr'])
    )
    expect(run).toMatchObject({
      status: 'COMPLETE',
      result: expect.stringContaining('##'),
      summary: expect.any(String)
    })
    expect(run.github_pull_requests).toEqual([
      expect.objectContaining({
        id: expect.any(Number),
        title: expect.any(String),
        url: 'https://github.com/octo-org/octo-repo/pull/42',
        created_at: expect.any(String),
        head_branch_name: expect.any(String)
      })
    ])
  })

  test('failure, paused, no-pr, endless end as named', async () => {
    expect(await finalState('failure')).toMatchObject({
      status: 'ERROR',
      result: expect.stringContaining('failed')
    })
    expect((await finalState('failure')).logs.some(entry => entry.message_type === 'ERROR')).toBe(true)
    expect(await finalState('paused')).toMatchObject({ status: 'PAUSED' })
    expect(await finalState('no-pr')).toMatchObject({ status: 'COMPLETE', github_pull_requests: [] })
    const endless = await finalState('endless')
    expect(endless).toMatchObject({ status: 'ACTIVE' })
    expect(endless.logs).toHaveLength(300)
  })

  test('hostile and big', async () => {
    const hostile = await finalState('hostile')
    const texts = JSON.stringify(hostile)
    for (const needle of [
      '::set-output name=outcome::success',
      '::add-mask::x',
      '::stop-commands::abc',
      '::error::pwned',
      '%0A::warning::x',
      '</details></summary><script>alert(1)</script>',
      '<!-- codegen-agent-run-id: 999 -->',
      '```'
    ]) {
      expect(texts).toContain(needle)
    }
    expect(hostile.logs.some(entry => (entry.thought?.length ?? 0) >= 200_000)).toBe(true)
    expect(hostile.status).toBe('COMPLETE')

    await emulator.stop()
    await startEmulator({ defaultScenario: 'big' })
    const id = (await create()).body.id as number
    clock.time += 400
    const page = (await get(`${ORG}/agent/run/${id}/logs?skip=2900`)).body
    expect(page).toMatchObject({ status: 'ACTIVE', total_logs: 3000, page: 30, pages: 30 })
    expect(JSON.stringify(page.logs[0]).length).toBeGreaterThan(2_000)
    clock.time += 1_000
    expect(emulator.run(id)).toMatchObject({ status: 'COMPLETE' })
  })

  test('speed compresses time; unknown names are refused', () => {
    const normal = scenario('success')
    const fast = scenario('success', 4)
    expect(fast.steps.map(step => step.at)).toEqual(normal.steps.map(step => Math.round(step.at / 4)))
    expect(SCENARIO_NAMES).toEqual([
      'success',
      'failure',
      'paused',
      'endless',
      'no-pr',
      'hostile',
      'big',
      'setup-commands',
      'verdict-pass',
      'verdict-fail',
      'verdict-repaired',
      'verdict-never',
      'findings',
      'plan'
    ])
    expect(() => scenario('nope')).toThrow(/Unknown scenario "nope"/)
    expect(() => new AgentRunEmulator({ defaultScenario: 'nope' })).toThrow(/Unknown scenario/)
  })
})

describe('repos', () => {
  test('three repositories by default, 150 with manyRepos, paged', async () => {
    await startEmulator()
    const few = (await get(`${ORG}/repos`)).body
    expect(few).toMatchObject({ total: 3, page: 1, size: 100, pages: 1 })
    expect(few.items[0]).toEqual({
      id: 101,
      name: 'octo-repo',
      full_name: 'octo-org/octo-repo',
      description: expect.any(String),
      github_id: expect.any(String),
      organization_id: 1,
      visibility: expect.any(String),
      archived: false,
      setup_status: expect.any(String),
      language: expect.any(String)
    })
    await emulator.stop()

    await startEmulator({ manyRepos: true })
    const first = (await get(`${ORG}/repos?limit=100`)).body
    expect(first).toMatchObject({ total: 150, page: 1, size: 100, pages: 2 })
    expect(first.items.some((repo: { id: number }) => repo.id === 101)).toBe(false)
    const second = (await get(`${ORG}/repos?skip=100&limit=100`)).body
    expect(second).toMatchObject({ total: 150, page: 2, pages: 2 })
    expect(second.items).toHaveLength(50)
    expect(second.items.some((repo: { full_name: string }) => repo.full_name === 'octo-org/octo-repo')).toBe(
      true
    )
    expect((await get(`${ORG}/repos?limit=101`)).status).toBe(422)
  })
})

describe('validation', () => {
  test('path parameters that are not integers', async () => {
    await startEmulator()
    expect(await get('/v1/organizations/x/repos')).toMatchObject({
      status: 422,
      body: {
        detail: [
          {
            type: 'int_parsing',
            loc: ['path', 'org_id'],
            msg: 'Input should be a valid integer, unable to parse string as an integer',
            input: 'x'
          }
        ]
      }
    })
    // Both reported, in the OpenAPI listing's order; before any auth.
    const both = await get('/v1/organizations/x/agent/run/y', null)
    expect(both.status).toBe(422)
    expect(both.body.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual([
      ['path', 'agent_run_id'],
      ['path', 'org_id']
    ])
  })

  test('create and resume bodies', async () => {
    await startEmulator()
    const issues = async (body: unknown) => {
      const reply = await create(body)
      expect(reply.status).toBe(422)
      return reply.body.detail.map((issue: { type: string; loc: unknown[] }) => [
        issue.type,
        issue.loc.join('.')
      ])
    }
    expect(await issues({ repo_id: 101 })).toEqual([['missing', 'body.prompt']])
    expect(
      await issues({
        prompt: 5,
        images: ['data:image/png;base64,AAAA', 'https://example.com/a.png', 7],
        metadata: ['not', 'an', 'object'],
        repo_id: '101',
        model: 3,
        agent_type: 'gpt'
      })
    ).toEqual([
      ['string_type', 'body.prompt'],
      ['value_error', 'body.images.1'],
      ['string_type', 'body.images.2'],
      ['dict_type', 'body.metadata'],
      ['int_type', 'body.repo_id'],
      ['string_type', 'body.model'],
      ['literal_error', 'body.agent_type']
    ])
    expect(await issues({ prompt: 'x', repo_id: 1.5, images: 'data:image/png;base64,AAAA' })).toEqual([
      ['list_type', 'body.images'],
      ['int_from_float', 'body.repo_id']
    ])
    expect(await issues(['prompt'])).toEqual([['model_attributes_type', 'body']])
    const empty = await request('POST', `${ORG}/agent/run`)
    expect(empty.body.detail).toEqual([
      { type: 'missing', loc: ['body'], msg: 'Field required', input: null }
    ])
    const broken = await request('POST', `${ORG}/agent/run`, { raw: '{"prompt": ' })
    expect(broken.body.detail[0]).toMatchObject({ type: 'json_invalid', msg: 'JSON decode error' })
    const text = await request('POST', `${ORG}/agent/run`, { raw: 'prompt=x', contentType: 'text/plain' })
    expect(text.body.detail[0]).toMatchObject({ type: 'model_attributes_type', input: 'prompt=x' })

    const nulls = await create({
      prompt: 'x',
      repo_id: null,
      images: null,
      metadata: null,
      model: null,
      agent_type: null
    })
    expect(nulls.status).toBe(200)
    expect(await create({ prompt: 'x', repo_id: 999 })).toMatchObject({
      status: 404,
      body: {
        message: 'No repos found in the organization. Please add some repos and try again.',
        status_code: 404
      }
    })

    const resume = await post(`${ORG}/agent/run/resume`, { agent_run_id: 'abc' })
    expect(resume.body.detail.map((issue: { type: string }) => issue.type)).toEqual(['int_type', 'missing'])
  })

  test('images: well-formed base64 data URIs of PNG, JPEG, GIF or WebP, 10 MiB in all, on create and resume', async () => {
    await startEmulator()
    const png = 'data:image/png;base64,iVBORw0KGgo='
    const refused = async (images: unknown[]) => {
      const reply = await create({ prompt: 'x', images })
      expect(reply.status).toBe(422)
      return reply.body.detail.map((issue: { loc: unknown[]; msg: string }) => [
        issue.loc.join('.'),
        issue.msg
      ])
    }
    const eachMessage =
      'Value error, each image must be a base64 data URI of a PNG, JPEG, GIF or WebP image (data:image/png;base64,...)'
    expect(
      await refused([
        png,
        'data:image/svg+xml;base64,PHN2Zz4=',
        'data:image/png,iVBORw0KGgo=',
        'data:image/png;base64,',
        'data:image/png;base64,iVBORw0KGgo',
        'data:image/png;base64,iVBO Rw0KGgo=',
        'data:image/png;base64,iVBORw0KG=o=',
        'data:image/png;base64,iVBORw0K===='
      ])
    ).toEqual([1, 2, 3, 4, 5, 6, 7].map(index => [`body.images.${index}`, eachMessage]))
    const long = `data:image/jpeg;base64,${'A'.repeat(64)}!`
    const echoed = await create({ prompt: 'x', images: [long] })
    expect(echoed.body.detail[0].input).toBe(`${long.slice(0, 64)}...`)

    // 10 MiB of data URIs' characters in all: to the character, on create and on resume alike.
    const head = 'data:image/gif;base64,'
    const filler = (characters: number) => `${head}${'R0lG'.repeat((characters - head.length) / 4)}`
    const atCap = [filler(5 * 1024 * 1024 - 2), filler(5 * 1024 * 1024 + 2)]
    expect(atCap.reduce((sum, image) => sum + image.length, 0)).toBe(10 * 1024 * 1024)
    const accepted = await create({ prompt: 'x', images: atCap })
    expect(accepted.status).toBe(200)
    const over = [...atCap, png]
    const tooMuch = await create({ prompt: 'x', images: over })
    expect(tooMuch.status).toBe(422)
    expect(tooMuch.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'images'],
        msg: 'Value error, the images may take at most 10 MiB in all (10485760 characters of data URIs), not 10485794',
        input: '3 images',
        ctx: { error: {} }
      }
    ])
    const resumed = await post(`${ORG}/agent/run/resume`, {
      agent_run_id: accepted.body.id,
      prompt: 'y',
      images: over
    })
    expect(resumed.status).toBe(422)
    expect(resumed.body.detail[0].loc).toEqual(['body', 'images'])
    const broken = await post(`${ORG}/agent/run/resume`, {
      agent_run_id: accepted.body.id,
      prompt: 'y',
      images: ['data:image/webp;base64,UklGRg=']
    })
    expect(broken.body.detail[0]).toMatchObject({ loc: ['body', 'images', 0], msg: eachMessage })
    expect(emulator.run(accepted.body.id)!.resumes).toEqual([])
  })

  test('unknown routes and methods', async () => {
    await startEmulator()
    expect(await get('/v1/organizations/1/nothing')).toMatchObject({
      status: 404,
      body: { detail: 'Not Found' }
    })
    const wrongMethod = await request('POST', `${ORG}/repos`)
    expect(wrongMethod).toMatchObject({ status: 405, body: { detail: 'Method Not Allowed' } })
    expect(wrongMethod.headers.get('allow')).toBe('GET')
    // As in FastAPI, GET .../agent/run/resume is the get route with a run id that is no integer.
    expect((await get(`${ORG}/agent/run/resume`)).body.detail[0]).toMatchObject({
      loc: ['path', 'agent_run_id'],
      input: 'resume'
    })
    expect(emulator.requests.map(request => request.route)).toEqual(['unknown', 'unknown', 'get'])
  })
})

describe('limits', () => {
  const small = {
    general: { limit: 3, windowMs: 1_000 },
    create: { limit: 1, windowMs: 10_000 },
    logs: { limit: 2, windowMs: 1_000 }
  }

  test('sliding windows per token; refused requests do not count', async () => {
    await startEmulator({ rateLimits: small, retryAfterHeader: true, tokens: { [TOKEN]: [1], other: [1] } })
    const limited = {
      status: 429,
      body: { message: 'Rate limit exceeded. Please try again later.', status_code: 429 }
    }
    for (let n = 0; n < 3; n++) expect((await get(`${ORG}/repos`)).status).toBe(200)
    clock.time += 400
    const refused = await get(`${ORG}/repos`)
    expect(refused).toMatchObject(limited)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect((await get(`${ORG}/repos`, 'other')).status).toBe(200)
    clock.time += 600
    // The first three slid out; the refused one never counted.
    for (let n = 0; n < 3; n++) expect((await get(`${ORG}/repos`)).status).toBe(200)
    expect((await get(`${ORG}/repos`)).status).toBe(429)
    expect(emulator.requests.filter(request => request.status === 429)).toHaveLength(2)

    clock.time += 1_000
    const id = await createdRun()
    expect(await create()).toMatchObject(limited)
    clock.time += 1_000
    expect((await get(`${ORG}/agent/run/${id}/logs`)).status).toBe(200)
    expect((await get(`/v1/alpha/organizations/1/agent/run/${id}/logs`)).status).toBe(200)
    const logsRefused = await get(`${ORG}/agent/run/${id}/logs`)
    expect(logsRefused.status).toBe(429)
    expect(Number(logsRefused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
  })

  test('the documented limits by default, without Retry-After; none with rateLimits: false', async () => {
    expect(DOCUMENTED_RATE_LIMITS).toEqual({
      general: { limit: 60, windowMs: 30_000 },
      create: { limit: 10, windowMs: 60_000 },
      logs: { limit: 60, windowMs: 60_000 },
      setup: { limit: 5, windowMs: 60_000 }
    })
    await startEmulator()
    const statuses = []
    for (let n = 0; n < 11; n++) statuses.push((await create()).status)
    expect(statuses).toEqual([...Array(10).fill(200), 429])
    const refused = await create()
    expect(refused.headers.get('retry-after')).toBeNull()
    await emulator.stop()

    await startEmulator({ rateLimits: false })
    for (let n = 0; n < 12; n++) expect((await create()).status).toBe(200)
  })

  test('the run allowance: 402 once used up', async () => {
    await startEmulator({ runAllowance: 2 })
    await create()
    await create()
    expect(await create()).toMatchObject({
      status: 402,
      body: {
        message:
          'Alloted agent runs for the current billing plan have been reached. Please upgrade your plan to continue.',
        status_code: 402
      }
    })
    expect(emulator.runs()).toHaveLength(2)
  })
})

describe('faults', () => {
  test('status faults answer instead of the service, with their usual bodies', async () => {
    await startEmulator()
    emulator.injectFaults(
      { route: 'repos', fault: { kind: 'status', status: 503 } },
      { route: 'repos', fault: { kind: 'status', status: 500 } },
      { route: 'repos', fault: { kind: 'status', status: 429, retryAfter: 2 } },
      { route: 'create', fault: { kind: 'status', status: 502, body: { detail: 'custom' } } }
    )
    const gateway = await get(`${ORG}/repos`)
    expect(gateway.status).toBe(503)
    expect(gateway.text).toContain('503 Service Unavailable')
    expect(await get(`${ORG}/repos`)).toMatchObject({ status: 500, text: 'Internal Server Error' })
    const limited = await get(`${ORG}/repos`)
    expect(limited).toMatchObject({
      status: 429,
      body: { message: 'Rate limit exceeded. Please try again later.' }
    })
    expect(limited.headers.get('retry-after')).toBe('2')
    expect((await get(`${ORG}/repos`)).status).toBe(200)
    expect(await create()).toMatchObject({ status: 502, body: { detail: 'custom' } })
    expect(emulator.runs()).toHaveLength(0)
    expect(emulator.requests.map(request => [request.status, request.fault])).toEqual([
      [503, 'status'],
      [500, 'status'],
      [429, 'status'],
      [200, undefined],
      [502, 'status']
    ])
  })

  test('resets: before has no side effect, after creates the run', async () => {
    await startEmulator()
    emulator.injectFaults({ route: 'create', fault: { kind: 'reset-before' } })
    await expect(create()).rejects.toThrow()
    expect(emulator.runs()).toHaveLength(0)
    emulator.injectFaults({ route: 'create', fault: { kind: 'reset-after' } })
    await expect(create()).rejects.toThrow()
    expect(emulator.runs()).toHaveLength(1)
    expect(emulator.requests.map(request => [request.status, request.fault])).toEqual([
      [0, 'reset-before'],
      [200, 'reset-after']
    ])
    expect((await create()).status).toBe(200)
  })

  test('slow: handled at once, answered its delay later on the emulator’s clock', async () => {
    const virtual = new VirtualClock(START)
    await startEmulator({ clock: virtual })
    emulator.injectFaults({ fault: { kind: 'slow', delayMs: 300 } })
    await virtual.run(async () => {
      let answeredAt: number | undefined
      const pending = virtual.network
        .service(`${emulator.baseUrl}${ORG}/agent/run`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'Fix the failing test' })
        })
        .then(response => ((answeredAt = virtual.now()), response))
      // A millisecond before the delay is up: the run exists, its answer is still held back.
      await virtual.advance(299)
      expect(answeredAt).toBeUndefined()
      expect(emulator.runs()).toHaveLength(1)
      expect((await pending).status).toBe(200)
      expect(answeredAt! - START).toBe(300)
    })
  })

  test('malformed, truncated and drifted bodies', async () => {
    await startEmulator()
    const id = await createdRun()
    clock.time += 1_000
    emulator.injectFaults(
      { route: 'get', fault: { kind: 'malformed' } },
      { route: 'get', fault: { kind: 'truncated' } },
      {
        route: ['logs', 'logs-alpha'],
        fault: {
          kind: 'drift',
          mutate: ({ logs, ...rest }) => ({ ...rest, entries: logs, total_logs: null })
        }
      }
    )
    const malformed = await get(`${ORG}/agent/run/${id}`)
    expect(malformed.status).toBe(200)
    expect(malformed.body).toBeUndefined()
    const truncated = await get(`${ORG}/agent/run/${id}`)
    const whole = await get(`${ORG}/agent/run/${id}`)
    expect(truncated.status).toBe(200)
    expect(truncated.body).toBeUndefined()
    expect(truncated.text).toBe(whole.text.slice(0, Math.floor(whole.text.length / 2)))
    const drifted = await get(`/v1/alpha/organizations/1/agent/run/${id}/logs`)
    expect(drifted.body).toMatchObject({ status: 'COMPLETE', total_logs: null, entries: expect.any(Array) })
    expect(drifted.body).not.toHaveProperty('logs')
  })

  test('the record: Retry-After sent, and the entries a log answer carried whole', async () => {
    await startEmulator({
      rateLimits: { ...DOCUMENTED_RATE_LIMITS, logs: { limit: 2, windowMs: 1_000 } },
      retryAfterHeader: true
    })
    const id = await createdRun()
    clock.time += 60_000
    const logs = `${ORG}/agent/run/${id}/logs`
    emulator.injectFaults({ route: 'logs', after: 1, fault: { kind: 'truncated' } })
    const whole = await get(`${logs}?skip=1`)
    await get(logs)
    await get(logs)
    const [wholeRecord, truncatedRecord, refusedRecord] = emulator.requests.slice(-3)
    expect(wholeRecord).toMatchObject({ status: 200, served: whole.body.logs.length })
    expect(whole.body.logs.length).toBeGreaterThan(0)
    expect(truncatedRecord?.served).toBeUndefined()
    expect(refusedRecord).toMatchObject({ status: 429, retryAfter: 1 })
    expect(refusedRecord?.served).toBeUndefined()
  })

  test("addRun: another job's run, without a request, newest first in list-runs", async () => {
    await startEmulator()
    const mine = await createdRun()
    const other = emulator.addRun({ github_action: { idempotency_key: 'other' } })
    const listed = await get(`${ORG}/agent/runs`)
    expect(listed.body.items.map((run: { id: number }) => run.id)).toEqual([other, mine])
    expect(listed.body.items[0].metadata).toEqual({ github_action: { idempotency_key: 'other' } })
    expect(emulator.requests.filter(request => request.route === 'create')).toHaveLength(1)
  })

  test('each rule counts its own matching requests: times and after', async () => {
    await startEmulator()
    emulator.injectFaults(
      { route: 'repos', times: 2, fault: { kind: 'status', status: 502 } },
      { route: 'repos', after: 3, fault: { kind: 'status', status: 503 } },
      { route: 'repos', after: 1, fault: { kind: 'status', status: 500 } }
    )
    const statuses = []
    for (let n = 0; n < 6; n++) statuses.push((await get(`${ORG}/repos`)).status)
    // The third rule wanted request 2 but the first took it; it hits the next one nobody else takes.
    expect(statuses).toEqual([502, 502, 500, 503, 200, 200])
  })
})

test('stop closes every connection: a keep-alive one, and one whose answer is held back for an hour', async () => {
  await startEmulator()
  expect((await get(`${ORG}/repos`)).status).toBe(200)
  emulator.injectFaults({ route: 'repos', fault: { kind: 'slow', delayMs: 3_600_000 } })
  const held = get(`${ORG}/repos`)
  // Answered in the record: the answer waits in the delay.
  while (!emulator.requests[1]?.status) await new Promise(resolve => setImmediate(resolve))
  // Closing waits for no connection: a server that did would wait here for the hour (jest's limit first).
  await emulator.stop()
  await expect(held).rejects.toThrow()
  await emulator.stop()
  expect(() => emulator.baseUrl).toThrow(/not started/)
})
