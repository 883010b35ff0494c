import type { AnswerSpec } from '../answer/answer.js'
import { findingsShapeProblem } from '../answer/findings.js'
import { answerSchema, compileSchema } from '../answer/schema.js'
import { loadSchema } from '../answer/schema-source.js'
import type { Task } from './settings.js'

/** `output-retries` at most: each repair is a resume of the run, which costs the agent's time. */
export const MAX_OUTPUT_RETRIES = 3

/** Why a task other than run cannot ask for an answer. */
const NO_ANSWER: Record<Exclude<Task, 'run'>, string> = {
  check: 'not used with task check, which starts no run',
  'setup-commands': 'not used with task setup-commands, whose result is the setup commands'
}

export interface AnswerInputs {
  verdict: boolean
  findings: boolean
  outputSchema: string
  outputRetries: string
}

/**
 * What the step asks of the agent's answer (`verdict`, `findings`, `output-schema`, `output-retries`),
 * with the schema loaded and compiled here, before any request: undefined when nothing is asked.
 */
export function readAnswerInputs(
  inputs: AnswerInputs,
  task: Task,
  workspace: string,
  problems: string[]
): AnswerSpec | undefined {
  const retries = outputRetries(inputs.outputRetries, problems)
  if (task !== 'run') {
    if (inputs.verdict) problems.push(`verdict: ${NO_ANSWER[task]}; remove it`)
    if (inputs.outputSchema) problems.push(`output-schema: ${NO_ANSWER[task]}; remove it`)
    if (inputs.findings) problems.push(`findings: ${NO_ANSWER[task]}; remove it`)
    return undefined
  }
  let given
  if (inputs.outputSchema) {
    const loaded = loadSchema(inputs.outputSchema, workspace)
    if ('problem' in loaded) {
      problems.push(`output-schema: ${loaded.problem}`)
      return undefined
    }
    given = loaded.schema
    const shape = inputs.findings ? findingsShapeProblem(given) : undefined
    if (shape) {
      problems.push(`output-schema: ${shape}`)
      return undefined
    }
  }
  const schema = answerSchema(inputs.verdict, given, inputs.findings)
  if (!schema) return undefined
  const compiled = compileSchema(schema)
  if ('problem' in compiled) {
    problems.push(`output-schema: ${compiled.problem}`)
    return undefined
  }
  return { verdict: inputs.verdict, findings: inputs.findings, given: given !== undefined, schema, retries }
}

function outputRetries(text: string, problems: string[]): number {
  const value = Number(text)
  if (!/^\d+$/.test(text) || value > MAX_OUTPUT_RETRIES) {
    problems.push(`output-retries: expected a whole number from 0 to ${MAX_OUTPUT_RETRIES}, got "${text}"`)
    return 0
  }
  return value
}
