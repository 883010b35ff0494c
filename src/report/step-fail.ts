import type { CheckConclusion } from '../github-shapes.js'
import { itemOutcome, SEVERITY, type ItemReport, type Outcome, type RunReport } from '../model.js'
import type { AnswerSpec } from '../answer/answer.js'
import type { FailCondition } from '../settings/settings.js'
import { firstLine, inlineText, statusText } from './console-text.js'
import { answerAnnotation } from './answer-text.js'
import { itemsFailMessage } from './runs-report.js'
import { askedOnThread, howToAnswer, QUESTION, THREAD_THAT_ASKED } from './paused-text.js'

/**
 * Does the step fail: the one place that decides it, from fail-on and the outcome (of a run alone,
 * or of each of many runs), and what follows from that decision: the failure's annotation, the
 * warnings of a step that passes, and the check run's conclusion.
 */

/** What the step's failure and its annotations need of the settings. */
export interface FailPolicy {
  failOn: ReadonlySet<FailCondition>
  triggerPhrase: string
  /** The answer asked of the agent, if any: a paused run's failure says it never came. */
  answer?: Pick<AnswerSpec, 'verdict' | 'findings'>
}

/** Why the step fails, or undefined when it passes. `cancelled` and `error` always fail. */
export function stepFailReason(
  outcome: Outcome,
  failOn: ReadonlySet<FailCondition>,
  pullRequestCount: number
): string | undefined {
  if (outcome === 'success')
    return failOn.has('no-pull-request') && pullRequestCount === 0
      ? 'The agent run ended without a pull request (fail-on: no-pull-request).'
      : undefined
  if (outcome in ALWAYS_FAILS) return ALWAYS_FAILS[outcome as keyof typeof ALWAYS_FAILS]
  const reason = FAILS_IF_NAMED[outcome as keyof typeof FAILS_IF_NAMED]
  return reason && failOn.has(outcome as FailCondition) ? reason : undefined
}

/** The outcomes that fail the step whatever fail-on says, and why. */
const ALWAYS_FAILS = {
  cancelled: 'The job was cancelled before the agent run ended.',
  error: 'The agent run could not be started or followed.'
}

/** The outcomes that fail the step when fail-on names them, and why. */
const FAILS_IF_NAMED: Partial<Record<Outcome, string>> = {
  failure: 'The agent run failed.',
  timeout: 'The agent run did not end within timeout-minutes.',
  paused: 'The agent paused with a question, waiting for an answer.',
  rejected: "The agent's verdict is fail.",
  'invalid-output': 'The agent run ended without a valid answer.',
  limited: 'A daily run limit was reached: no agent run was started.',
  planned: 'The agent run wrote a plan, which awaits approval (fail-on: planned).'
}

/** Why a run of many fails the step, or undefined: `fail-on`'s rule for one run (an error or a cancellation always). */
export function itemFailReason(item: ItemReport, failOn: ReadonlySet<FailCondition>): string | undefined {
  if (!item.report) return 'it never started: the job ended first'
  const reason = stepFailReason(itemOutcome(item), failOn, item.report.run?.github_pull_requests?.length ?? 0)
  return reason && (item.report.error ?? item.report.reason ?? reason)
}

/** The runs that fail the step, in the list's order, each with why. */
export function itemsFailingStep(
  items: readonly ItemReport[],
  failOn: ReadonlySet<FailCondition>
): Array<{ item: ItemReport; reason: string }> {
  return items.flatMap(item => {
    const reason = itemFailReason(item, failOn)
    return reason ? [{ item, reason }] : []
  })
}

/** The outcomes an annotation explains from the answer. */
const ANSWER_OUTCOMES = new Set(['rejected', 'invalid-output'])

/**
 * The step's failure annotation: why it failed, the run's own reason (the first line of its result),
 * then where the run is; undefined when the step passes.
 */
