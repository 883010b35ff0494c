import type { Pace } from '../api/rate-budget.js'

/**
 * When to look at the run next: pure, so the policy is unit-tested without a clock.
 *
 * `poll-interval` (the base) is a promise: while the run works, the time between the starts of two
 * looks never exceeds it. The pacing may only look sooner:
 * - after a FINAL_ANSWER entry the end is seconds away: every second (a fifth of the base when that
 *   is shorter) for up to 30 s (six bases when that is shorter), at most 30 looks;
 * - otherwise every base, whatever the run does (quiet stretches included): a run that ends in a
 *   quiet stretch is seen within one base of its end.
 * The rate budget comes on top: no look goes sooner than the pace the budget can keep (what is left
 * of each window, spread over it). Only when that pace is slower than the base does a look come
 * later than promised, and the watcher then says so once (`paceNotice`).
 *
 * A gentle start comes first: the jobs of a matrix start together on one token, and each alone
 * would spend its first seconds at the full pace; five jobs looking every second fill a window of
 * 20 reads in the first three, and all then wait for it to slide (seconds to tens of seconds).
 * So the first look waits `startGapMs` (a fresh run has nothing to show sooner), and each look
 * that gets through halves that wait, until the base is the longer: below a `poll-interval` of
 * 4 s, three looks; at 4 s and above, none (the base was always the longer).
 */

export interface LookTiming {
  /** The poll-interval input. */
  baseMs: number
  /** Milliseconds since the last look started. */
  sinceLookMs: number
  /** Milliseconds since the look that brought the latest FINAL_ANSWER entry; undefined when none did. */
  sinceFinalAnswerMs?: number
  /** Looks done so far (each got its answer): the gentle start speeds up with them. */
  looksDone: number
}

/** After a FINAL_ANSWER: look every second, or a fifth of the base when that is shorter. */
export const FAST_POLL_MS = 1_000
const FAST_POLL_SHARE = 1 / 5
/** How long the fast looks last after a FINAL_ANSWER: 30 s, or six bases when that is shorter. */
export const FINAL_WINDOW_MS = 30_000
const FINAL_WINDOW_BASES = 6

/** The first look's wait at most, and at most this many bases (a test's or a fast job's short base starts as gently, in proportion). */
export const START_GAP_MS = 4_000
const START_GAP_BASES = 4

/** The gentle start's wait before a look, after `looksDone` looks: halved by each, from the first's. */
export function startGapMs(baseMs: number, looksDone: number): number {
  return Math.min(START_GAP_MS, START_GAP_BASES * baseMs) / 2 ** Math.min(looksDone, 30)
}

export function fastPollMs(baseMs: number): number {
  return Math.min(FAST_POLL_MS, baseMs * FAST_POLL_SHARE)
}

/** Milliseconds between the starts of two looks that the policy wants, before the budget: at most the base. */
export function lookIntervalMs(baseMs: number, sinceFinalAnswerMs?: number): number {
  const finalWindow = Math.min(FINAL_WINDOW_MS, FINAL_WINDOW_BASES * baseMs)
  if (sinceFinalAnswerMs !== undefined && sinceFinalAnswerMs < finalWindow) return fastPollMs(baseMs)
  return baseMs
}

export interface NextLook {
  /** Milliseconds to wait from now. */
  waitMs: number
  /** Set when the budget makes this look come later than the base after the last one. */
  lateBy?: Pace
}

/**
 * How long to wait from now before the next look: the policy's interval, or the gentle start's when
 * longer, and never sooner than the budget's pace. Only the budget's pace is news (`lateBy`): the
 * gentle start is a few seconds at most, and docs/limits.md says so.
 */
export function nextLook(timing: LookTiming, pace?: Pace): NextLook {
  const interval = Math.max(
    lookIntervalMs(timing.baseMs, timing.sinceFinalAnswerMs),
    startGapMs(timing.baseMs, timing.looksDone)
  )
  const wanted = Math.max(0, interval - timing.sinceLookMs)
  const waitMs = Math.max(wanted, pace?.gapMs ?? 0)
  const late = pace !== undefined && timing.sinceLookMs + pace.gapMs > timing.baseMs
  return late ? { waitMs, lateBy: pace } : { waitMs }
}

/** The one notice given when the budget holds the looks back past the base: the pace it keeps and why. */
export function paceNotice(baseMs: number, pace: Pace): string {
  const every = `${(pace.gapMs / 1000).toFixed(1)} s`
  const promised = `${baseMs / 1000} s`
  return pace.congested
    ? `Other jobs share the API token (the service answered 429): looking at the run about every ${every}, not every ${promised} (poll-interval), until the service has room again.`
    : `poll-interval ${promised} is faster than the service's rate limits allow one job (60 log reads per minute per token): looking at the run about every ${every}.`
}
