import type { TrackingState } from '../../src/report/tracking-text.js'

/** A tracking comment's state as a thread's run has it: alice asked on comment 5, signed `sig`; `fields` change the rest. */
export function trackingState(fields: Partial<TrackingState> = {}): TrackingState {
  return {
    requestedBy: { login: 'alice', type: 'User' },
    instruction: 'fix it',
    workflowRunUrl: '',
    sign: () => 'sig',
    commentId: 5,
    entriesSeen: 0,
    resumed: false,
    triggerPhrase: '/codegen',
    updatedAt: 0,
    ...fields
  }
}
