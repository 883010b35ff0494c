import { OWN_COMMENT_MARK } from '../../../src/github-shapes.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { checksOn, commentOn, emulator, github, pullRequestEvent, step } from '../../support/check-world.js'
import { completing } from '../../support/step-fixtures.js'

/**
 * No throw ends the step unreported (issue 26), in process on the virtual clock: a schema that refers
 * to itself compiles, and checking any answer against it overflows the stack. The step reports it as
 * the answer's problem: outputs written, the check and the tracking comment concluded. The bundle's
 * worker thread meeting the same schema: answer-bounds.test.ts (npm run test:bounds).
 */

const SELF_REFERRING = '{"allOf":[{"$ref":"#"}]}'
const PROBLEM =
  'the answer could not be checked against output-schema (the check threw RangeError: Maximum call stack size exceeded; does the schema refer to itself without end?)'

const reviewed = completing('Reviewed.\n\n```json\n{"files": []}\n```', 20)

test('on a pull request comment: invalid-output, the check and the tracking comment concluded', async () => {
  emulator.queueScript(reviewed)
  const result = await step(commentOn(7, '/codegen review it'), {
    'output-schema': SELF_REFERRING,
    'output-retries': '0'
  })
  expect(result.exitCode).toBe(1)
  const run = emulator.runs()[0]!
  expect(result.outputs).toMatchObject({
    outcome: 'invalid-output',
    'agent-run-id': String(run.id),
    status: 'COMPLETE'
  })
  const errors = result.stdout.split('\n').filter(line => line.startsWith('::error::'))
  expect(errors).toEqual([expect.stringContaining(`No valid answer: ${PROBLEM}`)])
  expect(result.stdout + result.stderr).not.toMatch(/\n\s+at |%0A\s+at /)
  expect(readerText(result.summary)).toContain(`No valid answer\n\n${PROBLEM}`)
  expect(checksOn(7)).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'failure' })])
  const [tracking, ...others] = github.comments(7).filter(comment => comment.body.includes(OWN_COMMENT_MARK))
  expect(others).toEqual([])
  expect(tracking!.body).not.toContain('is working')
  expect(readerText(tracking!.body)).toContain(PROBLEM)
})

test('many runs: each reports the problem as its own, the check concluded with them', async () => {
  emulator.queueScript(reviewed)
  emulator.queueScript(reviewed)
  const event = pullRequestEvent(9)
  const result = await step(event, {
    'check-run': 'true',
    'output-schema': SELF_REFERRING,
    'output-retries': '0',
    runs: '- name: docs\n  prompt: Review the docs\n- name: sdk\n  prompt: Review the SDK'
  })
  expect(result.outputs['outcome']).toBe('invalid-output')
  const runs = JSON.parse(result.outputs['runs'] ?? '[]') as Array<Record<string, string>>
  expect(runs.map(item => [item.name, item.outcome, item.status])).toEqual([
    ['docs', 'invalid-output', 'COMPLETE'],
    ['sdk', 'invalid-output', 'COMPLETE']
  ])
  expect(readerText(result.summary)).toContain(PROBLEM)
  expect(checksOn(9)).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'failure' })])
})
