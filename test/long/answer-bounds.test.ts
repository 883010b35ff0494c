import type { RunScript } from '../../emulator/index.js'
import { readerText } from '../../scripts/render-markdown.js'
import { BundleWorld, expectEndedOnItsOwn, type BundleOptions } from '../support/bundle-world.js'

/**
 * The answer's check held to the step's time, end to end (issue 26): the bundled action, run as the
 * runner runs it, checks the agent's answer in a worker thread it stops at the check's time
 * (10 s, or what is left before timeout-minutes) or at the job's cancellation. A long suite
 * (`npm run test:bounds`, alone): each check burns a core until it is stopped, by design.
 */

const world = new BundleWorld()
const emulator = () => world.emulator
const routes = (route: string) => world.routes(route)

// A check that held the process (120 s for the first repro, for ever for the second) is killed at 45 s.
async function action(inputs: Record<string, string>, extra: Partial<BundleOptions> = {}) {
  const result = await world.step({
    inputs: { prompt: 'List the ids.', 'timeout-minutes': '0.25', ...inputs },
    killAfterMs: 45_000,
    ...extra
  })
  expectEndedOnItsOwn(result)
  return result
}

/** A run that completes at once with this answer in a json block. */
const completing = (json: string): RunScript => ({
  steps: [
    { at: 0, status: 'ACTIVE' },
    { at: 50, status: 'COMPLETE', result: `The ids.\n\n\`\`\`json\n${json}\n\`\`\`` }
  ]
})

/** The action has read the run completed (100 ms after its create: completed 50 ms after it). */
const completedSeen = (): boolean => {
  const created = routes('create')[0]?.at
  return created !== undefined && routes('get').some(get => get.at >= created + 100 && get.status === 200)
}
const errorAnnotations = (stdout: string): string[] =>
  stdout.split('\n').filter(line => line.startsWith('::error::'))

/** 123,456 arrays of one number: Ajv's uniqueItems compares every pair (about 120 s). */
const UNIQUE = '{"type":"object","properties":{"xs":{"type":"array","uniqueItems":true}}}'
const MANY_ITEMS = JSON.stringify({ xs: Array.from({ length: 123_456 }, (_, i) => [i]) })
/** A pattern whose backtracking doubles with every "a" of a string that then fails. */
const BACKTRACKING = '{"type":"object","properties":{"s":{"type":"string","pattern":"^(a+)+$"}}}'
const FAILING_STRING = JSON.stringify({ s: `${'a'.repeat(5_000)}b` })

test('SIGINT while 123,456 items are checked for uniqueItems: cancelled, outputs and summary written within seconds', async () => {
  expect(Buffer.byteLength(MANY_ITEMS)).toBeLessThan(1024 * 1024)
  emulator().queueScript(completing(MANY_ITEMS))
  const result = await action(
    { 'output-schema': UNIQUE },
    {
      // Once the completed run was read, and a moment more for the check to be under way.
      cancel: { signal: 'SIGINT', when: completedSeen, notBeforeMs: 1_500 }
    }
  )
  expect(result.cancelledAtMs).toBeDefined()
  // The runner kills the step 7.5 s after SIGINT: the check is stopped, not waited for.
  expect(result.durationMs - result.cancelledAtMs!).toBeLessThan(5_000)
  expect(result.exitCode).toBe(1)
  const run = emulator().runs()[0]!
  expect(result.outputs).toMatchObject({
    outcome: 'cancelled',
    'agent-run-id': String(run.id),
    status: 'COMPLETE',
    'structured-output': ''
  })
  const summary = readerText(result.summary).slice(0, 500)
  expect(summary).toMatch(
    new RegExp(`^🛑 Job cancelled while following the agent run\\s+Agent run \\| +#${run.id} \\|`)
  )
})

test.each([
  ['uniqueItems over 123,456 items', UNIQUE, MANY_ITEMS],
  ['a backtracking pattern', BACKTRACKING, FAILING_STRING]
])(
  '%s past its time: invalid-output with the reason, the step ends within its time',
  async (_, schema, answer) => {
    emulator().queueScript(completing(answer))
    const result = await action({ 'output-schema': schema, 'output-retries': '1' })
    // timeout-minutes 0.25: the check's 10 s fit in it; the step ends a few seconds past them.
    expect(result.durationMs).toBeLessThan(25_000)
    expect(result.exitCode).toBe(1)
    const problem = 'the answer could not be checked against output-schema within 10 s'
    expect(result.outputs).toMatchObject({
      outcome: 'invalid-output',
      status: 'COMPLETE',
      'structured-output': ''
    })
    expect(errorAnnotations(result.stdout)).toEqual([
      expect.stringContaining(`The agent run ended without a valid answer. No valid answer: ${problem}`)
    ])
    expect(readerText(result.summary).slice(0, 2_000)).toContain(`No valid answer\n\n${problem}`)
    // A check that could not finish is not the agent's to repair.
    expect(routes('resume')).toEqual([])
  }
)

test('less time left than 10 s: the check gets what is left of timeout-minutes', async () => {
  emulator().queueScript(completing(FAILING_STRING))
  const result = await action({ 'output-schema': BACKTRACKING, 'timeout-minutes': '0.1' })
  expect(result.durationMs).toBeLessThan(6_000 + 10_000)
  expect(result.outputs.outcome).toBe('invalid-output')
  expect(errorAnnotations(result.stdout)[0]).toMatch(
    /No valid answer: the answer could not be checked against output-schema within [1-6](\.\d)? s/
  )
})

test('a schema that refers to itself: one clear problem, no stack trace, outputs and summary written', async () => {
  emulator().queueScript(completing('{"xs": []}'))
  const result = await action({ 'output-schema': '{"allOf":[{"$ref":"#"}]}', 'output-retries': '0' })
  expect(result.exitCode).toBe(1)
  expect(result.outputs).toMatchObject({ outcome: 'invalid-output', status: 'COMPLETE' })
  const [annotation, ...others] = errorAnnotations(result.stdout)
  expect(others).toEqual([])
  expect(annotation).toContain(
    'No valid answer: the answer could not be checked against output-schema (the check threw RangeError: Maximum call stack size exceeded; does the schema refer to itself without end?)'
  )
  expect(annotation).not.toMatch(/\bat .*\.js:\d+/)
  expect(readerText(result.summary)).toContain('No valid answer')
})
