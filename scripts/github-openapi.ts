import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Ajv, type ValidateFunction } from 'ajv'

/**
 * GitHub's published REST description (npm @octokit/openapi, api.github.com, OpenAPI 3.0) and a
 * checker of request bodies and answers against its schemas: the fake GitHub is held to GitHub's
 * word, not to our own idea of it. Ajv reads the schemas (OpenAPI 3.0's `nullable` included); the
 * document is 13 MB, so it is read on first use, once per process.
 */

type Schema = Record<string, unknown>

interface Response {
  content?: { 'application/json'?: { schema?: Schema } }
  /** A response the components share (`#/components/responses/validation_failed_simple`). */
  $ref?: string
}

interface Operation {
  requestBody?: { content?: { 'application/json'?: { schema?: Schema } } }
  responses: Record<string, Response>
}

interface Document {
  paths: Record<string, Record<string, Operation>>
  components: Record<string, unknown>
}

let document: Document | undefined
let ajv: Ajv | undefined
const compiled = new Map<string, ValidateFunction>()

function githubDocument(): Document {
  if (!document) {
    const path = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json')
    document = JSON.parse(readFileSync(path, 'utf8')) as Document
  }
  return document
}

/** The component schemas `schema` refers to, directly or through others (a few of the document's thousands). */
function referredSchemas(schema: Schema): Record<string, unknown> {
  const all = (githubDocument().components as { schemas: Record<string, unknown> }).schemas
  const found: Record<string, unknown> = {}
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (typeof node !== 'object' || node === null) return
    const ref = (node as { $ref?: unknown }).$ref
    const name = typeof ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1] : undefined
    if (name !== undefined && !(name in found)) {
      found[name] = structuredClone(all[name])
      visit(found[name])
    }
    Object.values(node).forEach(visit)
  }
  visit(schema)
  return found
}

/**
 * OpenAPI 3.0.3 reads `nullable: true` as adding null to the allowed values, `enum` included (a
 * check run's `conclusion` is null until it completes); Ajv checks the enum alone, so null joins it.
 */
function allowNullInEnums(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) allowNullInEnums(item)
    return
  }
  if (typeof node !== 'object' || node === null) return
  const schema = node as Record<string, unknown>
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null))
    schema.enum.push(null)
  for (const value of Object.values(schema)) allowNullInEnums(value)
}

/** RFC 3339 date-time, as GitHub's `format: date-time` means it. */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i

function validator(key: string, schema: Schema): ValidateFunction {
  let validate = compiled.get(key)
  if (validate) return validate
  ajv ??= new Ajv({ strict: false, validateSchema: false, allErrors: true, logger: false })
    .addFormat('date-time', DATE_TIME)
    .addFormat('uri', value => URL.canParse(value))
  // The schemas it refers to ride along, so that its `#/components/schemas/...` references resolve.
  const whole = { ...structuredClone(schema), components: { schemas: referredSchemas(schema) } }
  allowNullInEnums(whole)
  validate = ajv.compile(whole)
  compiled.set(key, validate)
  return validate
}

function operation(method: string, template: string): Operation {
  const found = githubDocument().paths[template]?.[method.toLowerCase()]
  if (!found) throw new Error(`GitHub's REST description has no ${method} ${template}`)
  return found
}

function problemsOf(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return []
  return (validate.errors ?? []).map(error => `${error.instancePath || '$'}: ${error.message ?? 'invalid'}`)
}

/** The problems of a request body against the operation's requestBody schema; [] when it conforms. */
export function requestBodyProblems(method: string, template: string, body: unknown): string[] {
  const schema = operation(method, template).requestBody?.content?.['application/json']?.schema
  if (!schema) throw new Error(`${method} ${template} takes no JSON body`)
  return problemsOf(validator(`request ${method} ${template}`, schema), body)
}

/** The problems of an answer against the operation's response schema for `status`. */
export function responseProblems(method: string, template: string, status: number, body: unknown): string[] {
  let response = operation(method, template).responses[String(status)]
  const shared = /^#\/components\/responses\/(.+)$/.exec(response?.$ref ?? '')?.[1]
  if (shared)
    response = (githubDocument().components as { responses: Record<string, Response> }).responses[shared]
  const schema = response?.content?.['application/json']?.schema
  if (!schema) throw new Error(`${method} ${template} documents no JSON answer with status ${status}`)
  return problemsOf(validator(`response ${method} ${template} ${status}`, schema), body)
}
