import type { Outcome } from '../model.js'
import type { FailCondition } from '../settings/settings.js'

/** Why the step fails, or undefined when it passes. `cancelled` and `error` always fail. */
export function stepFailReason(
  outcome: Outcome,
  failOn: ReadonlySet<FailCondition>,
  pullRequestCount: number
): string | undefined {
  switch (outcome) {
    case 'cancelled':
      return 'The job was cancelled before the agent run ended.'
    case 'error':
      return 'The agent run could not be started or followed.'
    case 'failure':
      return failOn.has('failure') ? 'The agent run failed.' : undefined
    case 'timeout':
      return failOn.has('timeout') ? 'The agent run did not end within timeout-minutes.' : undefined
    case 'paused':
      return failOn.has('paused') ? 'The agent run paused, waiting for a follow-up prompt.' : undefined
    case 'rejected':
      return failOn.has('rejected') ? "The agent's verdict is fail." : undefined
    case 'invalid-output':
      return failOn.has('invalid-output') ? 'The agent run ended without a valid answer.' : undefined
    case 'limited':
      return failOn.has('limited') ? 'A daily run limit was reached: no agent run was started.' : undefined
    case 'success':
      return failOn.has('no-pull-request') && pullRequestCount === 0
        ? 'The agent run ended without a pull request (fail-on: no-pull-request).'
        : undefined
    default:
      return undefined
  }
}
