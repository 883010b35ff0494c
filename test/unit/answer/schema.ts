import { answerSchema, compileSchema, VERDICT_SCHEMA, type JsonSchema } from '../../../src/answer/schema.js'

function validator(schema: JsonSchema) {
  const compiled = compileSchema(schema)
  if ('problem' in compiled) throw new Error(compiled.problem)
  return compiled.validate
}

function problemOf(schema: JsonSchema): string {
  const compiled = compileSchema(schema)
  return 'problem' in compiled ? compiled.problem : ''
}

describe('compileSchema', () => {
  test('draft-07 by default: errors are JSON pointers and messages, the first five', () => {
    const validate = validator({
      type: 'object',
      properties: { files: { type: 'array', items: { type: 'string' } }, count: { type: 'integer' } },
      required: ['files', 'count']
    })
    expect(validate({ files: ['a'], count: 1 })).toEqual([])
    expect(validate({ files: ['a', 2], count: 'x' })).toEqual([
      { pointer: '/files/1', message: 'must be string' },
      { pointer: '/count', message: 'must be integer' }
    ])
    expect(validate({})).toEqual([
      { pointer: '', message: "must have required property 'files'" },
      { pointer: '', message: "must have required property 'count'" }
    ])
    const many = validator({ type: 'array', items: { type: 'string' } })
    expect(many(Array.from({ length: 50 }, (_, index) => index))).toHaveLength(5)
  })

  test('the verdict schema names its allowed values', () => {
    const validate = validator(VERDICT_SCHEMA)
    expect(validate({ verdict: 'pass', reason: 'It keeps the API.' })).toEqual([])
    expect(validate({ verdict: 'maybe', reason: '' })).toEqual([
      { pointer: '/verdict', message: 'must be equal to one of the allowed values: "pass", "fail"' },
      { pointer: '/reason', message: 'must NOT have fewer than 1 characters' }
    ])
  })

  test('2020-12 by $schema: its own keywords apply', () => {
    const validate = validator({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      items: false
    })
    expect(validate(['a', 1])).toEqual([])
    expect(validate(['a', 1, true])).toEqual([{ pointer: '', message: 'must NOT have more than 2 items' }])
    expect(validate([1, 1])).toEqual([{ pointer: '/0', message: 'must be string' }])
  })

  test('formats are checked', () => {
    const validate = validator({
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' }, mail: { type: 'string', format: 'email' } }
    })
    expect(validate({ at: '2026-11-24T14:30:00Z', mail: 'octocat@example.com' })).toEqual([])
    expect(validate({ at: 'yesterday', mail: 'nobody' })).toEqual([
      { pointer: '/at', message: 'must match format "date-time"' },
      { pointer: '/mail', message: 'must match format "email"' }
    ])
  })

  test('a schema that cannot be used says why', () => {
    expect(problemOf({ type: 'objekt' })).toMatch(
      /^it is not a valid JSON Schema: schema is invalid: data\/type/
    )
    expect(problemOf({ type: 'object', requird: ['a'] })).toMatch(/unknown keyword: "requird"/)
    expect(problemOf({ $ref: '#/definitions/missing' })).toMatch(
      /can't resolve reference #\/definitions\/missing/
    )
    expect(problemOf({ type: 'string', format: 'colour' })).toMatch(/unknown format "colour"/)
    expect(problemOf({ $schema: 'http://json-schema.org/draft-04/schema#' })).toBe(
      '$schema "http://json-schema.org/draft-04/schema#" is not supported; use draft-07 (http://json-schema.org/draft-07/schema#, the default) or 2020-12 (https://json-schema.org/draft/2020-12/schema)'
    )
  })

  test('the same $id can be compiled again (each schema gets its own ajv)', () => {
    const schema = { $id: 'https://example.com/answer.json', type: 'object' }
    expect(problemOf(schema)).toBe('')
    expect(problemOf(schema)).toBe('')
  })
})

describe('answerSchema: the verdict, the given schema, or both', () => {
  test('neither, one or the other', () => {
    expect(answerSchema(false, undefined)).toBeUndefined()
    expect(answerSchema(true, undefined)).toBe(VERDICT_SCHEMA)
    const given = { type: 'object', required: ['files'] }
    expect(answerSchema(false, given)).toBe(given)
  })

  test('both: the verdict joins the given schema’s allOf, whose $defs and $refs still resolve', () => {
    const given: JsonSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { file: { type: 'string', minLength: 1 } },
      type: 'object',
      properties: { files: { type: 'array', items: { $ref: '#/$defs/file' } } },
      required: ['files'],
      allOf: [{ required: ['files'] }]
    }
    const both = answerSchema(true, given)
    expect(both?.allOf).toEqual([{ required: ['files'] }, VERDICT_SCHEMA])
    expect(both?.$schema).toBe(given.$schema)
    const validate = validator(both ?? {})
    expect(validate({ files: ['a.ts'], verdict: 'fail', reason: 'It breaks parse().' })).toEqual([])
    expect(validate({ files: [''], verdict: 'pass' })).toEqual([
      { pointer: '', message: "must have required property 'reason'" },
      { pointer: '/files/0', message: 'must NOT have fewer than 1 characters' }
    ])
    // The given schema is not changed.
    expect(given.allOf).toEqual([{ required: ['files'] }])
  })
})

describe('only the answer’s own properties are read', () => {
  test('required, properties and dependencies see no inherited property', () => {
    const validate = validator({
      type: 'object',
      required: ['constructor'],
      properties: { toString: { type: 'string' }, constructor: { type: 'string' } },
      dependencies: { hasOwnProperty: ['x'] }
    })
    expect(validate({})).toEqual([{ pointer: '', message: "must have required property 'constructor'" }])
    expect(validate({ constructor: 'own' })).toEqual([])
    const later = validator({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      required: ['__proto__', 'valueOf'],
      dependentRequired: { isPrototypeOf: ['y'] }
    })
    expect(later(JSON.parse('{"__proto__": 1}'))).toEqual([
      { pointer: '', message: "must have required property 'valueOf'" }
    ])
  })
})
