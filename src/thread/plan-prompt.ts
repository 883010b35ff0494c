import type { ShownPlan } from '../model.js'

/**
 * Plan, then approve: what a plan's run is asked (a plan only, as its final answer), what a revision
 * adds, and what an approved plan's run is asked (the plan's whole text, never cut: the agent carries
 * out what a person read, not what it remembers). Pure text, added to the thread's prompts.
 */

/** What a plan's run is asked besides the thread's request: a plan, and nothing done. */
export function planOnlySection(triggerPhrase: string): string {
  return [
    'This run is asked for a plan only. Do not change any file, create a branch, push or open a pull request.',
    'Read the repository and the thread, then give the plan as your final answer: what you will change and how, in numbered steps (the files, functions and tests each step touches), and what you need decided first.',
    `A person reads it on the thread and replies \`${triggerPhrase} approve\` to have it carried out, or \`${triggerPhrase} plan <what to change>\` to revise it.`
  ].join('\n')
}

/** A revision's follow-up: what to change, and the whole revised plan as the answer. */
export function revisionSection(change: string, triggerPhrase: string): string {
  return [
    `Revise your plan${change ? `: ${change}` : '.'}`,
    `Still a plan only: no file changed, no branch, push or pull request. Give the whole revised plan as your final answer, not only what changed (it replaces the earlier one on the thread).`,
    `A person reads it and replies \`${triggerPhrase} approve\` to have it carried out.`
  ].join('\n')
}

/** The plan a revision revises, whole, for a fresh run that carries the revision on. */
export function revisedPlanSection(plan: ShownPlan): string {
  return `The plan to revise (the earlier run's final answer, whole):\n\n${wholeQuote(plan.text)}`
}

/**
 * What an approved plan's run is asked: to carry out exactly the plan quoted whole below (its digest
 * as the tracking comment's marker held it), who asked and who approved, and the approver's extra
 * instructions.
 */
export function approvedPlanSection(plan: ShownPlan, approvedBy: string, extra: string): string {
  const asked = plan.askedBy ? `, asked for by @${plan.askedBy}` : ''
  const lines = [
    `Carry out the approved plan. @${approvedBy} approved the plan quoted below (plan ${plan.digest} of agent run ${plan.runId}${asked}) as it was shown on the thread.`,
    'Carry out this text, whatever you remember of the plan: it is what the person read and approved. Now change the code, push a branch and open a pull request as the plan says.'
  ]
  if (extra) lines.push(`The approver's extra instructions: ${extra}`)
  return `${lines.join('\n')}\n\nThe approved plan (whole):\n\n${wholeQuote(plan.text)}`
}

/** A plan as a quoted block, every character of it (its line ends made \n). */
function wholeQuote(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map(line => (line ? `> ${line}` : '>'))
    .join('\n')
}
