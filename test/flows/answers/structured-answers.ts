import { action as worldAction, emulator, routes, startEmulatorAsIs } from '../../support/action-world.js'
import { scenario, type RunScript } from '../../../emulator/index.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { OWN_COMMANDS, runnerCommands } from '../../support/runner-commands.js'
import { VERDICT_FAIL, completing } from '../../support/step-fixtures.js'

describe('structured-answers', () => {
  /**
   * Verdicts and structured answers (issue 19): the action as the runner runs it, in process on the
   * virtual clock, against the emulator over loopback. The repairs and bad inputs: answer-repairs.ts.
   */

  beforeEach(async () => {
    await startEmulatorAsIs()
  })

  const action = (inputs: Record<string, string>, extra: Parameters<typeof worldAction>[1] = {}) =>
    worldAction({ prompt: 'Review the change; fail it if it breaks the public API.', ...inputs }, extra)

  const fast = (name: string): RunScript => scenario(name, 20)
  const createdPrompt = (): string => (routes('create')[0]?.body as { prompt: string }).prompt
  const errorAnnotations = (stdout: string): string[] =>
    stdout.split('\n').filter(line => line.startsWith('::error::'))

  describe('verdict: true', () => {
    test('pass: the prompt asks for it, the outputs and the summary give it, the step passes', async () => {
      emulator.queueScript(fast('verdict-pass'))
      const result = await action({ verdict: 'true' })
      expect([result.exitCode, result.stderr]).toEqual([0, ''])
      const reason = 'Every exported name and signature is unchanged.'
      expect(result.outputs).toMatchObject({
        outcome: 'success',
        verdict: 'pass',
        'verdict-reason': reason,
        'structured-output': JSON.stringify({ verdict: 'pass', reason })
      })
      // The prompt as written, then the answer-format section with the verdict's schema.
      expect(createdPrompt()).toMatch(
        /^Review the change; fail it if it breaks the public API\.\n\n---\n\n\*\*Answer format\.\*\* End your final answer with one fenced `json` code block/
      )
      expect(createdPrompt()).toContain('"enum": [\n        "pass",\n        "fail"\n      ]')
      expect(routes('resume')).toHaveLength(0)
      const summary = readerText(result.summary)
      // The verdict first, below the headline; its JSON once, in the result.
      expect(summary).toMatch(
        /^✅ Agent run succeeded\n\nVerdict: ✅ pass: Every exported name and signature is unchanged\.\n/
      )
      expect(summary.match(/"verdict": "pass"/g)).toHaveLength(1)
    })

    test('fail: outcome rejected, the step fails and its annotation quotes the reason', async () => {
      emulator.queueScript(fast('verdict-fail'))
      const result = await action({ verdict: 'true' })
      expect(result.exitCode).toBe(1)
      expect(result.outputs).toMatchObject(VERDICT_FAIL)
      expect(errorAnnotations(result.stdout)).toEqual([
        expect.stringMatching(
          /^::error::The agent's verdict is fail\. Reason: It renames the exported parseLine, which v1 clients import\.%0AAgent run \d+, status COMPLETE: https:/
        )
      ])
      expect(readerText(result.summary)).toMatch(/^👎 Agent run’s verdict: fail/)
      expect(readerText(result.summary)).toMatch(/Verdict: ❌ fail: It renames the exported parseLine/)
      // fail-on without rejected: the verdict is reported, the step passes.
      emulator.queueScript(fast('verdict-fail'))
      const lenient = await action({ verdict: 'true', 'fail-on': 'failure,timeout' })
      expect([lenient.exitCode, lenient.outputs.outcome, lenient.outputs.verdict]).toEqual([
        0,
        'rejected',
        'fail'
      ])
    })
  })

  describe('output-schema', () => {
    const YAML_SCHEMA =
      'type: object\nproperties:\n  files: { type: array, items: { type: string } }\nrequired: [files]\n'
    const answer = '## Untested files\n\nTwo.\n\n```json\n{ "files": ["src/a.ts", "src/b.ts"] }\n```\n'

    test('inline YAML, or a workspace file: structured-output holds the validated answer', async () => {
      emulator.queueScript(completing(answer))
      const inline = await action({ 'output-schema': YAML_SCHEMA })
      emulator.queueScript(completing(answer))
      const file = await action(
        { 'output-schema': '.github/agent/answer.schema.json' },
        {
          files: {
            '.github/agent/answer.schema.json': JSON.stringify({
              $schema: 'https://json-schema.org/draft/2020-12/schema',
              type: 'object',
              required: ['files']
            })
          }
        }
      )
      for (const result of [inline, file]) {
        expect([result.exitCode, result.stderr]).toEqual([0, ''])
        expect(result.outputs).toMatchObject({
          outcome: 'success',
          'structured-output': '{"files":["src/a.ts","src/b.ts"]}',
          verdict: '',
          'verdict-reason': ''
        })
        // No verdict asked: no verdict row; the answer is shown.
        expect(readerText(result.summary)).not.toContain('Verdict')
      }
      const [first, second] = routes('create').map(request => (request.body as { prompt: string }).prompt)
      expect(first).toContain('"required": [\n    "files"\n  ]')
      expect(second).toContain('"$schema": "https://json-schema.org/draft/2020-12/schema"')
    })

    test('nothing asked: the prompt is sent as written, a JSON block in the result is not read', async () => {
      emulator.queueScript(completing(answer))
      const result = await action({})
      expect(result.exitCode).toBe(0)
      expect(createdPrompt()).toBe('Review the change; fail it if it breaks the public API.')
      expect(result.outputs).toMatchObject({ outcome: 'success', 'structured-output': '', verdict: '' })
      expect(readerText(result.summary)).not.toMatch(/Verdict|No valid answer/)
    })

    test('a 3 MB answer and a 100,000-deep one: invalid-output, no crash, nothing read', async () => {
      const huge = `\`\`\`json\n{"verdict": "pass", "reason": "${'x'.repeat(3_000_000)}"}\n\`\`\``
      const deep = `\`\`\`json\n${'['.repeat(100_000)}${']'.repeat(100_000)}\n\`\`\``
      for (const [text, problem] of [
        [huge, 'it is 2.9 MiB, over the 1 MiB an answer may take'],
        [deep, 'it nests deeper than 64 levels']
      ] as const) {
        emulator.queueScript(completing(text))
        const result = await action({ verdict: 'true', 'output-retries': '0' })
        expect([result.exitCode, result.stderr]).toEqual([1, ''])
        expect(result.outputs).toMatchObject({
          outcome: 'invalid-output',
          'structured-output': '',
          verdict: ''
        })
        expect(errorAnnotations(result.stdout)[0]).toContain(
          `The agent run ended without a valid answer. No valid answer: the answer's JSON could not be read: ${problem}`
        )
        expect(readerText(result.summary)).toContain(
          `No valid answer\n\nthe answer's JSON could not be read: ${problem}`
        )
        expect(runnerCommands(result.stdout).filter(command => !OWN_COMMANDS.has(command.name))).toEqual([])
      }
    })
  })
})
