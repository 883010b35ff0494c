import { FIRST_PLAN, PLAN_PULL_REQUEST, REVISED_PLAN, scenario } from '../../../emulator/index.js'
import { extractAnswer } from '../../../src/answer/extract.js'
import { clock, emulator, ORG, request, startEmulator } from '../../support/emulator-world.js'

/**
 * The verdict scenarios over real HTTP: what the result holds, and how follow-ups are answered; every
 * answer checked against the OpenAPI document.
 */

async function post(path: string, body: unknown): Promise<{ id: number; status: string; result: string }> {
  const reply = await request('POST', path, { body })
  expect(reply.status).toBe(200)
  return reply.body as { id: number; status: string; result: string }
}

/** Creates a run of the scenario, lets it end, then resumes it `resumes` times: each ending's result. */
async function results(name: string, resumes: number): Promise<string[]> {
  await startEmulator({ defaultScenario: name })
  const { id } = await post(`${ORG}/agent/run`, { prompt: 'Review the public API' })
  clock.time += 60_000
  const seen = [emulator.run(id)?.result ?? '']
  for (let n = 0; n < resumes; n++) {
    await post(`${ORG}/agent/run/resume`, { agent_run_id: id, prompt: 'Reply with the json block alone.' })
    clock.time += 60_000
    expect(emulator.run(id)?.status).toBe('COMPLETE')
    seen.push(emulator.run(id)?.result ?? '')
  }
  return seen
}

const answerOf = (result: string) => extractAnswer(result)

describe('verdict scenarios', () => {
  test('verdict-pass and verdict-fail end COMPLETE with the answer block after the review', async () => {
    const [pass] = await results('verdict-pass', 0)
    expect(answerOf(pass ?? '')).toEqual({
      kind: 'json',
      value: { verdict: 'pass', reason: 'Every exported name and signature is unchanged.' }
    })
    const [fail] = await results('verdict-fail', 0)
    expect(fail).toMatch(/^## Review of the public API/)
    expect(answerOf(fail ?? '')).toMatchObject({ kind: 'json', value: { verdict: 'fail' } })
  })

  test('verdict-repaired: no block at first, the block alone on the first follow-up', async () => {
    const [first, repaired] = await results('verdict-repaired', 1)
    expect(answerOf(first ?? '')).toEqual({ kind: 'none' })
    expect(repaired).toMatch(/^```json\n/)
    expect(answerOf(repaired ?? '')).toMatchObject({ kind: 'json', value: { verdict: 'fail' } })
  })

  test('verdict-never: no block in the result, nor in three follow-ups', async () => {
    const seen = await results('verdict-never', 3)
    expect(seen.map(answerOf)).toEqual([
      { kind: 'none' },
      { kind: 'none' },
      { kind: 'none' },
      { kind: 'none' }
    ])
    expect(new Set(seen).size).toBe(4)
  })

  test('speed compresses the follow-ups too', () => {
    const fast = scenario('verdict-repaired', 10)
    expect(fast.followUps?.[0]?.steps.map(step => step.at)).toEqual([0, 60, 100])
  })
})

describe('the plan scenario', () => {
  test('a plan and nothing changed, the plan revised on the first follow-up, carried out with a pull request on the second', async () => {
    const seen = await results('plan', 2)
    expect(seen).toEqual([FIRST_PLAN, REVISED_PLAN, expect.stringMatching(/^## Added `--json`/)])
    expect(seen[2]).toContain(PLAN_PULL_REQUEST.url)
    const run = emulator.runs()[0]!
    expect(run.github_pull_requests!.map(pr => pr.url)).toEqual([PLAN_PULL_REQUEST.url])
    // Each plan's run changed nothing: its log has reads only, no edit, no pull request.
    const planned = scenario('plan')
    const tools = (script: typeof planned) => script.steps.flatMap(step => step.log?.tool_name ?? [])
    expect(tools(planned)).toEqual(['view_file', 'ripgrep_search'])
    expect(tools(planned.followUps![0]!)).toEqual(['view_file', 'ripgrep_search'])
    expect(tools(planned.followUps![1]!)).toEqual(['edit_file', 'run_command', 'create_pr'])
    expect([planned, planned.followUps![0]!].map(script => script.steps.at(-1)!.pullRequests)).toEqual([
      [],
      []
    ])
  })
})
