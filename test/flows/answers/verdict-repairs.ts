import { scenario } from '../../../emulator/index.js'
import { readerText, renderMarkdown } from '../../../scripts/render-markdown.js'
import { InProcessWorld } from '../../support/in-process-world.js'

describe('verdict-repairs', () => {
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
    expect(readerText(runner.summary)).toMatch(/Verdict: ❌ fail: It renames the exported parseLine/)
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

  test('a token broken inside a JSON string: no form of it in structured-output, as in the summary', async () => {
    await world.startEmulator()
    // In the JSON text the breaks are escapes (two characters): the output is made from the redacted value.
    world.emulator.queueScript(
      completing('```json\n{"verdict": "pass", "reason": "emulator-\\ntoken and emulator\\t-token"}\n```')
    )
    const { runner } = await world.step({ verdict: 'true', 'org-id': '1' })
    expect(runner.outputs['structured-output']).toBe('{"verdict":"pass","reason":"*** and ***"}')
    expect(runner.outputs['verdict-reason']).toBe('*** and ***')
    expect(JSON.stringify(runner.outputs)).not.toMatch(/emulator|token/)
  })

  test('an answer 64 levels deep: structured-output is all of it, as read', async () => {
    await world.startEmulator()
    const deep = `${'['.repeat(63)}{"verdict": "pass", "reason": "Deep."}${']'.repeat(63)}`
    world.emulator.queueScript(completing(`\`\`\`json\n${deep}\n\`\`\``))
    const { runner } = await world.step({ 'output-schema': '{"type": "array"}', 'org-id': '1' })
    expect(runner.outputs['structured-output']).toBe(JSON.stringify(JSON.parse(deep)))
  })

  test('a check that throws: the step reports it, outputs and summary written, one line without a stack', async () => {
    await world.startEmulator()
    world.emulator.queueScript(completing('```json\n{"verdict": "pass", "reason": "Fine."}\n```'))
    const { runner, failure } = await world.step(
      { verdict: 'true', 'org-id': '1' },
      { checkAnswer: () => Promise.reject(new TypeError('the checker broke')) }
    )
    expect(failure).toBe('Unexpected error: TypeError: the checker broke')
    const run = world.emulator.runs()[0]!
    expect(runner.outputs).toMatchObject({
      outcome: 'error',
      'agent-run-id': String(run.id),
      status: 'COMPLETE'
    })
    expect(readerText(runner.summary)).toContain('Unexpected error: TypeError: the checker broke')
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
})
