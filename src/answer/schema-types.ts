/** The schema's words, apart: schema.ts imports findings.ts, and both speak of them. */

/** A JSON Schema as an object (a boolean schema says nothing an agent could follow). */
export type JsonSchema = Record<string, unknown>

/** One way the answer misses the schema: a JSON pointer into the answer ('' for all of it) and why. */
export interface SchemaError {
  pointer: string
  message: string
}
