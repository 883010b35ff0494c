import { readAnswer as readWith, problemLine, type AnswerSpec } from '../../../src/answer/answer.js'
import { checkNow } from '../../../src/answer/check.js'
import {
  FINDINGS_PROPERTY,
  findingsCountText,
  findingsShapeProblem,
  lineRef,
  readFindings,
  type Finding
} from '../../../src/answer/findings.js'
import { answerSchema, compileSchema, VERDICT_SCHEMA, type JsonSchema } from '../../../src/answer/schema.js'

/** The answer's schema of findings: `findings: true`, with a verdict or not, or joined with output-schema. */

function spec(verdict: boolean, given?: JsonSchema): AnswerSpec {
  const schema = answerSchema(verdict, given, true)!
  const compiled = compileSchema(schema)
  if ('problem' in compiled) throw new Error(compiled.problem)
  return { verdict, findings: true, given: given !== undefined, schema, retries: 1 }
}

const readAnswer = (result: string, asked: AnswerSpec) =>
  readWith(result, asked, value => Promise.resolve(checkNow(asked.schema, value)))
const block = (value: unknown): string => `Review done.\n\n\`\`\`json\n${JSON.stringify(value)}\n\`\`\``

const GOOD = {
  path: 'src/a.ts',
  line: 12,
  end_line: 14,
  severity: 'failure',
  title: 'Off by one',
  message: 'The loop stops one short.'
}

