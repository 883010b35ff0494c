import type { RunStop } from '../model.js'
import { inlineText } from './console-text.js'
import { oneLine } from './entry-text.js'
import { codeSpan, plainInline } from './markdown.js'

/**
 * What the summary, the tracking comment, the check run and the console say of the stop the step
 * sent (stop-run-on): the run stopped and its status after, or why it could not be (the headline of
 * a stopped run is in headlines.ts). The status and the reason may hold the service's words: cut
 * to a line and shown literally.
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
