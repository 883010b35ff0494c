import {
  CancelledError,
  DeadlineError,
  ServiceError,
  UnsupportedEndpointError,
  type LastTry
} from '../api/errors.js'
import type { RunStop } from '../model.js'
import type { StopTrigger } from '../settings/settings.js'
import { classifyStatus } from './status.js'
import type { WatchEnding } from './watch-state.js'

/**
 * Whether the step, as it stops following its run, asks the service to stop the run too
 * (`stop-run-on`), and what it says of that. Only the step's own run is ever watched (one it
 * created or resumed), so that is the only one a stop can be sent for.
 */

export interface StopQuestion {
  /** How the watch ended: the job cancelled, timeout-minutes reached, or the run's own end. */
  ending: WatchEnding
  stopRunOn: ReadonlySet<StopTrigger>
  /** The run's status as last seen. */
  status: string | null
  /**
   * The step resumed the run and has not yet seen it restart: the status shown is its earlier
   * ending's, and the run works (or is about to).
   */
  resumedUnseen?: boolean
  /** A step that does not wait never stops while following its run. */
  wait: boolean
}

/** The trigger of `stop-run-on` each way of being cut short answers to. */
const TRIGGERS: Record<Exclude<WatchEnding, 'ended'>, StopTrigger> = {
  cancelled: 'cancel',
  timeout: 'timeout'
}

/** True when a stop is to be sent: the step waited, was cut short as `stop-run-on` names, and the run still works. */
export function shouldStopRun({ ending, stopRunOn, status, wait, resumedUnseen }: StopQuestion): boolean {
  if (!wait || ending === 'ended') return false
  return stopRunOn.has(TRIGGERS[ending]) && (resumedUnseen === true || classifyStatus(status) === 'working')
}

/** What became of a stop: the service took it and the run reads ended, or why it did not. */
export function stopOutcome(sent: { error?: unknown }, statusAfter: string | null | undefined): RunStop {
  const status = statusAfter ?? ''
  if (sent.error !== undefined) return { stopped: false, status, why: whyNotStopped(sent.error) }
  if (status && classifyStatus(status) !== 'working') return { stopped: true, status }
  return {
    stopped: false,
    status,
    why: status
      ? `the service took the request but still shows it ${status.slice(0, 100)}`
      : 'the service took the request, but the run could not be read afterwards'
  }
}

/**
 * Why a stop failed, in the user's words, as it happened: no such endpoint, a refusal, or what the
 * last try met once the tries ran out (the status the service answered, the connection's error, or
 * no answer in time). Only a try that got no answer within its time says "did not answer in time".
 */
function whyNotStopped(error: unknown): string {
  if (error instanceof UnsupportedEndpointError)
    return `the service has no endpoint to stop a run (HTTP ${error.httpStatus})`
  const last = error instanceof DeadlineError || error instanceof ServiceError ? error.lastTry : undefined
  if (last) return lastTryText(last)
  if (error instanceof DeadlineError || error instanceof CancelledError)
    return 'the service did not answer in time'
  return `the service refused: ${firstLine(error instanceof Error ? error.message : String(error))}`
}

function lastTryText(last: LastTry): string {
  if (last.timedOut) return 'the service did not answer in time'
  if (last.httpStatus !== undefined && last.httpStatus >= 400)
    return `the service answered ${last.httpStatus}${last.detail ? `: ${firstLine(last.detail)}` : ''}`
  if (last.connection) return `the connection to the service failed (${firstLine(last.connection)})`
  return `the stop failed: ${firstLine(last.reason)}`
}

const firstLine = (text: string): string => text.split('\n')[0]?.slice(0, 300) ?? ''

/** The one warning of a stop that failed: what, why, and where the run goes on. */
export function stopWarning(runId: number, webUrl: string | null | undefined, stop: RunStop): string {
  const where = webUrl ? `: ${webUrl.slice(0, 500)}` : ''
  return `Agent run ${runId} could not be stopped (${stop.why ?? 'no reason given'}); it goes on at Codegen${where}`
}