export function stepFailMessage(report: RunReport, policy: FailPolicy): string | undefined {
  if (report.runs) {
    const failing = itemsFailingStep(report.runs, policy.failOn).map(failed => ({
      ...failed,
      // A paused run's question and how to answer it, below its line.
      more:
        failed.item.report?.run && itemOutcome(failed.item) === 'paused'
          ? pausedAnswer(failed.item.report, policy).filter(Boolean)
          : []
    }))
    return failing.length > 0 ? itemsFailMessage(failing, report.runs.length) : undefined
  }
  const reason = stepFailReason(report.outcome, policy.failOn, report.run?.github_pull_requests?.length ?? 0)
  if (!reason) return undefined
  if (report.error) return report.error
  if (!report.run) return report.reason ?? reason
  if (report.outcome === 'paused')
    return [pausedReason(policy), ...pausedAnswer(report, policy), runWhere(report)]
      .filter(Boolean)
      .join('\n')
  const why =
    report.outcome === 'failure' ? firstLine(report.run.result) || firstLine(report.run.summary) : ''
  // rejected quotes the agent's reason; invalid-output names the first problem.
  const answer =
    report.answer && ANSWER_OUTCOMES.has(report.outcome) ? inlineText(answerAnnotation(report.answer)) : ''
  return `${reason}${why ? ` Result: ${why}` : ''}${answer ? ` ${answer}` : ''}\n${runWhere(report)}`
}

/**
 * The check's colour from the decision that fails the step (stepFailMessage): when the step passes,
 * `success`, but `action_required` while a plan awaits approval (a plan is no change to merge: never
 * green); else `timed_out` or `cancelled` when that is why (for many runs, the most severe outcome
 * among the runs that fail it), `failure` otherwise.
 */
export function stepConclusion(report: RunReport, policy: FailPolicy): CheckConclusion {
  if (stepFailMessage(report, policy) === undefined)
    return report.outcome === 'planned' ? 'action_required' : 'success'
  const failing =
    report.runs && new Set(itemsFailingStep(report.runs, policy.failOn).map(({ item }) => itemOutcome(item)))
  const why = failing ? SEVERITY.find(outcome => failing.has(outcome)) : report.outcome
  return why === 'timeout' ? 'timed_out' : why === 'cancelled' ? 'cancelled' : 'failure'
}

/**
 * Warnings of a step that passes: an error that fail-on lets pass (a timeout before the run
 * existed) is still said; a paused run still waits for someone: an annotation says so and how.
 */
export function passingWarnings(report: RunReport, policy: FailPolicy): string[] {
  // A fan-out's runs say their own warnings, each under its name.
  if (report.runs || stepFailMessage(report, policy)) return []
  const warnings: string[] = []
  if (report.error) warnings.push(report.error)
  if (report.outcome === 'paused' && report.run) warnings.push(pausedMessage(report, policy))
  return warnings
}

/** Where the run is: its id, status and link (the link bounded: it is the service's text). */
function runWhere(report: RunReport): string {
  const run = report.run as NonNullable<RunReport['run']>
  const link = run.web_url ? `: ${inlineText(run.web_url).slice(0, 500)}` : ''
  return `Agent run ${run.id}, status ${statusText(report.status || 'unknown')}${link}`
}

/** Why a paused run fails the step: with an answer asked, that the question came instead of it. */
function pausedReason(policy: FailPolicy): string {
  const { answer } = policy
  if (!answer) return FAILS_IF_NAMED.paused as string
  return `The agent paused with a question instead of giving its ${answer.verdict ? 'verdict' : answer.findings ? 'findings' : 'answer'}.`
}

/** The warning of a paused run the step lets pass: that it paused, the question, how to answer, where it is. */
function pausedMessage(report: RunReport, policy: FailPolicy): string {
  const [question, how] = pausedAnswer(report, policy)
  return [`The agent run paused.${question ? ` ${question}` : ''}`, how, runWhere(report)].join('\n')
}

/**
 * A paused run's question ('' when it left none), and how to answer it: from a step, and on the
 * thread when it was asked for on one (a run from inputs has no thread to answer on).
 */
function pausedAnswer(report: RunReport, policy: FailPolicy): [string, string] {
  const run = report.run as NonNullable<RunReport['run']>
  const question = firstLine(run.result) || firstLine(run.summary)
  const thread = { name: THREAD_THAT_ASKED, phrase: policy.triggerPhrase }
  return [
    question && `${QUESTION}: ${question}`,
    howToAnswer({ on: 'report', runId: run.id, ...(askedOnThread(report.trigger) ? { thread } : {}) })
  ]
}
