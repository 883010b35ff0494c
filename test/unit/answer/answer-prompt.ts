import { problemLine, readAnswer as readWith, type AnswerSpec } from '../../../src/answer/answer.js'
import { checkNow } from '../../../src/answer/check.js'
import { answerFormatSection, repairPrompt, withAnswerFormat } from '../../../src/answer/answer-prompt.js'
import { answerSchema, compileSchema, VERDICT_SCHEMA, type JsonSchema } from '../../../src/answer/schema.js'
import { extractAnswer } from '../../../src/answer/extract.js'
import { readerText } from '../../../scripts/render-markdown.js'

function spec(verdict: boolean, given?: JsonSchema, retries = 1): AnswerSpec {
  const schema = answerSchema(verdict, given)
  if (!schema) throw new Error('nothing asked')
  const compiled = compileSchema(schema)
  if ('problem' in compiled) throw new Error(compiled.problem)
  return { verdict, schema, retries }
}

/** The answer read and checked in this thread, as the in-process checker does. */
const readAnswer = (result: string | null, asked: AnswerSpec) =>
  readWith(result, asked, value => Promise.resolve(checkNow(asked.schema, value)))

const FILES: JsonSchema = {
  type: 'object',
  properties: {
    files: { type: 'array', items: { type: 'string', description: 'a path, as in ```src/a.ts```' } }
  },
  required: ['files']
}

/** The JSON of the last json block of a Markdown text, as the agent (or extractAnswer) reads it. */
function shownSchema(markdown: string): unknown {
  const extracted = extractAnswer(markdown)
  return extracted.kind === 'json' ? extracted.value : undefined
}

describe('the answer-format section of the prompt', () => {
  test('nothing asked: the prompt is exactly what it was', async () => {
    expect(withAnswerFormat('Review pull request #7.', undefined)).toBe('Review pull request #7.')
  })

  test('a verdict: the ask in words, then the verdict schema in a json block, after the prompt', async () => {
    const prompt = withAnswerFormat('Review pull request #7.', spec(true))
    expect(prompt.startsWith('Review pull request #7.\n\n---\n\n**Answer format.**')).toBe(true)
    expect(shownSchema(prompt)).toEqual(VERDICT_SCHEMA)
    // What a person sees in Codegen's web app: a rule, the ask, the schema as code.
    const text = readerText(prompt)
    expect(text).toContain(
      'Answer format. End your final answer with one fenced json code block holding a JSON object that satisfies the JSON Schema below: the workflow that started this run reads it.'
    )
    expect(text).toContain('"verdict" is "pass" or "fail", and "reason" says why in one sentence.')
    expect(text).toContain('"enum": [\n        "pass",\n        "fail"\n      ]')
  })

  test('a schema: shown whole, in a fence longer than the backticks inside it; no verdict words', async () => {
    const section = answerFormatSection(spec(false, FILES))
    expect(shownSchema(section)).toEqual(FILES)
    expect(section).toContain('\n````json\n')
    expect(section).not.toContain('verdict')
  })

  test('a schema of 600 KB with 300,000 runs of backticks (a file may hold 1 MiB) is fenced without a throw', async () => {
    const many: JsonSchema = { type: 'object', description: '`a'.repeat(299_999) + '```' }
    const section = answerFormatSection(spec(false, many))
    expect(section).toContain('\n````json\n')
    expect(shownSchema(section)).toEqual(many)
  })

  test('both: the given schema with the verdict in its allOf', async () => {
    expect(shownSchema(answerFormatSection(spec(true, FILES)))).toEqual({ ...FILES, allOf: [VERDICT_SCHEMA] })
  })

  test('findings: asked for in words after the verdict, in the same block, and again in a repair', async () => {
    const schema = answerSchema(true, undefined, true)!
    const asked: AnswerSpec = { verdict: true, findings: true, schema, retries: 1 }
    const section = answerFormatSection(asked)
    expect(shownSchema(section)).toEqual(schema)
    const text = readerText(section)
    expect(text).toContain(
      '"verdict" is "pass" or "fail", and "reason" says why in one sentence. List each problem you found in the code as an item of "findings": the file\'s "path" from the repository\'s root, the "line" it is about in the file as it is at the commit you worked on (and "end_line" for a range), its "severity" ("failure", "warning" or "notice"), a short "title" and the "message"; "findings" is [] when you found none.'
    )
    expect(readerText(repairPrompt(asked, { kind: 'missing' }))).toContain('as an item of "findings"')
    // Without findings, no word of them.
    expect(answerFormatSection(spec(true))).not.toContain('findings')
  })
})

