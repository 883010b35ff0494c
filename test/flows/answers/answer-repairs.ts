import type { RunnerOptions } from '../../../scripts/runner-process.js'
import { action as worldAction, emulator, routes, startEmulatorAsIs } from '../../support/action-world.js'
import { scenario } from '../../../emulator/index.js'
import { readerText } from '../../../scripts/render-markdown.js'

describe('answer-repairs', () => {
  /**
   * Repairs of an answer and bad answer inputs: the action as the runner runs it, in process on the
   * virtual clock, against the emulator, whose verdict-repaired and verdict-never runs answer their
   * follow-ups the scripted way.
   */

  beforeEach(async () => {
    await startEmulatorAsIs()
  })

  const action = (inputs: Record<string, string>, extra: Parameters<typeof worldAction>[1] = {}) =>
    worldAction({ prompt: 'Review the change; fail it if it breaks the public API.', ...inputs }, extra)

  const resumePrompts = (): string[] =>
    routes('resume').map(request => (request.body as { prompt: string }).prompt)
  /** The job log as a reader sees it: workflow commands hidden. */
  const consoleText = (stdout: string): string =>
    stdout
      .split('\n')
      .filter(line => !line.startsWith('::'))
      .join('\n')

  describe('repairs', () => {
    test('no block at first: one resume asks for it, and the resumed run’s answer is the one read', async () => {
      emulator.queueScript(scenario('verdict-repaired', 20))
      const result = await action({ verdict: 'true' })
      expect(result.outputs).toMatchObject({
        outcome: 'rejected',
        verdict: 'fail',
        'verdict-reason': 'It renames the exported parseLine, which v1 clients import.'
      })
      const [repair, ...more] = resumePrompts()
      expect(more).toEqual([])
      expect(repair).toMatch(
        /^Your final answer did not end with the fenced `json` block this run was asked for\.\n\nReply with that block alone: one fenced `json` code block/
      )
      // The result read is the resumed run's (the block alone), not the first one's.
      expect(result.outputs.result).toMatch(/^```json\n/)
      expect(consoleText(result.stdout)).toContain(
        'No valid answer (the final answer has no fenced json block): asking the agent to repair it (1 of 1).'
      )
      expect(readerText(result.summary)).toContain(
        'The agent was asked to repair its answer once (the final answer has no fenced json block).'
      )
      // The log of both the run and its repair, in one file.
      const run = emulator.runs()[0]!
      expect(result.outputs['log-count']).toBe(String(run.logs.length))
    })

    test.each([
      ['1', 1],
      ['0', 0]
    ])('never valid, output-retries %s: %i resumes, then invalid-output', async (retries, resumes) => {
      emulator.queueScript(scenario('verdict-never', 20))
      const result = await action({ verdict: 'true', 'output-retries': retries })
      expect(result.exitCode).toBe(1)
      expect(result.outputs).toMatchObject({ outcome: 'invalid-output', status: 'COMPLETE', verdict: '' })
      expect(resumePrompts()).toHaveLength(resumes)
      const annotation = result.stdout.split('\n').find(line => line.startsWith('::error::')) ?? ''
      expect(annotation).toMatch(
        new RegExp(
          `^::error::The agent run ended without a valid answer\\. No valid answer${resumes ? ' \\(after 1 repair\\)' : ''}: the final answer has no fenced json block%0AAgent run \\d+`
        )
      )
    })

    test('an answer that misses the schema: the follow-up names the errors with their pointers', async () => {
      emulator.queueScript({
        steps: [
          { at: 0, status: 'ACTIVE' },
          { at: 50, status: 'COMPLETE', result: '```json\n{"verdict": "maybe", "reason": "unsure"}\n```' }
        ],
        followUps: [
          {
            steps: [
              { at: 0, status: 'ACTIVE' },
              { at: 50, status: 'COMPLETE', result: '```json\n{"verdict": "pass", "reason": "Fine."}\n```' }
            ]
          }
        ]
      })
      const result = await action({ verdict: 'true' })
      expect(result.outputs).toMatchObject({ outcome: 'success', verdict: 'pass', 'verdict-reason': 'Fine.' })
      expect(resumePrompts()[0]).toMatch(
        /^The JSON of your final answer does not satisfy the schema:\n- `\/verdict`: must be equal to one of the allowed values: "pass", "fail"\n/
      )
    })
    test('a finding on a line past 2³¹−1: the follow-up names the limit, and the repaired findings are the ones read', async () => {
      const answer = (line: number) =>
        `\`\`\`json\n${JSON.stringify({ findings: [{ path: 'src/a.ts', line, severity: 'warning', message: 'Off by one.' }] })}\n\`\`\``
      const complete = (line: number) => [
        { at: 0, status: 'ACTIVE' },
        { at: 50, status: 'COMPLETE', result: answer(line) }
      ]
      emulator.queueScript({ steps: complete(2_147_483_648), followUps: [{ steps: complete(12) }] })
      const result = await action({ findings: 'true' })
      expect(result.outputs['outcome']).toBe('success')
      expect(JSON.parse(result.outputs['findings']!)).toEqual([
        { path: 'src/a.ts', line: 12, severity: 'warning', message: 'Off by one.' }
      ])
      const [repair, ...more] = resumePrompts()
      expect(more).toEqual([])
      expect(repair).toMatch(
        /^The JSON of your final answer does not satisfy the schema:\n- `\/findings\/0\/line`: must be <= 2147483647\n/
      )
      expect(consoleText(result.stdout)).toContain(
        'No valid answer (the answer does not satisfy the schema: /findings/0/line must be <= 2147483647): asking the agent to repair it (1 of 1).'
      )
    })
  })

  describe('bad answer inputs', () => {
    test('each is refused naming the input, before any request', async () => {
      const cases: Array<[Record<string, string>, Partial<RunnerOptions>, string]> = [
        [{ 'output-schema': '{"type": "objekt"}' }, {}, 'output-schema: it is not a valid JSON Schema'],
        [{ 'output-schema': 'type: [object' }, {}, 'output-schema: it is neither JSON nor YAML'],
        [
          { 'output-schema': 'schemas/missing.json' },
          {},
          'output-schema: the file "schemas/missing.json" is not in the workspace'
        ],
        [
          { 'output-schema': '../outside.json' },
          { files: { '../outside.json': '{"type": "object"}' } },
          'output-schema: the file "../outside.json" is outside the workspace'
        ],
        [{ 'output-retries': '4' }, {}, 'output-retries: expected a whole number from 0 to 3, got "4"'],
        [
          { verdict: 'true', task: 'check' },
          {},
          'verdict: not used with task check, which starts no run; remove it'
        ],
        [
          { 'output-schema': 'answer.yml', task: 'setup-commands' },
          { files: { 'answer.yml': 'type: object' } },
          'output-schema: not used with task setup-commands, whose result is the setup commands; remove it'
        ]
      ]
      // One step after another: steps of the real runner run one at a time in process.
      for (const [inputs, extra, problem] of cases) {
        const result = await action(inputs, extra)
        expect(result.exitCode).toBe(1)
        expect(result.stdout).toContain(`::error::Invalid input: ${problem}`)
      }
      expect(emulator.requests).toEqual([])
    })
  })
})
