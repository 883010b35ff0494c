import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { FINDINGS_SCHEMA } from './findings.js'
import type { JsonSchema, SchemaError } from './schema-types.js'

export type { JsonSchema, SchemaError } from './schema-types.js'

/** The schema's compiled check: every way the value misses it ([] when it satisfies it). */
export type AnswerValidator = (value: unknown) => SchemaError[]

/** What `verdict: true` asks for. */
export const VERDICT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    verdict: { enum: ['pass', 'fail'], description: 'pass or fail' },
    reason: { type: 'string', minLength: 1, description: 'why, in one sentence' }
  },
  required: ['verdict', 'reason']
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/

/**
 * The schema the answer must satisfy: ours (the verdict's, the findings', or both as one object), the
 * given one, or the given one joined with ours. The given schema is joined by adding ours to its own
 * `allOf` at its root, so it keeps its `$schema`, `$id` and `$defs`, and its `$ref`s still resolve.
 */
export function answerSchema(
  verdict: boolean,
  given: JsonSchema | undefined,
  findings = false
): JsonSchema | undefined {
  const ours = [...(verdict ? [VERDICT_SCHEMA] : []), ...(findings ? [FINDINGS_SCHEMA] : [])]
  if (!given) return ours.length > 1 ? joinedOwn(ours) : ours[0]
  // An allOf that is not an array is left for the compile to refuse, as it is without ours.
  if (ours.length === 0 || (given.allOf !== undefined && !Array.isArray(given.allOf))) return given
  return { ...given, allOf: [...((given.allOf as unknown[] | undefined) ?? []), ...ours] }
}

/** Our schemas as one object (one block: verdict, reason, findings), easier to read than an allOf. */
function joinedOwn(schemas: JsonSchema[]): JsonSchema {
  return {
    type: 'object',
    properties: Object.assign({}, ...schemas.map(schema => schema.properties)) as JsonSchema,
    required: schemas.flatMap(schema => schema.required as string[])
  }
}

// ajv-formats is CommonJS: its plugin is the module's default export.
const addFormats = addFormatsModule.default

/**
 * An ajv for the schema's draft: ajv's defaults (strict: an unknown keyword, often a typo, is
 * refused), every error, nothing on the console. A fresh one for each schema: ajv keeps the schemas
 * it compiled by `$id`, and a step compiles one schema once.
 */
function ajvFor(schema: JsonSchema): Ajv | Ajv2020 | string {
  const declared = schema.$schema
  // Only the answer's own properties are read: {} has no "constructor" (ownProperties).
  const options = { allErrors: true, logger: false as const, ownProperties: true }
  if (declared === undefined || (typeof declared === 'string' && DRAFT_07.test(declared))) {
    return addFormats(new Ajv(options))
  }
  if (typeof declared === 'string' && DRAFT_2020_12.test(declared)) return addFormats(new Ajv2020(options))
  return `$schema ${JSON.stringify(declared).slice(0, 100)} is not supported; use draft-07 (http://json-schema.org/draft-07/schema#, the default) or 2020-12 (https://json-schema.org/draft/2020-12/schema)`
}

/** The first few errors are what a reader and the agent can act on. */
const MAX_ERRORS = 5
const MAX_POINTER = 200

function schemaError(error: ErrorObject): SchemaError {
  const pointer =
    error.instancePath.length > MAX_POINTER
      ? `${error.instancePath.slice(0, MAX_POINTER)}…`
      : error.instancePath
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues
  const message =
    error.keyword === 'enum' && Array.isArray(allowed)
      ? `${error.message ?? 'must be one of'}: ${allowed.map(value => JSON.stringify(value)).join(', ')}`
      : (error.message ?? `fails ${error.keyword}`)
  return { pointer, message: message.slice(0, 300) }
}

/**
 * Compiles the schema once (draft-07 unless its `$schema` names 2020-12; formats checked), or says
 * why it cannot be used: an unsupported draft, a schema the meta-schema refuses, a `$ref` that does
 * not resolve, an unknown keyword.
 */
export function compileSchema(schema: JsonSchema): CompiledSchema {
  const key = JSON.stringify(schema)
  const known = compiled.get(key)
  if (known) return known
  if (compiled.size >= KEPT_SCHEMAS) compiled.delete(compiled.keys().next().value as string)
  const result = compileAnew(schema)
  compiled.set(key, result)
  return result
}

type CompiledSchema = { validate: AnswerValidator } | { problem: string }

/**
 * The last schemas compiled, by their JSON: a step compiles its schema more than once (its settings,
 * each run's answer), and each compile of a new ajv compiles the draft's meta-schema first (some
 * 40 ms). ajv's checks hold no state between calls, so one serves every caller.
 */
const compiled = new Map<string, CompiledSchema>()
const KEPT_SCHEMAS = 8

function compileAnew(schema: JsonSchema): CompiledSchema {
  const ajv = ajvFor(schema)
  if (typeof ajv === 'string') return { problem: ajv }
  let check: ValidateFunction
  try {
    check = ajv.compile(schema)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return { problem: `it is not a valid JSON Schema: ${message.slice(0, 300)}` }
  }
  return {
    validate: value => (check(value) ? [] : (check.errors ?? []).slice(0, MAX_ERRORS).map(schemaError))
  }
}

/** A pointer as a reader sees it: the root has no path. */
export function pointerText(pointer: string): string {
  return pointer === '' ? 'the answer' : pointer
}
