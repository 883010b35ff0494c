import { readFileSync } from 'node:fs'
import type { RecordedRequest, RouteName } from '../../emulator/index.js'

/**
 * The live service's OpenAPI document (emulator/reference/, as published in codegen-sh/codegen)
 * and a checker of answers against its response schemas: the JSON Schema keywords the document uses
 * ($ref, type, anyOf, enum, items, properties, required, additionalProperties, minimum, maximum).
 * Stricter than JSON Schema on one point: a property the schema does not declare is reported, so
 * the emulator cannot drift into fields the service does not have.
 */

type Schema = {
  $ref?: string
  type?: string
  anyOf?: Schema[]
  enum?: unknown[]
  items?: Schema
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: boolean | Schema
  minimum?: number
  maximum?: number
}

interface Operation {
  responses: Record<string, { content?: { 'application/json'?: { schema?: Schema } } }>
}

interface Document {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Schema> }
}

export const OPENAPI: Document = JSON.parse(
  readFileSync(new URL('../../emulator/reference/codegen-openapi.json', import.meta.url), 'utf8')
)

/** The schema of an answer: by path template (as the document writes it), method and status. */
export function responseSchema(method: string, template: string, status: number): Schema | undefined {
  const operation = OPENAPI.paths[template]?.[method.toLowerCase()]
  if (!operation) throw new Error(`The OpenAPI document has no ${method} ${template}`)
  return operation.responses[String(status)]?.content?.['application/json']?.schema
}

export interface CheckOptions {
  /** Schemas whose objects may carry undeclared properties (the live service adds some). */
  openSchemas?: string[]
}

/** The problems of `value` against `schema`, each as `path: what`; [] when it conforms. */
export function schemaProblems(value: unknown, schema: Schema, options: CheckOptions = {}): string[] {
  const problems: string[] = []
  check(value, schema, '$', problems, options, undefined)
  return problems
}

function resolve(schema: Schema): { schema: Schema; name?: string } {
  if (!schema.$ref) return { schema }
  const name = schema.$ref.replace('#/components/schemas/', '')
  const target = OPENAPI.components.schemas[name]
  if (!target) throw new Error(`Unknown schema ${schema.$ref}`)
  return { ...resolve(target), name }
}

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

