import { readerText } from '../../../scripts/render-markdown.js'
import {
  checksOn,
  commentOn,
  emulator,
  pullRequestEvent,
  step,
  warningsOf
} from '../../support/check-world.js'
import { commandTexts } from '../../support/runner-commands.js'

/**
 * A gate that asked for an answer never goes green without one (issue 43): with verdict,
 * output-schema or findings, a run that ends paused with a question fails the step and its check
 * under the default fail-on, the annotation saying that the agent asked and how to answer it; a
 * fail-on written without paused keeps the pass. In process on the virtual clock, against the
 * emulator (its `paused` scenario: PAUSED at 3.4 s with its question) and the fake GitHub.
 */

const QUESTION = 'Waiting for an answer: remove `legacyMode`, or only document it?'
/** The question as a check's title shows it: plain text, GitHub shows no Markdown there. */
const TITLE_QUESTION = QUESTION.replace(/`/g, '')
const SCHEMA = '{"type": "object", "properties": {"files": {"type": "array"}}, "required": ["files"]}'

/** The step's error annotations as the runner shows them. */
const errorsOf = (stdout: string): string[] => commandTexts(stdout, 'error')

/** review-gate.yml's step on pull request 7: the check "Codegen review" on its head, the run pausing. */
const gate = (inputs: Record<string, string>) =>
  step(pullRequestEvent(7), {
    prompt: 'Review it [emulator:paused]',
    'check-run': 'true',
    'check-name': 'Codegen review',
    ...inputs
  })

test.each([
  ['verdict: true', { verdict: 'true' }, 'verdict'],
  ['output-schema', { 'output-schema': SCHEMA }, 'answer'],
  ['findings: true', { findings: 'true' }, 'findings']
])(
  '%s, the run paused: the step fails saying the agent asked and how to answer, the check concludes failure',
  async (_, inputs, asked) => {
    const result = await gate(inputs)
    const run = emulator.runs()[0]!
    expect([result.exitCode, result.outputs['outcome']]).toEqual([1, 'paused'])
    expect(errorsOf(result.stdout)).toEqual([
      [
        `The agent paused with a question instead of giving its ${asked}.`,
        `The agent’s question: ${QUESTION}`,
        `Answer by resuming the run in a step with \`agent-run-id: ${run.id}\` and the answer as \`prompt\`.`,
        `Agent run ${run.id}, status PAUSED: ${run.web_url}`
      ].join('\n')
    ])
    expect(warningsOf(result)).toEqual([])
    const [check, ...others] = checksOn(7)
    expect(others).toEqual([])
    expect(check).toMatchObject({ name: 'Codegen review', status: 'completed', conclusion: 'failure' })
    // Red, and saying so: the ending and the question, never "fail-on lets it pass".
    expect(check!.output.title).toBe(`Paused, waiting for an answer: ${TITLE_QUESTION}`)
    const summary = readerText(check!.output.summary!)
    expect(summary).toContain(`Answer by resuming the run in a step with agent-run-id: ${run.id}`)
    expect(summary).not.toMatch(/This check passes/)
    // Ended when the run paused, polled each second: 3.4 s, the next look at 4 s.
    expect(result.durationMs).toBe(4_000)
  }
)

test('fail-on written without paused keeps the pass: the check is green, saying why, and the question is a warning', async () => {
  const result = await gate({ verdict: 'true', 'fail-on': 'failure,timeout,rejected,invalid-output' })
  const run = emulator.runs()[0]!
  expect([result.exitCode, result.outputs['outcome']]).toEqual([0, 'paused'])
  expect(errorsOf(result.stdout)).toEqual([])
  expect(warningsOf(result)).toEqual([
    expect.stringMatching(
      new RegExp(
        `^::warning::The agent run paused\\. The agent’s question: .*legacyMode.*%0AAnswer by resuming the run in a step with \`agent-run-id: ${run.id}\``
      )
    )
  ])
  const [check] = checksOn(7)
  expect(check).toMatchObject({ status: 'completed', conclusion: 'success' })
  expect(check!.output.title).toBe(`Paused, waiting for an answer (fail-on lets it pass): ${TITLE_QUESTION}`)
  expect(readerText(check!.output.summary!)).toContain(
    'This check passes as the step does: fail-on: failure,timeout,rejected,invalid-output lets this ending pass.'
  )
})

test('a /codegen review that pauses on its pull request: red, answered there with the phrase or from a step', async () => {
  const result = await step(commentOn(8, '/codegen review [emulator:paused]'), { verdict: 'true' })
  const run = emulator.runs()[0]!
  expect([result.exitCode, result.outputs['outcome']]).toEqual([1, 'paused'])
  expect(errorsOf(result.stdout)).toEqual([
    [
      'The agent paused with a question instead of giving its verdict.',
      `The agent’s question: ${QUESTION}`,
      `Answer with a comment \`/codegen <answer>\` on the issue or pull request that asked for it, or resume the run in a step with \`agent-run-id: ${run.id}\` and the answer as \`prompt\`.`,
      `Agent run ${run.id}, status PAUSED: ${run.web_url}`
    ].join('\n')
  ])
  expect(checksOn(8)).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'failure' })])
  expect(readerText(checksOn(8)[0]!.output.summary!)).toContain(
    'Answer with a comment /codegen <answer> on the pull request'
  )
})

test('runs with a verdict: the paused run fails the step and the one check, its question and how to answer below its name', async () => {
  const result = await step(pullRequestEvent(9), {
    'check-run': 'true',
    verdict: 'true',
    runs: '- name: docs\n  prompt: Review the docs [emulator:verdict-pass]\n- name: sdk\n  prompt: Review the SDK [emulator:paused]'
  })
  const sdk = emulator.runs().find(run => run.prompt.startsWith('Review the SDK'))!
  expect([result.exitCode, result.outputs['outcome']]).toEqual([1, 'paused'])
  expect(errorsOf(result.stdout)).toEqual([
    [
      '1 of 2 agent runs failed the step:',
      `- sdk: paused, The agent paused with a question, waiting for an answer. (agent run ${sdk.id}: ${sdk.web_url})`,
      `  The agent’s question: ${QUESTION}`,
      `  Answer by resuming the run in a step with \`agent-run-id: ${sdk.id}\` and the answer as \`prompt\`.`
    ].join('\n')
  ])
  expect(checksOn(9)).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'failure' })])
})
