import type { Pace } from '../api/rate-budget.js'

/**
 * When to look at the run next: pure, so the policy is unit-tested without a clock.
 *
 * `poll-interval` is a promise: while the run works, the time between the starts of two
 * looks never exceeds it. The pacing may only look sooner:
 * - after a FINAL_ANSWER entry the end is seconds away: every second (a fifth of the poll interval
 *   when that is shorter) for up to 30 s (six poll intervals when that is shorter), at most 30 looks;
 * - otherwise every poll interval, whatever the run does (quiet stretches included): a run that ends in a
 *   quiet stretch is seen within one poll interval of its end.
 * The rate budget comes on top: no look goes sooner than the pace the budget can keep (what is left
 * of each window, spread over it). Only when that pace is slower than the poll interval does a look come
 * later than promised, and the watcher then says so once (`paceNotice`).
 *
 * A gentle start comes first: the jobs of a matrix start together on one token, and each alone
 * would spend its first seconds at the full pace; five jobs looking every second fill a window of
 * 20 reads in the first three, and all then wait for it to slide (seconds to tens of seconds).
 * So the first look waits `startGapMs` (a fresh run has nothing to show sooner), and each look
 * that gets through halves that wait, until the poll interval is the longer: below a `poll-interval` of
 * 4 s, three looks; at 4 s and above, none (the poll interval was always the longer).
 */

export interface LookTiming {
  /** The poll-interval input. */
  pollIntervalMs: number
  /** Milliseconds since the last look started. */
  sinceLookMs: number
  /** Milliseconds since the look that brought the latest FINAL_ANSWER entry; undefined when none did. */
  sinceFinalAnswerMs?: number
  /** Looks done so far (each got its answer): the gentle start speeds up with them. */
  looksDone: number
}

/** After a FINAL_ANSWER: look every second, or a fifth of the poll interval when that is shorter. */
export const FAST_POLL_MS = 1_000
const FAST_POLL_SHARE = 1 / 5
/** How long the fast looks last after a FINAL_ANSWER: 30 s, or six poll intervals when that is shorter. */
export const FINAL_WINDOW_MS = 30_000
const FINAL_WINDOW_POLL_INTERVALS = 6

/** The first look's wait at most, and at most this many poll intervals (a short poll interval starts as gently, in proportion). */
export const START_GAP_MS = 4_000
const START_GAP_POLL_INTERVALS = 4

/** The gentle start's wait before a look, after `looksDone` looks: halved by each, from the first's. */
export function startGapMs(pollIntervalMs: number, looksDone: number): number {
  return Math.min(START_GAP_MS, START_GAP_POLL_INTERVALS * pollIntervalMs) / 2 ** Math.min(looksDone, 30)
}

export function fastPollMs(pollIntervalMs: number): number {
  return Math.min(FAST_POLL_MS, pollIntervalMs * FAST_POLL_SHARE)
}

/** Milliseconds between the starts of two looks that the policy wants, before the budget: at most the poll interval. */
export function lookIntervalMs(pollIntervalMs: number, sinceFinalAnswerMs?: number): number {
  const finalWindow = Math.min(FINAL_WINDOW_MS, FINAL_WINDOW_POLL_INTERVALS * pollIntervalMs)
  if (sinceFinalAnswerMs !== undefined && sinceFinalAnswerMs < finalWindow) return fastPollMs(pollIntervalMs)
  return pollIntervalMs
}

export interface NextLook {
  /** Milliseconds to wait from now. */
  waitMs: number
  /** Set when the budget makes this look come later than the poll interval after the last one. */
  lateBy?: Pace
}

/**
 * How long to wait from now before the next look: the policy's interval, or the gentle start's when
 * longer, and never sooner than the budget's pace. Only the budget's pace is news (`lateBy`): the
 * gentle start is a few seconds at most, and docs/limits.md says so.
 */
export function nextLook(timing: LookTiming, pace?: Pace): NextLook {
  const interval = Math.max(
    lookIntervalMs(timing.pollIntervalMs, timing.sinceFinalAnswerMs),
    startGapMs(timing.pollIntervalMs, timing.looksDone)
  )
  const wanted = Math.max(0, interval - timing.sinceLookMs)
  const waitMs = Math.max(wanted, pace?.gapMs ?? 0)
  const late = pace !== undefined && timing.sinceLookMs + pace.gapMs > timing.pollIntervalMs
  return late ? { waitMs, lateBy: pace } : { waitMs }
}

/** The one notice given when the budget holds the looks back past the poll interval: the pace it keeps and why. */
export function paceNotice(pollIntervalMs: number, pace: Pace): string {
  const paced = `${(pace.gapMs / 1000).toFixed(1)} s`
  const pollInterval = `${pollIntervalMs / 1000} s`
  return pace.congested
    ? `Other jobs share the API token (the service answered 429): looking at the run about every ${paced}, not every ${pollInterval} (poll-interval), until the service has room again.`
    : `poll-interval ${pollInterval} is faster than the service's rate limits allow one job (60 log reads per minute per token): looking at the run about every ${paced}.`
}