function check(
  value: unknown,
  raw: Schema,
  path: string,
  problems: string[],
  options: CheckOptions,
  outerName: string | undefined
): void {
  const { schema, name: ownName } = resolve(raw)
  const name = ownName ?? outerName
  if (schema.anyOf) {
    const fits = schema.anyOf.some(option => schemaProblems(value, option, options).length === 0)
    if (!fits) {
      const branches = schema.anyOf.map(option => schemaProblems(value, option, options).join('; '))
      problems.push(`${path}: fits none of anyOf (${branches.join(' | ')})`)
    }
    return
  }
  if (schema.enum && !schema.enum.includes(value)) {
    problems.push(`${path}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`)
  }
  const actual = typeOf(value)
  if (schema.type) {
    const ok = schema.type === actual || (schema.type === 'number' && actual === 'integer')
    if (!ok) {
      problems.push(`${path}: expected ${schema.type}, got ${actual}`)
      return
    }
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum)
      problems.push(`${path}: below ${schema.minimum}`)
    if (schema.maximum !== undefined && value > schema.maximum)
      problems.push(`${path}: above ${schema.maximum}`)
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, index) =>
      check(item, schema.items as Schema, `${path}[${index}]`, problems, options, undefined)
    )
  }
  if (actual === 'object' && (schema.properties || schema.type === 'object')) {
    const object = value as Record<string, unknown>
    for (const required of schema.required ?? []) {
      if (!(required in object)) problems.push(`${path}.${required}: required, missing`)
    }
    const properties = schema.properties ?? {}
    const open =
      schema.additionalProperties === true || (name !== undefined && options.openSchemas?.includes(name))
    for (const [key, child] of Object.entries(object)) {
      const declared = properties[key]
      if (declared) check(child, declared, `${path}.${key}`, problems, options, undefined)
      else if (typeof schema.additionalProperties === 'object')
        check(child, schema.additionalProperties, `${path}.${key}`, problems, options, undefined)
      else if (!open) problems.push(`${path}.${key}: not in ${name ?? 'the schema'}`)
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Every answer of the emulator against its operation's schema

/** The OpenAPI path of each route; the interface document's log path answers as the alpha one. */
const TEMPLATES: Record<RouteName, string> = {
  create: '/v1/organizations/{org_id}/agent/run',
  resume: '/v1/organizations/{org_id}/agent/run/resume',
  // The beta stop path is not in the document: its errors are checked as those of the published ban
  // path, which takes the same body (StopAgentRunInput); its 200 as below.
  stop: '/v1/organizations/{org_id}/agent/run/ban',
  get: '/v1/organizations/{org_id}/agent/run/{agent_run_id}',
  logs: '/v1/alpha/organizations/{org_id}/agent/run/{agent_run_id}/logs',
  'logs-alpha': '/v1/alpha/organizations/{org_id}/agent/run/{agent_run_id}/logs',
  'list-runs': '/v1/organizations/{org_id}/agent/runs',
  repos: '/v1/organizations/{org_id}/repos',
  organizations: '/v1/organizations',
  me: '/v1/users/me',
  users: '/v1/organizations/{org_id}/users',
  user: '/v1/organizations/{org_id}/users/{user_id}',
  integrations: '/v1/organizations/{org_id}/integrations',
  'setup-commands': '/v1/organizations/{org_id}/setup-commands/generate'
}

/**
 * The shape every custom error of the document has (APIRateLimitErrorResponse, PermissionsError…):
 * what an answer whose status the operation does not list (401; 400 of a refused resume; 403 and
 * 429 of setup commands) or lists without a schema (404 of setup commands) is checked against.
 */
const CUSTOM_ERROR: Schema = {
  type: 'object',
  properties: OPENAPI.components.schemas.PermissionsErrorResponse?.properties,
  required: ['message', 'status_code']
}

/** FastAPI's own answer to a path or method it has no route for: `{"detail": "Not Found"}`. */
const NO_ROUTE: Schema = {
  type: 'object',
  properties: { detail: { type: 'string' } },
  required: ['detail']
}

/**
 * The 200s of routes the document does not have, by the answer the emulator chose: the stop path's
 * is the run, as Codegen's own client types it.
 */
const UNDOCUMENTED_OK: Partial<Record<RouteName, Schema>> = {
  stop: { $ref: '#/components/schemas/AgentRunResponse' }
}

/** The live service adds fields to these (pull requests: state, merged; FastAPI's errors: input, ctx). */
export const OPEN_SCHEMAS: CheckOptions = { openSchemas: ['GithubPullRequestResponse', 'ValidationError'] }

/**
 * The problems of one answer of the emulator against the document: the schema of its operation and
 * status; a 422 is always HTTPValidationError; a custom error's status_code is the answer's status.
 * Answers a fault made are not the service's (a load balancer's page, a cut body): not checked.
 */
export function answerProblems(request: RecordedRequest, body: unknown): string[] {
  if (request.fault) return []
  const label = `${request.method} ${request.path} ${request.status}`
  // The two documents give different log paths, and the stop path is in neither: a service without
  // one answers as FastAPI does (404, or 405 when another method's route matches the path).
  const mayBeMissing =
    ((request.route === 'logs' || request.route === 'logs-alpha') && request.status === 404) ||
    (request.route === 'stop' && (request.status === 404 || request.status === 405))
  const missingRoute = mayBeMissing && schemaProblems(body, NO_ROUTE).length === 0
  if (request.route === 'unknown' || missingRoute) {
    const problems = schemaProblems(body, NO_ROUTE)
    if (request.status !== 404 && request.status !== 405) problems.push(`$: no route, yet not 404 or 405`)
    return problems.map(problem => `${label}: ${problem}`)
  }
  const template = TEMPLATES[request.route]
  const undocumented = request.status === 200 ? UNDOCUMENTED_OK[request.route] : undefined
  const schema =
    request.status === 422
      ? { $ref: '#/components/schemas/HTTPValidationError' }
      : (undocumented ?? responseSchema(request.method, template, request.status) ?? CUSTOM_ERROR)
  const problems = schemaProblems(body, schema, OPEN_SCHEMAS)
  const statusCode = (body as { status_code?: unknown } | null)?.status_code
  if (statusCode !== undefined && statusCode !== request.status)
    problems.push(`$.status_code: ${String(statusCode)}, not the answer's status`)
  if (request.status === 200 && schema === CUSTOM_ERROR)
    problems.push('$: a 200 the document does not describe')
  return problems.map(problem => `${label} (${template}): ${problem}`)
}

/**
 * A checker for `EmulatorOptions.onAnswer`: collects the problems of every answer, and how many
 * answers of each route and status it saw.
 */
export function conformanceCheck(): {
  onAnswer: (request: RecordedRequest, body: unknown) => void
  problems: string[]
  seen: Map<string, number>
} {
  const problems: string[] = []
  const seen = new Map<string, number>()
  return {
    problems,
    seen,
    onAnswer: (request, body) => {
      if (!request.fault) {
        const key = `${request.route} ${request.status}`
        seen.set(key, (seen.get(key) ?? 0) + 1)
      }
      problems.push(...answerProblems(request, body))
    }
  }
}
