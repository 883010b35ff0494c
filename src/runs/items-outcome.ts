import { stepFailReason } from '../agent-run/fail-on.js'
import type { ItemReport, Outcome } from '../model.js'
import type { FailCondition } from '../settings/settings.js'

/**
 * What became of each item of a fan-out, and of the step: plain data for the outputs, the summary,
 * the console and the annotation.
 */

/** The outcome of an item of `runs`: a run's (the verdict's rejected and invalid-output included). */
export type ItemOutcome = Outcome

/** An item as the console's line of states shows it while the runs work. */
export interface ItemState {
  name: string
  phase: 'queued' | 'working' | 'ended'
  /** The last status seen (null: none yet). */
  status: string | null
  outcome?: ItemOutcome
}

/**
 * From the most severe down: the step's outcome is the first of these that any run has, `success`
 * only when every run succeeded. `limited` (a daily limit), `started` (wait false) and `skipped` come after `cancelled`.
 */
export const SEVERITY: readonly ItemOutcome[] = [
  'error',
  'failure',
  'rejected',
  'invalid-output',
  'timeout',
  'paused',
  'cancelled',
  'limited',
  'started',
  'skipped',
  'success'
]

/** The outcome of an item: its report's, or `cancelled` when it never started (the step ended first). */
export function itemOutcome(item: ItemReport): ItemOutcome {
  return item.report?.outcome ?? 'cancelled'
}

/** `success` when every run succeeded, else the most severe outcome among them. */
export function aggregateOutcome(items: readonly ItemReport[]): ItemOutcome {
  if (items.length === 0) return 'error'
  const outcomes = new Set(items.map(itemOutcome))
  return SEVERITY.find(outcome => outcomes.has(outcome)) ?? 'error'
}

/** Why a run fails the step, or undefined: `fail-on`'s rule for one run (an error or a cancellation always). */
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
