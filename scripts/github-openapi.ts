import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Ajv, type ValidateFunction } from 'ajv'

/**
 * GitHub's published REST description (npm @octokit/openapi, api.github.com, OpenAPI 3.0) and a
 * checker of request bodies and answers against its schemas: the fake GitHub is held to GitHub's
 * word, not to our own idea of it. Ajv reads the schemas (OpenAPI 3.0's `nullable` included). The
 * document is 13 MB (a third of a second to read): each operation used is extracted from it once, with
 * the schemas it refers to, into a small file beside the package (node_modules/.cache), which every
 * later process (a test file) reads instead.
 */

type Schema = Record<string, unknown>

interface Parameter {
  name: string
  in: string
  required?: boolean
  schema?: { type?: string; enum?: unknown[] }
}

interface Response {
  content?: { 'application/json'?: { schema?: Schema } }
  headers?: Record<string, unknown>
  /** A response the components share (`#/components/responses/validation_failed_simple`). */
  $ref?: string
}

interface Operation {
  parameters?: Array<Parameter | { $ref: string }>
  requestBody?: { content?: { 'application/json'?: { schema?: Schema } } }
  responses: Record<string, Response>
}

interface Document {
  paths: Record<string, Record<string, Operation>>
  components: Record<string, unknown>
}

/** One operation of the document and the component schemas it refers to: all a check of it needs. */
interface Extract {
  operation: Operation
  schemas: Record<string, unknown>
}

let document: Document | undefined
let ajv: Ajv | undefined
const compiled = new Map<string, ValidateFunction>()
const extracts = new Map<string, Extract | null>()

const documentPath = (): string =>
  createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json')

function githubDocument(): Document {
  document ??= JSON.parse(readFileSync(documentPath(), 'utf8')) as Document
  return document
}

/** The shape of an extract: a new shape is a new folder, never a file of the old one misread. */
const EXTRACT_FORMAT = 3

/** Where extracts of this version of the document are kept: under node_modules, beside the package. */
function extractFile(method: string, template: string): string {
  const path = documentPath()
  const version = (
    JSON.parse(readFileSync(join(dirname(path), '..', 'package.json'), 'utf8')) as { version: string }
  ).version
  const name = createHash('sha256').update(`${method} ${template}`).digest('hex').slice(0, 24)
  const root = path.slice(0, path.lastIndexOf('node_modules') + 'node_modules'.length)
  return join(root, '.cache', 'codegen-action-github-openapi', `${version}-${EXTRACT_FORMAT}`, `${name}.json`)
}

/** The operation with its schemas: from memory, from its extract file, or from the document (then kept). */
function operationExtract(method: string, template: string): Extract | undefined {
  const key = `${method.toLowerCase()} ${template}`
  if (!extracts.has(key)) {
    const file = extractFile(method, template)
    let extract: Extract | null
    try {
      extract = JSON.parse(readFileSync(file, 'utf8')) as Extract | null
    } catch {
      const found = githubDocument().paths[template]?.[method.toLowerCase()]
      const resolved = found && withSharedParts(found)
      extract = resolved
        ? { operation: resolved, schemas: referredSchemas(resolved as unknown as Schema) }
        : null
      // Written whole, then renamed: a test file beside this one never reads half of it.
      mkdirSync(dirname(file), { recursive: true })
      const partial = `${file}.${process.pid}`
      writeFileSync(partial, JSON.stringify(extract))
      renameSync(partial, file)
    }
    extracts.set(key, extract)
  }
  return extracts.get(key) ?? undefined
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
  // OpenAPI 3.0's `nullable` beside `allOf`/`anyOf` alone (an issue's milestone): null, or the rest.
  if (schema.nullable === true && schema.type === undefined) {
    const rest = { ...schema }
    delete rest.nullable
    for (const key of Object.keys(schema)) delete schema[key]
    schema.anyOf = [{ type: 'null' }, rest]
  }
  for (const value of Object.values(schema)) allowNullInEnums(value)
}

/** RFC 3339 date-time, as GitHub's `format: date-time` means it. */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i

