import { readFileSync } from 'node:fs'

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
