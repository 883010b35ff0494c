import type { PlanReport } from '../model.js'
import { oneLine } from './entry-text.js'
import { quoteWithin, type QuoteFit } from './fit-text.js'
import { codeSpan, escapeHtml, quoteBlock, unmention } from './markdown.js'

/**
 * A plan (plan, then approve) as the tracking comment, the job summary and the check run show it:
 * the agent's text, hostile like all of it, quoted whole (its first part, the rest folded) and cut
 * only at the surface's size, saying so; how to approve or revise it; who asked and who approved.
 */

/** The first part shown unfolded: at most this many characters and lines of the plan. */
const FIRST_PART_CHARS = 1_500
const FIRST_PART_LINES = 15

/** A line that opens or closes a fence (0-3 spaces, then three backticks or tildes). */
const FENCE = /^ {0,3}(?:`{3,}|~{3,})/

/**
 * The plan split after its first part: at the last blank line outside a fence within the first
 * part's size (a paragraph, a list or a fence is not split); all of it when it is that short; the
 * first part empty when no such line comes early (a plan of one long paragraph is folded whole).
 */
export function splitPlan(text: string): { first: string; rest: string } {
  if (text.length <= FIRST_PART_CHARS && text.split('\n', FIRST_PART_LINES + 1).length <= FIRST_PART_LINES)
    return { first: text, rest: '' }
  let inFence = false
  let at = 0
  let cut = -1
  for (let line = 0; line < FIRST_PART_LINES + 1 && at <= FIRST_PART_CHARS; line++) {
    const end = text.indexOf('\n', at)
    if (end < 0) break
    const content = text.slice(at, end)
    if (FENCE.test(content)) inFence = !inFence
    else if (!inFence && !content.trim() && line > 0 && end <= FIRST_PART_CHARS) cut = at
    at = end + 1
  }
  // The blank line goes: the first part ends with its last line, the rest starts with its first.
  return cut < 0
    ? { first: '', rest: text }
    : { first: text.slice(0, cut - 1), rest: text.slice(text.indexOf('\n', cut) + 1) }
}

/** The fold's title, and what a reader is told when the plan was cut at the surface's size. */
const REST_TITLE = 'The rest of the plan'
const WHOLE_PLAN = 'The whole plan'
export const PLAN_CUT_NOTE =
  'This plan is longer than GitHub shows here: the whole plan is on the run’s page and in the step’s `plan` output, and an approval carries out the whole plan.'

/**
 * The plan quoted within `max` as `fit` measures it: its first part, then the rest folded below it
 * (the whole plan folded when it has no short first part); cut only where `max` ends, with the
 * note that says so and where the whole plan is.
 */
export function planBlock(text: string, max: number, fit: QuoteFit): string {
  const { first, rest } = splitPlan(text)
  const firstQuoted = first ? quoteBlock(first) : ''
  const fold = (title: string, quoted: string): string =>
    `<details><summary>${title}</summary>\n\n${quoted}\n\n</details>`
  const cutNote = `\n\n${PLAN_CUT_NOTE}`
  const room = (used: string): number => max - fit.measure(used) - fit.measure(cutNote)
  if (!rest) return within(text, max, room(''), fit, cutNote)
  const head = firstQuoted ? `${firstQuoted}\n\n` : ''
  const title = firstQuoted ? REST_TITLE : WHOLE_PLAN
  const restRoom = room(head + fold(title, ''))
  if (restRoom < 200) return within(text, max, room(''), fit, cutNote)
  const restQuoted = within(rest, restRoom + fit.measure(cutNote), restRoom, fit, '')
  const cut = restQuoted.endsWith(fit.note)
  return `${head}${fold(title, restQuoted)}${cut ? cutNote : ''}`
}

/** `text` quoted whole within `max`, or cut within `cutRoom` and followed by `cutNote`. */
function within(text: string, max: number, cutRoom: number, fit: QuoteFit, cutNote: string): string {
  const whole = text.length <= 2 * max ? quoteBlock(text) : ''
  if (whole && fit.measure(whole) <= max) return whole
  return `${quoteWithin(text, Math.max(0, cutRoom), fit)}${cutNote}`
}

/** What a plan's run's comment and check say while it works. */
export const PLANNING = '📋 Writing a plan: nothing is changed until a plan is approved.'

/** How to go on from a plan that awaits approval, with the configured trigger phrase. */
export function approveLine(phrase: string): string {
  return `Reply \`${phrase} approve\` to carry out this plan, or \`${phrase} plan <what to change>\` to revise it.`
}

/** A GitHub login as a reader sees it in our Markdown: one line, no HTML, no notification (the thread has one). */
const login = (name: string): string => unmention(`@${escapeHtml(oneLine(name, 100))}`)

/**
 * Who asked for the plan (and for its revision) and who approved it, and its digest (what the
 * approval is pinned to): "📋 The approved plan `0123…`: asked by @alice, approved by @bob."
 */
export function planPeopleLine(plan: PlanReport): string {
  const digest = codeSpan(plan.digest.slice(0, 16))
  return plan.approvedBy !== undefined
    ? `📋 The approved plan ${digest}: asked by ${login(plan.askedBy)}, approved by ${login(plan.approvedBy)}.`
    : `📋 Plan ${digest}, asked by ${login(plan.askedBy)}${plan.revisedBy !== undefined ? `, revised as ${login(plan.revisedBy)} asked` : ''}.`
}

/** A plan's run that opened pull requests though it was asked for a plan only: said plainly. */
export function planPullRequestsWarning(count: number): string {
  return `⚠️ This run was asked for a plan only, yet opened ${count === 1 ? 'a pull request' : `${count} pull requests`}: look at ${count === 1 ? 'it' : 'them'} before approving the plan.`
}
