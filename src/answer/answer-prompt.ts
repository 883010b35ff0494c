import type { AnswerProblem, AnswerSpec } from './answer.js'
import { pointerText } from './schema.js'
import { greatest } from '../numbers.js'

/** A fenced block whose fence is longer than any run of backticks inside it. */
function fenced(language: string, text: string): string {
  const longest = Math.max(2, greatest((text.match(/`+/g) ?? []).map(run => run.length)))
  const fence = '`'.repeat(longest + 1)
  return `${fence}${language}\n${text}\n${fence}`
}

function schemaBlock(spec: AnswerSpec): string {
  return fenced('json', JSON.stringify(spec.schema, null, 2))
}

const VERDICT_ASK =
  'Decide whether the work passes: `"verdict"` is `"pass"` or `"fail"`, and `"reason"` says why in one sentence.'

const FINDINGS_ASK =
  'List each problem you found in the code as an item of `"findings"`: the file\'s `"path"` from the ' +
  'repository\'s root, the `"line"` it is about in the file as it is at the commit you worked on ' +
  '(and `"end_line"` for a range), its `"severity"` (`"failure"`, `"warning"` or `"notice"`), a short ' +
  '`"title"` and the `"message"`; `"findings"` is `[]` when you found none.'

/** The asks in words that go with the schema: the verdict's, the findings'. */
function asks(spec: AnswerSpec): string {
  return `${spec.verdict ? ` ${VERDICT_ASK}` : ''}${spec.findings ? ` ${FINDINGS_ASK}` : ''}`
}

/**
 * The section that ends the prompt of a create or a resume when the step asks for an answer: short,
 * and readable by a person who opens the run in Codegen's web app.
 */
export function answerFormatSection(spec: AnswerSpec): string {
  return [
    '---',
    '',
    '**Answer format.** End your final answer with one fenced `json` code block holding a JSON object ' +
      'that satisfies the JSON Schema below: the workflow that started this run reads it. ' +
      'Write the rest of your answer above it, as usual.' +
      asks(spec),
    '',
    schemaBlock(spec)
  ].join('\n')
}

/** The prompt with the answer-format section, or exactly the prompt when nothing is asked. */
export function withAnswerFormat(prompt: string, spec: AnswerSpec | undefined): string {
  return spec ? `${prompt}\n\n${answerFormatSection(spec)}` : prompt
}

function whatWasWrong(problem: AnswerProblem): string {
  switch (problem.kind) {
    case 'missing':
      return 'Your final answer did not end with the fenced `json` block this run was asked for.'
    case 'unreadable':
      return `The \`json\` block of your final answer could not be read: ${problem.problem}.`
    case 'mismatch':
      return [
        'The JSON of your final answer does not satisfy the schema:',
        ...problem.errors.map(
          error => `- ${error.pointer ? `\`${error.pointer}\`` : pointerText('')}: ${error.message}`
        )
      ].join('\n')
    case 'unchecked':
      return `Your final answer could not be checked against the schema ${problem.why}.`
  }
}

/** The follow-up that resumes a run which ended without a valid answer: what was wrong, then the ask. */
export function repairPrompt(spec: AnswerSpec, problem: AnswerProblem): string {
  return [
    whatWasWrong(problem),
    '',
    'Reply with that block alone: one fenced `json` code block holding a JSON object that satisfies this JSON Schema.' +
      asks(spec),
    '',
    schemaBlock(spec)
  ].join('\n')
}
