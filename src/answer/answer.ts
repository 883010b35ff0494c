import type { AnswerCheck } from './check.js'
import { extractAnswer } from './extract.js'
import { findingsProblems, readFindings, type Finding } from './findings.js'
import { pointerText, VERDICT_SCHEMA, type JsonSchema, type SchemaError } from './schema.js'

/** What the step asks of the agent's final answer (`verdict`, `findings`, `output-schema`, `output-retries`). */
export interface AnswerSpec {
  verdict: boolean
  /** The answer holds the agent's findings on the code (`findings: true`). */
  findings?: boolean
  /** The schema is output-schema's (alone or joined with ours), not ours alone. */
  given?: boolean
  /** The schema the answer must satisfy, as the agent is shown it (compiled once when read, to refuse a bad one). */
  schema: JsonSchema
  /** How many times a run that ends without a valid answer is resumed to ask for it (0–3). */
  retries: number
}

/** Why a result holds no valid answer. */
export type AnswerProblem =
  | { kind: 'missing' }
  | { kind: 'unreadable'; problem: string }
  | { kind: 'mismatch'; errors: SchemaError[] }
  /** The check did not finish (out of time, cancelled) or threw: `why` ends "could not be checked against …". */
  | {
      kind: 'unchecked'
      schema: 'output-schema' | "the verdict's schema" | "the answer's schema"
      why: string
    }

export type Verdict = 'pass' | 'fail'

export type Answer =
  | {
      valid: true
      /** The answer as read (`structured-output` is its compact JSON: never over the 1 MiB it was read within). */
      value: unknown
      verdict?: Verdict
      reason?: string
      /** The findings, when they were asked for (`findings: true`). */
      findings?: Finding[]
    }
  | { valid: false; problem: AnswerProblem }

/** What became of the answer of a run that was asked for one: plain data for the reporters. */
export interface AnswerReport {
  /** The step asked for a verdict (the facts table has its row even when none came). */
  verdictAsked: boolean
  /** The last result's answer (the repaired one when repairs were asked). */
  answer: Answer
  /** Why each repair follow-up was sent, in order (problemLine of the answer it repaired). */
  repairs: string[]
}

/**
 * The answer in a run's final result, checked against the schema by `check` (which may take no
 * longer than it is given, and says so when it could not finish).
 */
export async function readAnswer(
  result: string | null | undefined,
  spec: AnswerSpec,
  check: (value: unknown) => Promise<AnswerCheck>
): Promise<Answer> {
  const extracted = extractAnswer(result ?? '')
  if (extracted.kind === 'none') return { valid: false, problem: { kind: 'missing' } }
  if (extracted.kind === 'unreadable') {
    return { valid: false, problem: { kind: 'unreadable', problem: extracted.problem } }
  }
  const checked = await check(extracted.value)
  if ('unchecked' in checked) return { valid: false, problem: uncheckedProblem(spec, checked.unchecked) }
  // An end_line before its line is what the findings' schema cannot say: checked once it holds.
  const errors =
    checked.errors.length === 0 && spec.findings ? findingsProblems(extracted.value) : checked.errors
  if (errors.length > 0) return { valid: false, problem: { kind: 'mismatch', errors } }
  const findings = spec.findings ? { findings: readFindings(extracted.value) } : {}
  const answer: Answer = { valid: true, value: extracted.value, ...findings }
  if (spec.verdict) {
    // The schema has checked both: verdict is pass or fail, reason a non-empty string.
    const { verdict, reason } = extracted.value as { verdict: Verdict; reason: string }
    return { ...answer, verdict, reason }
  }
  return answer
}

/** Whose schema could not be checked: output-schema, or ours (the verdict's, or the answer's with findings). */
function uncheckedProblem(spec: AnswerSpec, why: string): AnswerProblem {
  const given = spec.given ?? spec.schema !== VERDICT_SCHEMA
  const schema = given
    ? 'output-schema'
    : spec.schema === VERDICT_SCHEMA
      ? "the verdict's schema"
      : "the answer's schema"
  return { kind: 'unchecked', schema, why }
}

/** The problem in one line, for an annotation or a table cell: the first one when there are several. */
export function problemLine(problem: AnswerProblem): string {
  switch (problem.kind) {
    case 'missing':
      return 'the final answer has no fenced json block'
    case 'unreadable':
      return `the answer's JSON could not be read: ${problem.problem}`
    case 'unchecked':
      return `the answer could not be checked against ${problem.schema} ${problem.why}`
    case 'mismatch': {
      const [first] = problem.errors
      return first
        ? `the answer does not satisfy the schema: ${pointerText(first.pointer)} ${first.message}`
        : 'the answer does not satisfy the schema'
    }
  }
}
