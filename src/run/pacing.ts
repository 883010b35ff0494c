/** When to poll next: pure, so the policy is unit-tested without a clock. */

export interface PaceState {
  /** The poll-interval input. */
  baseMs: number
  /** A FINAL_ANSWER entry was seen: the terminal status is moments away. */
  finalAnswerSeen: boolean
  /** Polls in a row that brought nothing new. */
  quietPolls: number
}

/** After a FINAL_ANSWER, the end is near: look often, but never faster than this. */
export const FAST_POLL_MS = 1_000

export function nextPollDelay(state: PaceState): number {
  if (state.finalAnswerSeen) return Math.min(state.baseMs, FAST_POLL_MS)
  return state.baseMs
}