describe('the findings asked of the agent', () => {
  test('alone: an object with findings; with a verdict: one object of verdict, reason and findings', () => {
    expect(answerSchema(false, undefined, true)).toEqual({
      type: 'object',
      properties: { findings: FINDINGS_PROPERTY },
      required: ['findings']
    })
    expect(answerSchema(true, undefined, true)).toEqual({
      type: 'object',
      properties: { ...(VERDICT_SCHEMA.properties as object), findings: FINDINGS_PROPERTY },
      required: ['verdict', 'reason', 'findings']
    })
    // Without findings, as before.
    expect(answerSchema(true, undefined)).toBe(VERDICT_SCHEMA)
  })

  test('read into plain data: end_line is line without one, title left out when empty; [] is an answer', async () => {
    const answer = await readAnswer(
      block({
        findings: [GOOD, { path: 'README.md', line: 3, severity: 'notice', message: 'Typo.', title: '' }]
      }),
      spec(false)
    )
    expect(answer).toMatchObject({
      valid: true,
      findings: [
        {
          path: 'src/a.ts',
          line: 12,
          endLine: 14,
          severity: 'failure',
          title: 'Off by one',
          message: GOOD.message
        },
        { path: 'README.md', line: 3, endLine: 3, severity: 'notice', message: 'Typo.' }
      ]
    })
    expect(await readAnswer(block({ findings: [] }), spec(false))).toMatchObject({
      valid: true,
      findings: []
    })
  })

  test('with a verdict, one block holds both', async () => {
    const answer = await readAnswer(
      block({ verdict: 'fail', reason: 'It breaks the API.', findings: [GOOD] }),
      spec(true)
    )
    expect(answer).toMatchObject({ valid: true, verdict: 'fail', findings: [{ path: 'src/a.ts' }] })
    const missing = await readAnswer(block({ verdict: 'pass', reason: 'Fine.' }), spec(true))
    expect(missing.valid ? '' : problemLine(missing.problem)).toBe(
      "the answer does not satisfy the schema: the answer must have required property 'findings'"
    )
  })

  test.each<[string, Record<string, unknown>, string]>([
    ['an absolute path', { path: '/etc/passwd' }, '/findings/0/path'],
    ['a path from a drive', { path: 'C:\\repo\\a.ts' }, '/findings/0/path'],
    ['a path of backslashes', { path: '\\\\server\\share' }, '/findings/0/path'],
    ['a .. segment', { path: 'src/../../etc/passwd' }, '/findings/0/path'],
    ['a path that is ..', { path: '..' }, '/findings/0/path'],
    ['a NUL in the path', { path: 'src/a.ts\u0000.png' }, '/findings/0/path'],
    ['a line break in the path', { path: 'src/a.ts\nb' }, '/findings/0/path'],
    ['a path of 1,025 characters', { path: 'a'.repeat(1_025) }, '/findings/0/path'],
    ['line 0', { line: 0, end_line: undefined }, '/findings/0/line'],
    ['a negative line', { line: -3, end_line: undefined }, '/findings/0/line'],
    ['a fractional line', { line: 1.5, end_line: undefined }, '/findings/0/line'],
    ['a line as text', { line: '12', end_line: undefined }, '/findings/0/line'],
    ['a line past 2³¹−1', { line: 2_147_483_648, end_line: undefined }, '/findings/0/line'],
    ['a line of 1e300', { line: 1e300, end_line: undefined }, '/findings/0/line'],
    ['an end_line past 2³¹−1', { line: 1, end_line: 2_147_483_648 }, '/findings/0/end_line'],
    ['end_line before line', { line: 14, end_line: 12 }, '/findings/0/end_line'],
    ['an unknown severity', { severity: 'error' }, '/findings/0/severity'],
    ['an empty message', { message: '' }, '/findings/0/message']
  ])('%s makes the answer invalid, at its pointer (a repair asks again)', async (_name, change, pointer) => {
    const finding = { ...GOOD, ...change }
    const answer = await readAnswer(block({ findings: [finding] }), spec(false))
    expect(answer.valid).toBe(false)
    if (answer.valid) return
    expect(answer.problem).toMatchObject({ kind: 'mismatch', errors: [expect.objectContaining({ pointer })] })
  })

  test('a line past 2³¹−1 is said as the schema says its errors: the repair names the limit', async () => {
    const answer = await readAnswer(
      block({ findings: [{ ...GOOD, line: 2 ** 31, end_line: 2 ** 31 }] }),
      spec(false)
    )
    expect(answer.valid ? '' : problemLine(answer.problem)).toBe(
      'the answer does not satisfy the schema: /findings/0/line must be <= 2147483647'
    )
  })

  test('lines up to 2³¹−1 are taken', async () => {
    const last = { ...GOOD, line: 2_147_483_646, end_line: 2_147_483_647 }
    const answer = await readAnswer(block({ findings: [last] }), spec(false))
    expect(answer).toMatchObject({ valid: true, findings: [{ line: 2_147_483_646, endLine: 2_147_483_647 }] })
  })

  test('paths that are relative are taken, dots and all', async () => {
    for (const path of ['a.ts', '.github/workflows/ci.yml', 'src/..hidden/x', 'a..b', 'a'.repeat(1_024)]) {
      const answer = await readAnswer(block({ findings: [{ ...GOOD, path }] }), spec(false))
      expect([path.slice(0, 20), answer.valid]).toEqual([path.slice(0, 20), true])
    }
  })

  test('end_line before line is said as the schema says its errors, at most five of them', async () => {
    const backwards = Array.from({ length: 9 }, () => ({ ...GOOD, line: 9, end_line: 3 }))
    const answer = await readAnswer(block({ findings: backwards }), spec(false))
    expect(answer.valid ? [] : answer.problem).toEqual({
      kind: 'mismatch',
      errors: [0, 1, 2, 3, 4].map(i => ({
        pointer: `/findings/${i}/end_line`,
        message: 'must be at least line (9)'
      }))
    })
  })

  test('the answer of a schema that could not be checked names ours', async () => {
    const asked = spec(false)
    const answer = await readWith(block({ findings: [] }), asked, () =>
      Promise.resolve({ unchecked: 'within 10 s' })
    )
    expect(answer.valid ? '' : problemLine(answer.problem)).toBe(
      "the answer could not be checked against the answer's schema within 10 s"
    )
  })
})

