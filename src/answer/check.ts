import { compileSchema, type JsonSchema, type SchemaError } from './schema.js'

/**
 * What checking an answer against the schema gave: every way it misses it ([] when it satisfies
 * it), or why it could not be checked, as the end of "the answer could not be checked against
 * output-schema …" (out of time, or the check itself threw: a schema that refers to itself
 * without end overflows the stack).
 */
export type AnswerCheck = { errors: SchemaError[] } | { unchecked: string }

/** How long one check may take at most (less when the step's deadline comes first). */
export const CHECK_MS = 10_000

/**
 * Checks a value against the schema within `timeoutMs`, and gives up when `signal` aborts (the job
 * is cancelled). A schema's `pattern` or `uniqueItems` can take exponential or quadratic time on a
 * hostile answer: the bundle checks in a worker thread it can stop (check-worker.ts); tests in
 * process check in the thread (checkInThread).
 */
export type AnswerChecker = (
  schema: JsonSchema,
  value: unknown,
  limits: { timeoutMs: number; signal: AbortSignal }
) => Promise<AnswerCheck>

/** Why a check that threw could not be done, in one line without a stack trace. */
export function thrownReason(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  const loop = /call stack/i.test(message) ? '; does the schema refer to itself without end?' : ''
  return `(the check threw ${message.split('\n')[0]?.slice(0, 200) ?? ''}${loop})`
}

/** Compiles and checks here and now: what the worker does, and the checker of in-process tests. */
export function checkNow(schema: JsonSchema, value: unknown): AnswerCheck {
  try {
    const compiled = compileSchema(schema)
    if ('problem' in compiled) return { unchecked: `(${compiled.problem})` }
    return { errors: compiled.validate(value) }
  } catch (error) {
    return { unchecked: thrownReason(error) }
  }
}

/** The checker in the calling thread: nothing can stop it, so it is for tests and local runs only. */
export const checkInThread: AnswerChecker = (schema, value) => Promise.resolve(checkNow(schema, value))
