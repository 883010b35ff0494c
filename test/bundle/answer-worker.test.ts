import { scenario } from '../../emulator/index.js'
import { BundleWorld, expectEndedOnItsOwn } from '../support/bundle-world.js'
import { VERDICT_FAIL, completing } from '../support/step-fixtures.js'

/**
 * The agent's answer checked as the bundle checks it: in a worker thread started from dist/index.js
 * itself (answer/check-worker.ts), which the step stops when done. In process, tests check answers in
 * their own thread; only here does the worker run. Answers, repairs and their texts: test/flows;
 * checks that overrun their time: test/long/answer-bounds.test.ts.
 */

const world = new BundleWorld()

test('verdict: true, the agent answers fail: the step rejected (exit code 1), verdict and reason in the outputs', async () => {
  world.emulator.queueScript(scenario('verdict-fail', 20))
  const result = await world.step({
    inputs: { prompt: 'Does this change break the public API?', verdict: 'true' }
  })
  expectEndedOnItsOwn(result)
  expect(result.exitCode).toBe(1)
  expect(result.outputs).toMatchObject(VERDICT_FAIL)
  expect(JSON.parse(result.outputs['structured-output']!)).toEqual({
    verdict: 'fail',
    reason: VERDICT_FAIL['verdict-reason']
  })
  expect(result.stdout.split('\n').filter(line => line.startsWith('::error::'))).toEqual([
    expect.stringContaining('It renames the exported parseLine')
  ])
  // Read once: no repair of a valid answer.
  expect(world.routes('resume')).toEqual([])
})

test('output-schema from a file of the workspace: the answer checked against it, structured-output set, the step passes', async () => {
  const answer = { ids: [3, 5, 8], complete: true }
  world.emulator.queueScript(completing(`The ids.\n\n\`\`\`json\n${JSON.stringify(answer)}\n\`\`\``))
  const schema = {
    type: 'object',
    required: ['ids', 'complete'],
    properties: {
      ids: { type: 'array', items: { type: 'integer' }, uniqueItems: true },
      complete: { type: 'boolean' }
    },
    additionalProperties: false
  }
  const result = await world.step({
    inputs: { prompt: 'List the ids.', 'output-schema': '.github/ids.schema.json' },
    files: { '.github/ids.schema.json': JSON.stringify(schema) }
  })
  expectEndedOnItsOwn(result)
  expect(result.exitCode).toBe(0)
  expect(result.outputs.outcome).toBe('success')
  expect(JSON.parse(result.outputs['structured-output']!)).toEqual(answer)
  // The schema was read from the file: its required fields are in the prompt's answer section.
  expect((world.routes('create')[0]!.body as { prompt: string }).prompt).toContain('"complete"')
})
