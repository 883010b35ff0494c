import type { RunReport, RunStop } from '../model.js'
import { inlineText } from './console-text.js'
import { oneLine } from './entry-text.js'
import { codeSpan, plainInline } from './markdown.js'

/**
 * What the summary, the tracking comment, the check run and the console say of the stop the step
 * sent (stop-run-on): the run stopped and its status after, or why it could not be. The status and
 * the reason may hold the service's words: cut to a line and shown literally.
 */

const STATUS_CHARS = 100
const WHY_CHARS = 400

/** The stop as one line of Markdown. */
export function stopMarkdown(stop: RunStop): string {
  if (stop.stopped)
    return `**The run was stopped**: this step asked Codegen to stop it, and it now shows ${codeSpan(oneLine(stop.status, STATUS_CHARS))}.`
  return `⚠️ **The run could not be stopped** (${plainInline(oneLine(stop.why ?? '', WHY_CHARS))}): it goes on at Codegen.`
}

/** The console's line of a run stopped (one that could not be was a warning already), or ''. */
export function stopConsoleLine(stop: RunStop): string {
  return stop.stopped
    ? `The agent run was stopped: it now shows ${inlineText(oneLine(stop.status, STATUS_CHARS))}.`
    : ''
}

/** The headline's words for a run the step stopped, in place of "was left running". */
const STOPPED_HEADLINES: Record<string, string> = {
  cancelled: '🛑 was stopped: the workflow job was cancelled',
  timeout: '⏱️ was stopped when the workflow stopped waiting'
}

/** The headline's words when no run was started (none to be left running, nor followed). */
const NOT_STARTED_HEADLINES: Record<string, string> = {
  cancelled: '🛑 was not started: the workflow job was cancelled',
  timeout: '⏱️ was not started: the workflow stopped waiting first',
  error: '⚠️ could not be started'
}

/** The headline's words of a CI fix not started at max-fix-attempts (the others' limit is a daily one). */
export const FIX_LIMITED_HEADLINE = '🚦 was not started: max-fix-attempts is reached'

/**
 * The ending's headline words: those of a stopped run when the step stopped it, of a run never
 * started when there is none, of a CI fix at its attempts, and what the service answered when it
 * refused.
 */
export function endingHeadline<K extends string>(
  headlines: Record<K, string>,
  report: Pick<RunReport, 'stop' | 'run' | 'runs' | 'httpStatus' | 'limit'> & { outcome: K }
): string {
  const { outcome } = report
  const started = report.run !== undefined || report.runs !== undefined
  const words =
    (report.stop?.stopped && STOPPED_HEADLINES[outcome]) ||
    (!started && NOT_STARTED_HEADLINES[outcome]) ||
    (outcome === 'limited' && report.limit === 'max-fix-attempts' && FIX_LIMITED_HEADLINE) ||
    headlines[outcome]
  return outcome === 'error' && report.httpStatus
    ? `${words} (the service answered ${report.httpStatus})`
    : words
}