describe('output-schema with findings', () => {
  const FINDINGS_OF_ITS_OWN: JsonSchema = {
    type: 'object',
    properties: {
      risk: { enum: ['low', 'high'] },
      findings: {
        type: 'array',
        items: {
          type: 'object',
          properties: { path: {}, line: {}, severity: {}, message: {}, owner: { type: 'string' } },
          required: ['owner']
        }
      }
    },
    required: ['risk', 'findings']
  }

  test('a schema with a findings property of that shape is joined with ours: both hold', async () => {
    expect(findingsShapeProblem(FINDINGS_OF_ITS_OWN)).toBeUndefined()
    const asked = spec(false, FINDINGS_OF_ITS_OWN)
    const ok = await readAnswer(block({ risk: 'high', findings: [{ ...GOOD, owner: 'ana' }] }), asked)
    expect(ok).toMatchObject({ valid: true, findings: [{ path: 'src/a.ts' }] })
    const theirs = await readAnswer(block({ risk: 'high', findings: [GOOD] }), asked)
    const ours = await readAnswer(
      block({ risk: 'high', findings: [{ ...GOOD, owner: 'ana', line: 0 }] }),
      asked
    )
    expect([theirs.valid, ours.valid]).toEqual([false, false])
    const unchecked = await readWith(block({}), asked, () => Promise.resolve({ unchecked: 'within 10 s' }))
    expect(unchecked.valid ? '' : problemLine(unchecked.problem)).toMatch(
      /against output-schema within 10 s$/
    )
  })

  test('the shape is read through local references', () => {
    const referred: JsonSchema = {
      $defs: { finding: { type: 'object', properties: { path: {}, line: {}, severity: {}, message: {} } } },
      type: 'object',
      properties: { findings: { $ref: '#/$defs/list' } },
      definitions: {}
    }
    ;(referred.$defs as Record<string, unknown>).list = { type: 'array', items: { $ref: '#/$defs/finding' } }
    expect(findingsShapeProblem(referred)).toBeUndefined()
    // JSON Pointer's escapes: `~1` is a slash, `~0` a tilde.
    const escaped: JsonSchema = {
      $defs: { 'a/b~c': referred.$defs && (referred.$defs as Record<string, unknown>).list },
      type: 'object',
      properties: { findings: { $ref: '#/$defs/a~1b~0c' } }
    }
    ;(escaped.$defs as Record<string, unknown>).finding = (referred.$defs as Record<string, unknown>).finding
    expect(findingsShapeProblem(escaped)).toBeUndefined()
  })

  test.each<[string, JsonSchema]>([
    ['no findings property', { type: 'object', properties: { risk: {} } }],
    // A malformed percent escape is no definition: the input's problem, not a URIError.
    [
      'findings behind a malformed reference',
      { $defs: {}, type: 'object', properties: { findings: { $ref: '#/$defs/%zz' } } }
    ],
    ['findings of text', { type: 'object', properties: { findings: { type: 'string' } } }],
    ['findings without items', { type: 'object', properties: { findings: { type: 'array' } } }],
    [
      'items without a message',
      {
        type: 'object',
        properties: {
          findings: { type: 'array', items: { properties: { path: {}, line: {}, severity: {} } } }
        }
      }
    ],
    ['a reference that leads nowhere', { type: 'object', properties: { findings: { $ref: '#/$defs/gone' } } }]
  ])('%s: an input error that says what to add', (_name, given) => {
    expect(findingsShapeProblem(given)).toMatch(
      /^with findings: true, the schema must have a findings property of the findings’ shape \(type: array, items with the properties path, line, severity and message/
    )
  })
})

describe('counts and references', () => {
  const finding = (severity: Finding['severity'], line = 1, endLine = line): Finding => ({
    path: 'a.ts',
    line,
    endLine,
    severity,
    message: 'x'
  })

  test('the count and its split by severity, most severe first, zero counts left out', () => {
    expect(findingsCountText([])).toBe('No findings')
    expect(findingsCountText([finding('notice')])).toBe('1 finding: 1 notice')
    expect(findingsCountText([finding('warning'), finding('failure'), finding('warning')])).toBe(
      '3 findings: 1 failure, 2 warnings'
    )
    expect(
      findingsCountText([finding('notice'), finding('notice'), finding('failure'), finding('failure')])
    ).toBe('4 findings: 2 failures, 2 notices')
  })

  test('a line or a range', () => {
    expect(lineRef(finding('notice', 7))).toBe('a.ts:7')
    expect(lineRef(finding('notice', 7, 9))).toBe('a.ts:7-9')
    expect(readFindings({ findings: [{ ...GOOD, end_line: 12 }] })[0]?.endLine).toBe(12)
  })
})
