import { scenario } from '../../emulator/index.js'
import { readerText, renderMarkdown } from '../../scripts/render-markdown.js'
import { InProcessWorld } from '../support/in-process-world.js'

/** Verdicts and repairs through runAction in process (virtual time): what the runner is handed. */

const world = new InProcessWorld()

const completing = (result: string, at = 1_000) => ({
  steps: [
    { at: 0, status: 'ACTIVE' },
    { at, status: 'COMPLETE', result }
  ]
})

test('a repaired verdict: one resume, its answer read, the console and the summary say so', async () => {
  await world.startEmulator()
  world.emulator.queueScript(scenario('verdict-repaired'))
  const { runner, failure } = await world.step({ verdict: 'true', 'org-id': '1' })
  expect(failure).toMatch(/^The agent's verdict is fail\. Reason: It renames the exported parseLine/)
  expect(runner.outputs).toMatchObject({ outcome: 'rejected', verdict: 'fail' })
  expect(world.routes('resume')).toHaveLength(1)
  expect(runner.lines).toContain(
    'No valid answer (the final answer has no fenced json block): asking the agent to repair it (1 of 1).'
  )
  // Both endings' entries, mirrored once each, in the step's one log file.
  const run = world.emulator.runs()[0]!
  expect(runner.outputs['log-count']).toBe(String(run.logs.length))
  expect(runner.outputs['log-file']).toMatch(new RegExp(`codegen-agent-run-${run.id}\\.jsonl$`))
  expect(readerText(runner.summary)).toMatch(/Verdict \| +❌ fail: It renames the exported parseLine/)
})

test('the answer is service text: a secret in it is redacted in the outputs and the summary', async () => {
  await world.startEmulator()
  world.emulator.queueScript(
    completing('```json\n{"verdict": "pass", "reason": "The key emulator-token is fine @octocat <b>"}\n```')
  )
  const { runner, failure } = await world.step({ verdict: 'true', 'org-id': '1' })
  expect(failure).toBeUndefined()
  expect(runner.outputs['verdict-reason']).toBe('The key *** is fine @octocat <b>')
  expect(JSON.parse(runner.outputs['structured-output']!)).toEqual({
    verdict: 'pass',
    reason: 'The key *** is fine @octocat <b>'
  })
  expect(runner.summary).not.toContain('emulator-token')
  // Shown as written: as text or code, never as HTML.
  expect(renderMarkdown(runner.summary)).not.toContain('<b>')
  expect(readerText(runner.summary)).toContain('✅ pass: The key *** is fine @\u2060octocat <b>')
})

test('a repair that does not end in time: outcome timeout, the last problem and the repair shown', async () => {
  await world.startEmulator()
  world.emulator.queueScript({
    ...completing('No block here.'),
    followUps: [{ steps: [{ at: 0, status: 'ACTIVE' }] }]
  })
  const { runner, failure } = await world.step({ 'output-schema': '{"type": "object"}', 'org-id': '1' })
  expect(failure).toMatch(/did not end within timeout-minutes/)
  expect(runner.outputs).toMatchObject({ outcome: 'timeout', 'structured-output': '' })
  expect(readerText(runner.summary)).toContain(
    'No valid answer\n\nthe final answer has no fenced json block\n\nThe agent was asked to repair its answer once (the final answer has no fenced json block).'
  )
})
