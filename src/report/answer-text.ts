import type { AnswerProblem, AnswerReport } from '../answer/answer.js'
import { problemLine } from '../answer/answer.js'
import { pointerText } from '../answer/schema.js'
import { count, oneLine, trimmed } from './entry-text.js'
import { codeSpan, fence, markdownInline, plainInline } from './markdown.js'

/** Caps of the agent's answer where it is shown, like the result's: it is service text. */
export const ANSWER_CAPS = { reason: 1_000, json: 60_000, pointer: 200, message: 300, foldLines: 20 }

const VERDICT_MARKS = { pass: '✅ pass', fail: '❌ fail' }

/** The verdict and its reason on one line of Markdown, or '' when the answer holds none. */
export function verdictMarkdown(report: AnswerReport): string {
  const { answer } = report
  if (!answer.valid || !answer.verdict) return ''
  const reason = answer.reason ? `: ${markdownInline(oneLine(answer.reason, ANSWER_CAPS.reason))}` : ''
  return `**${VERDICT_MARKS[answer.verdict]}**${reason}`
}

/** The summary's first line when a verdict was asked: the verdict and reason, or that none was valid. */
export function verdictLine(report: AnswerReport): string {
  return `Verdict: ${verdictMarkdown(report) || '**none**: no valid answer'}`
}

/** One problem of an invalid answer, as a Markdown list item. */
function problemItems(problem: AnswerProblem): string[] {
  if (problem.kind !== 'mismatch') return [`- ${plainInline(problemLine(problem))}`]
  return problem.errors.map(error => {
    const where = error.pointer ? codeSpan(oneLine(error.pointer, ANSWER_CAPS.pointer)) : pointerText('')
    return `- ${where}: ${plainInline(oneLine(error.message, ANSWER_CAPS.message))}`
  })
}

/** "Asked for a repair once: the final answer has no fenced json block." */
function repairsLine(repairs: string[]): string {
  if (repairs.length === 0) return ''
  const times = repairs.length === 1 ? 'once' : `${repairs.length} times`
  const why = repairs.map(reason => plainInline(oneLine(reason, ANSWER_CAPS.message))).join('; then ')
  return `The agent was asked to repair its answer ${times} (${why}).`
}

/**
 * The summary's answer section: why no answer was valid, or, when the result shown below was cut
 * and may not hold it, the validated answer as a JSON block (folded when long); then the repairs
 * asked. A valid answer is the result's own JSON: it shows there, once. The JSON is the agent's:
 * shown as written, capped.
 */
export function answerSection(report: AnswerReport, resultShown: boolean): string {
  const { answer } = report
  const parts: string[] = []
  if (answer.valid && resultShown) {
    // A verdict says itself on the summary's first line; any other answer is pointed at.
    if (!report.verdictAsked)
      parts.push(
        'The agent’s answer is valid: the JSON of its result below, and the `structured-output` output.'
      )
  } else if (answer.valid) {
    const json = trimmed(JSON.stringify(answer.value, null, 2), ANSWER_CAPS.json)
    const block = fence(json, 'json')
    const lines = json.split('\n').length
    parts.push(
      '### Answer',
      '',
      lines > ANSWER_CAPS.foldLines
        ? `<details><summary>The answer, ${count(lines, 'line', 'lines')} (the <code>structured-output</code> output)</summary>\n\n${block}\n\n</details>`
        : block
    )
  } else {
    parts.push('### No valid answer', '', ...problemItems(answer.problem))
  }
  const repairs = repairsLine(report.repairs)
  if (repairs) parts.push(...(parts.length > 0 ? [''] : []), repairs)
  return parts.join('\n')
}

/** The console's line when a repair is asked: why, and which one. */
export function repairAskedText(reason: string, attempt: number, retries: number): string {
  const why = oneLine(reason, ANSWER_CAPS.message)
  return `No valid answer (${why}): asking the agent to repair it (${attempt} of ${retries}).`
}

/**
 * What an error annotation adds for these outcomes: a rejected step quotes the reason, an
 * invalid-output one names the first problem. One line each, cut.
 */
export function answerAnnotation(report: AnswerReport): string {
  const { answer } = report
  if (answer.valid) return answer.reason ? `Reason: ${oneLine(answer.reason, ANSWER_CAPS.message)}` : ''
  const repaired =
    report.repairs.length > 0 ? ` (after ${count(report.repairs.length, 'repair', 'repairs')})` : ''
  return `No valid answer${repaired}: ${oneLine(problemLine(answer.problem), ANSWER_CAPS.message)}`
}
