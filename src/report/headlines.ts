import type { Outcome, RunReport } from '../model.js'
import { count, oneLine } from './entry-text.js'
import { CAPS } from './fit-text.js'
import { codeSpan } from './markdown.js'

/**
 * The headline of a run's ending on each surface a reader sees it: the job summary, the tracking
 * comment and the check run. Each surface has its own words for an outcome (the summary names the
 * agent run, the comment and the check follow "Codegen agent run #N"), chosen by the same rule. And
 * the headline of a run that works, which the comment and the check share.
 */

export type Surface = 'summary' | 'comment' | 'check'

interface Headlines {
  /** An outcome's words. */
  outcomes: Record<Outcome, string>
  /** When no run was started (none to be left running, nor followed). */
  notStarted: Partial<Record<Outcome, string>>
  /** For a run the step stopped (stop-run-on), in place of "was left running". */
  stopped: Partial<Record<Outcome, string>>
  /** A CI fix not started at max-fix-attempts (the others' limit is a daily one). */
  fixLimited: string
  /** Not started because the day's runs could not all be counted (whichever limit asked). */
  uncounted: string
}

/** The words after "Codegen agent run #N" when it was not started, or the step stopped it: comment and check alike. */
const NOT_STARTED = {
  cancelled: '🛑 was not started: the workflow job was cancelled',
  timeout: '⏱️ was not started: the workflow stopped waiting first',
  error: '⚠️ could not be started'
}
const STOPPED = {
  cancelled: '🛑 was stopped: the workflow job was cancelled',
  timeout: '⏱️ was stopped when the workflow stopped waiting'
}
const FIX_LIMITED = '🚦 was not started: max-fix-attempts is reached'
const UNCOUNTED = '🚦 was not started: the last 24 hours’ runs could not all be counted'

const HEADLINES: Record<Surface, Headlines> = {
  summary: {
    outcomes: {
      success: '✅ Agent run succeeded',
      failure: '❌ Agent run failed',
      timeout: '⏱️ Agent run still working when the wait timed out',
      paused: '⏸️ Agent run paused, waiting for a follow-up',
      planned: '📋 Agent run wrote a plan, which awaits approval',
      rejected: '👎 Agent run’s verdict: fail',
      'invalid-output': '❔ Agent run ended without a valid answer',
      started: '🚀 Agent run started',
      skipped: '⏭️ Agent run skipped',
      limited: '🚦 No agent run started: daily run limit reached',
      cancelled: '🛑 Job cancelled while following the agent run',
      error: '⚠️ Agent run could not be followed'
    },
    notStarted: {
      cancelled: '🛑 Job cancelled before an agent run started',
      timeout: '⏱️ No agent run started before the wait timed out',
      error: '⚠️ Agent run could not be started'
    },
    // The summary says the stop in its own line.
    stopped: {},
    fixLimited: '🚦 No agent run started: max-fix-attempts reached',
    uncounted: '🚦 No agent run started: the last 24 hours’ runs could not all be counted'
  },
  comment: {
    outcomes: {
      success: '✅ **succeeded**',
      failure: '❌ **failed**',
      timeout: '⏱️ was still working when the workflow stopped waiting',
      paused: '⏸️ **paused**, waiting for a follow-up',
      planned: '📋 wrote a **plan**, which awaits approval',
      rejected: '👎 **rejected**: its verdict is fail',
      'invalid-output': '❔ ended **without a valid answer**',
      started: '🚀 started',
      skipped: '⏭️ skipped',
      limited: '🚦 was **not started**: a daily run limit is reached',
      cancelled: '🛑 was left running: the workflow job was cancelled',
      error: '⚠️ could not be followed'
    },
    notStarted: NOT_STARTED,
    stopped: STOPPED,
    fixLimited: FIX_LIMITED,
    uncounted: UNCOUNTED
  },
  check: {
    outcomes: {
      success: '✅ succeeded',
      failure: '❌ failed',
      rejected: '❌ was rejected by its verdict',
      'invalid-output': '❌ gave no valid answer',
      error: '⚠️ could not be followed',
      timeout: '⏱️ was still working when the workflow stopped waiting',
      cancelled: '🛑 was left running: the workflow job was cancelled',
      paused: '⏸️ paused, waiting for an answer',
      planned: '📋 wrote a plan, which awaits approval',
      started: '🚀 started; this step did not follow it',
      skipped: '⏭️ skipped',
      limited: '🚦 was not started: a daily run limit is reached'
    },
    notStarted: NOT_STARTED,
    stopped: STOPPED,
    fixLimited: FIX_LIMITED,
    uncounted: UNCOUNTED
  }
}

/**
 * The ending's headline on a surface: that of a stopped run when the step stopped it, of a run
 * never started when there is none, of a CI fix at its attempts, else the outcome's; and what the
 * service answered when it refused.
 */
export function endingHeadline(
  surface: Surface,
  report: Pick<RunReport, 'outcome' | 'stop' | 'run' | 'runs' | 'httpStatus' | 'limit' | 'limitUncounted'>
): string {
  const { outcome } = report
  const headlines = HEADLINES[surface]
  const started = report.run !== undefined || report.runs !== undefined
  const words =
    (report.stop?.stopped && headlines.stopped[outcome]) ||
    (!started && headlines.notStarted[outcome]) ||
    (outcome === 'limited' && report.limitUncounted && headlines.uncounted) ||
    (outcome === 'limited' && report.limit === 'max-fix-attempts' && headlines.fixLimited) ||
    headlines.outcomes[outcome]
  return outcome === 'error' && report.httpStatus
    ? `${words} (the service answered ${report.httpStatus})`
    : words
}

/** The headline of a run that works, comment and check alike: "### 🤖 Codegen agent run #N is working". */
export function workingHeadline(run: string, resumed: boolean): string {
  return `### 🤖 ${run} is working${resumed ? ' on the follow-up' : ''}`
}

/** The line under it, comment and check alike: the run's status (the service's text, capped) and its entries so far. */
export function workingStatusLine(status: string | null | undefined, entriesSeen: number): string {
  const said = status?.trim() ? `status ${codeSpan(oneLine(status, CAPS.status))}` : 'starting'
  return `${said} · ${count(entriesSeen, 'log entry', 'log entries')} so far`
}