function validator(key: string, schema: Schema, schemas: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(key)
  if (validate) return validate
  ajv ??= new Ajv({ strict: false, validateSchema: false, allErrors: true, logger: false })
    .addFormat('date-time', DATE_TIME)
    .addFormat('uri', value => URL.canParse(value))
  // The schemas it refers to ride along, so that its `#/components/schemas/...` references resolve.
  const whole = { ...structuredClone(schema), components: { schemas: structuredClone(schemas) } }
  allowNullInEnums(whole)
  validate = ajv.compile(whole)
  compiled.set(key, validate)
  return validate
}

function operation(method: string, template: string): Extract {
  const found = operationExtract(method, template)
  if (!found) throw new Error(`GitHub's REST description has no ${method} ${template}`)
  return found
}

function problemsOf(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return []
  return (validate.errors ?? []).map(error => `${error.instancePath || '$'}: ${error.message ?? 'invalid'}`)
}

/** The problems of a request body against the operation's requestBody schema; [] when it conforms. */
export function requestBodyProblems(method: string, template: string, body: unknown): string[] {
  const { operation: found, schemas } = operation(method, template)
  const schema = found.requestBody?.content?.['application/json']?.schema
  if (!schema) throw new Error(`${method} ${template} takes no JSON body`)
  return problemsOf(validator(`request ${method} ${template}`, schema, schemas), body)
}

/** The problems of an answer against the operation's response schema for `status`. */
export function responseProblems(method: string, template: string, status: number, body: unknown): string[] {
  const { operation: found, schemas } = operation(method, template)
  const schema = found.responses[String(status)]?.content?.['application/json']?.schema
  if (!schema) throw new Error(`${method} ${template} documents no JSON answer with status ${status}`)
  return problemsOf(validator(`response ${method} ${template} ${status}`, schema, schemas), body)
}

/**
 * The operation with the parameters and responses it shares with others resolved (the extract keeps
 * no components but schemas).
 */
function withSharedParts(found: Operation): Operation {
  const components = githubDocument().components as {
    parameters: Record<string, Parameter>
    responses: Record<string, Response>
  }
  const parameters = (found.parameters ?? []).map(parameter =>
    '$ref' in parameter
      ? components.parameters[/^#\/components\/parameters\/(.+)$/.exec(parameter.$ref)?.[1] ?? '']
      : parameter
  )
  const responses = Object.fromEntries(
    Object.entries(found.responses).map(([status, response]) => {
      const shared = /^#\/components\/responses\/(.+)$/.exec(response.$ref ?? '')?.[1]
      return [status, shared ? (components.responses[shared] ?? response) : response]
    })
  )
  return {
    ...found,
    parameters: parameters.filter((parameter): parameter is Parameter => !!parameter),
    responses
  }
}

/** The operation's parameters found `in` the query (or the path). */
function parametersIn(method: string, template: string, where: 'query' | 'path'): Parameter[] {
  return (operation(method, template).operation.parameters ?? []).filter(
    (parameter): parameter is Parameter => !('$ref' in parameter) && parameter.in === where
  )
}

/**
 * The problems of a request's query string against the operation's query parameters: a name the
 * description does not list, a value of the wrong type or outside its enum; [] when it conforms.
 */
export function queryProblems(method: string, template: string, query: Record<string, string>): string[] {
  const declared = new Map(
    parametersIn(method, template, 'query').map(parameter => [parameter.name, parameter])
  )
  const problems: string[] = []
  for (const [name, value] of Object.entries(query)) {
    const parameter = declared.get(name)
    if (!parameter) {
      problems.push(`${name}: not a query parameter of ${method} ${template}`)
      continue
    }
    const { type, enum: allowed } = parameter.schema ?? {}
    if (type === 'integer' && !/^-?\d+$/.test(value))
      problems.push(`${name}: must be integer, got "${value}"`)
    if (type === 'boolean' && !/^(true|false)$/.test(value))
      problems.push(`${name}: must be boolean, got "${value}"`)
    if (allowed && !allowed.includes(value))
      problems.push(`${name}: must be one of ${allowed.map(String).join(', ')}, got "${value}"`)
  }
  return problems
}

/** The statuses the operation documents, and the headers of each (lower case). */
export function documentedAnswers(method: string, template: string): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(operation(method, template).operation.responses).map(([status, answer]) => [
      status,
      Object.keys(answer.headers ?? {}).map(name => name.toLowerCase())
    ])
  )
}