describe('readAnswer and the repair prompt', () => {
  const verdict = spec(true)

  test('a valid verdict: compact JSON, the verdict and the reason', async () => {
    const result =
      'The API is intact.\n\n```json\n{\n  "verdict": "pass",\n  "reason": "No export changed."\n}\n```'
    expect(await readAnswer(result, verdict)).toEqual({
      valid: true,
      value: { verdict: 'pass', reason: 'No export changed.' },
      verdict: 'pass',
      reason: 'No export changed.'
    })
    expect(await readAnswer('```json\n{"files": []}\n```', spec(false, FILES))).toEqual({
      valid: true,
      value: { files: [] }
    })
  })

  test('no block: the repair names it and asks for the block alone, with the schema again', async () => {
    const answer = await readAnswer('I reviewed it; it breaks the API.', verdict)
    expect(answer).toEqual({ valid: false, problem: { kind: 'missing' } })
    if (answer.valid) return
    expect(problemLine(answer.problem)).toBe('the final answer has no fenced json block')
    const repair = repairPrompt(verdict, answer.problem)
    expect(readerText(repair).split('\n').filter(Boolean).slice(0, 3)).toEqual([
      'Your final answer did not end with the fenced json block this run was asked for.',
      'Reply with that block alone: one fenced json code block holding a JSON object that satisfies this JSON Schema. Decide whether the work passes: "verdict" is "pass" or "fail", and "reason" says why in one sentence.',
      '{'
    ])
    expect(shownSchema(repair)).toEqual(VERDICT_SCHEMA)
  })

  test('an answer that misses the schema: the repair lists the errors with their pointers', async () => {
    const answer = await readAnswer('```json\n{"verdict": "maybe"}\n```', verdict)
    expect(answer).toEqual({
      valid: false,
      problem: {
        kind: 'mismatch',
        errors: [
          { pointer: '', message: "must have required property 'reason'" },
          { pointer: '/verdict', message: 'must be equal to one of the allowed values: "pass", "fail"' }
        ]
      }
    })
    if (answer.valid) return
    expect(problemLine(answer.problem)).toBe(
      "the answer does not satisfy the schema: the answer must have required property 'reason'"
    )
    expect(readerText(repairPrompt(verdict, answer.problem)).split('\n').filter(Boolean).slice(0, 3)).toEqual(
      [
        'The JSON of your final answer does not satisfy the schema:',
        "the answer: must have required property 'reason'",
        '/verdict: must be equal to one of the allowed values: "pass", "fail"'
      ]
    )
  })

  test('an unreadable block: the repair says why, without quoting it', async () => {
    const answer = await readAnswer(`\`\`\`json\n${'['.repeat(100_000)}\n\`\`\``, verdict)
    expect(answer).toEqual({
      valid: false,
      problem: { kind: 'unreadable', problem: 'it nests deeper than 64 levels' }
    })
    if (answer.valid) return
    expect(problemLine(answer.problem)).toBe(
      "the answer's JSON could not be read: it nests deeper than 64 levels"
    )
    expect(repairPrompt(verdict, answer.problem).split('\n')[0]).toBe(
      'The `json` block of your final answer could not be read: it nests deeper than 64 levels.'
    )
  })

  test('a missing result reads as no answer', async () => {
    expect(await readAnswer(null, verdict)).toEqual({ valid: false, problem: { kind: 'missing' } })
  })
})
