import {
  MAX_DAILY_RUN_LIMIT,
  STOP_TRIGGERS,
  type DailyLimits,
  type InputName,
  type StopTrigger
} from './settings.js'
import { words } from './words.js'

/**
 * What keeps runs from running away: whether the step stopping stops its run (`stop-run-on`), the
 * daily limits on new runs (`daily-run-limit`, `daily-run-limit-per-author`), and a CI fix's
 * attempts a day for one branch (`max-fix-attempts`). Each problem is
 * pushed into `problems`, naming the input and what was expected, as every reader of settings/ does.
 *
 * `stop-run-on` with `wait: false` is no error: it has no effect there, as a step that does not wait
 * never stops while following its run. Refusing it would break its default (`cancel`) for every
 * step with `wait: false`, and a `wait` set from an expression for half its values.
 */
export function readRunLimits(
  input: (name: InputName) => string,
  problems: string[]
): { stopRunOn: ReadonlySet<StopTrigger>; dailyLimits: DailyLimits; maxFixAttempts: number } {
  return {
    stopRunOn: words('stop-run-on', input('stop-run-on'), [...STOP_TRIGGERS], problems) as Set<StopTrigger>,
    dailyLimits: {
      perRepository: dailyLimit('daily-run-limit', input('daily-run-limit'), problems),
      perAuthor: dailyLimit('daily-run-limit-per-author', input('daily-run-limit-per-author'), problems)
    },
    maxFixAttempts: fixAttempts(input('max-fix-attempts'), problems)
  }
}

/** A whole number from 0 (no limit) to MAX_DAILY_RUN_LIMIT; 0 when it is not one. */
function dailyLimit(name: InputName, text: string, problems: string[]): number {
  const value = Number(text)
  if (/^\d+$/.test(text) && value <= MAX_DAILY_RUN_LIMIT) return value
  problems.push(
    `${name}: expected a whole number of runs a day from 0 (no limit) to ${MAX_DAILY_RUN_LIMIT} (the runs the action can count in a day), got "${text.slice(0, 40)}"`
  )
  return 0
}

/**
 * A whole number from 1 to MAX_DAILY_RUN_LIMIT (the runs the action can count in a day): no 0 for
 * "no limit", since a fix that fails CI again would start another without end. 1 when it is not one.
 */
function fixAttempts(text: string, problems: string[]): number {
  const value = Number(text)
  if (/^\d+$/.test(text) && value >= 1 && value <= MAX_DAILY_RUN_LIMIT) return value
  problems.push(
    `max-fix-attempts: expected a whole number of CI-fix runs a branch may get in 24 hours, from 1 to ${MAX_DAILY_RUN_LIMIT}, got "${text.slice(0, 40)}"`
  )
  return 1
}
