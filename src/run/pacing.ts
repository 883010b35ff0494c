/**
 * When to poll next: pure, so the policy is unit-tested without a clock.
 *
 * Every figure is a multiple of the poll-interval input (the base), so a run followed at a base of
 * 1 s behaves like one at 5 s, five times faster; absolute caps only apply above the 5 s default.
 * At the default: every 7 s while entries flow and for one quiet poll after, then 8.5 s, then 10 s
 * while the run stays quiet; every second after a FINAL_ANSWER.
 *
 * - After a FINAL_ANSWER entry the end is seconds away: poll every second (a fifth of the base below
 *   the default) for up to 30 s (six bases below the default): at most 30 polls.
 * - While entries flow (the last poll brought new entries or a new status), and for one quiet poll
 *   after: every 1.4 bases. An agent writes its FINAL_ANSWER one model turn (seconds) after its
 *   last entries, so the polls in the 15 s after activity decide how soon the end is seen.
 * - Then, while the run stays quiet (a long tool, a build, a test suite): 1.7 bases, then twice the
 *   base. A run that ends in a long quiet stretch is still seen on average within one base of its
 *   end, as with a fixed poll at the base, for half the requests.
 * - A resumed run that still shows its earlier ending is polled at the base until it restarts.
 *
 * The shape was chosen on a model of an agent's log (bench/timelines.ts) as the one that keeps both
 * the requests per run-minute and the lag after a FINAL_ANSWER low; polling at the base while
 * entries flow, or backing off sooner, buys one with the other. The client's rate budget still
 * applies below all this: no pace makes the action exceed it.
 */

export interface PaceState {
  /** The poll-interval input. */
  baseMs: number
  /** Polls in a row that brought nothing new (0: the last one brought entries or a new status). */
  quietPolls: number
  /** Milliseconds since the poll that brought the latest FINAL_ANSWER entry; undefined when none did. */
  sinceFinalAnswerMs?: number
  /** A resumed run still reports its earlier ending: waiting for it to restart. */
  awaitingRestart?: boolean
}

/** After a FINAL_ANSWER: poll every second, or a fifth of the base when that is shorter. */
export const FAST_POLL_MS = 1_000
const FAST_POLL_SHARE = 1 / 5
/** How long the fast polling lasts after a FINAL_ANSWER: 30 s, or six bases when that is shorter. */
export const FINAL_WINDOW_MS = 30_000
const FINAL_WINDOW_BASES = 6
/** While entries flow, and for one quiet poll after: this many bases between polls. */
export const FLOW_BASES = 1.4
/** Each further quiet poll waits this many bases longer, up to CEILING_BASES. */
const QUIET_STEP_BASES = 0.3
export const CEILING_BASES = 2

export function fastPollMs(baseMs: number): number {
  return Math.min(FAST_POLL_MS, baseMs * FAST_POLL_SHARE)
}

export function nextPollDelay(state: PaceState): number {
  const { baseMs, quietPolls, sinceFinalAnswerMs } = state
  const finalWindow = Math.min(FINAL_WINDOW_MS, FINAL_WINDOW_BASES * baseMs)
  if (sinceFinalAnswerMs !== undefined && sinceFinalAnswerMs < finalWindow) return fastPollMs(baseMs)
  if (state.awaitingRestart) return baseMs
  const bases = Math.min(CEILING_BASES, FLOW_BASES + QUIET_STEP_BASES * Math.max(0, quietPolls - 1))
  return Math.round(bases * baseMs)
}
