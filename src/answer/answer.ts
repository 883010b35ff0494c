import { extractAnswer } from './extract.js'
import { pointerText, type AnswerValidator, type JsonSchema, type SchemaError } from './schema.js'

/** What the step asks of the agent's final answer (`verdict`, `output-schema`, `output-retries`). */
export interface AnswerSpec {
  verdict: boolean
  /** The schema the answer must satisfy, as the agent is shown it. */
  schema: JsonSchema
  /** The schema compiled once. */
  validate: AnswerValidator
  /** How many times a run that ends without a valid answer is resumed to ask for it (0–3). */
  retries: number
}

/** Why a result holds no valid answer. */
export type AnswerProblem =
  { kind: 'missing' } | { kind: 'unreadable'; problem: string } | { kind: 'mismatch'; errors: SchemaError[] }

export type Verdict = 'pass' | 'fail'

export type Answer =
  | {
      valid: true
      value: unknown
      /** Compact JSON, the `structured-output` output: never over the 1 MiB the block was read within. */
      json: string
      verdict?: Verdict
      reason?: string
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

/** The answer in a run's final result, checked against the schema. */
export function readAnswer(result: string | null | undefined, spec: AnswerSpec): Answer {
  const extracted = extractAnswer(result ?? '')
  if (extracted.kind === 'none') return { valid: false, problem: { kind: 'missing' } }
  if (extracted.kind === 'unreadable') {
    return { valid: false, problem: { kind: 'unreadable', problem: extracted.problem } }
  }
  const errors = spec.validate(extracted.value)
  if (errors.length > 0) return { valid: false, problem: { kind: 'mismatch', errors } }
  const answer: Answer = { valid: true, value: extracted.value, json: JSON.stringify(extracted.value) }
  if (spec.verdict) {
    // The schema has checked both: verdict is pass or fail, reason a non-empty string.
    const { verdict, reason } = extracted.value as { verdict: Verdict; reason: string }
    return { ...answer, verdict, reason }
  }
  return answer
}

/** The problem in one line, for an annotation or a table cell: the first one when there are several. */
export function problemLine(problem: AnswerProblem): string {
  switch (problem.kind) {
    case 'missing':
      return 'the final answer has no fenced json block'
    case 'unreadable':
      return `the answer's JSON could not be read: ${problem.problem}`
    case 'mismatch': {
      const [first] = problem.errors
      return first
        ? `the answer does not satisfy the schema: ${pointerText(first.pointer)} ${first.message}`
        : 'the answer does not satisfy the schema'
    }
  }
}
