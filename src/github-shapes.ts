import type { Severity } from './answer/findings.js'

/**
 * What GitHub takes of our texts, as plain data: its sizes, the shapes of a check run's fields
 * and annotations, and the hidden mark our comments start with. report/ renders within them, github/ sends them; neither asks the other.
 */

/** First line of every comment the action writes; its own comments never trigger it. */
export const OWN_COMMENT_MARK = '<!-- codegen-agent-run-action'

/**
 * The hidden first line of a tracking comment: the run it tracks, its plan's state when the run is
 * a plan's (`working` while one is written, else the shown plan's digest: what an approval carries
 * out), and the signature of both.
 */
export function markerLine(runId: number | undefined, sig?: string, plan?: string): string {
  if (runId === undefined) return `${OWN_COMMENT_MARK} -->`
  return `${OWN_COMMENT_MARK} run-id=${runId}${plan ? ` plan=${plan}` : ''}${sig ? ` sig=${sig}` : ''} -->`
}

/**
 * The first line of a comment being created: the mark it is found by when GitHub made it but its
 * answer was lost (random, so nobody can write it before our comment shows it).
 */
export function createMarkerLine(mark: string): string {
  return `${OWN_COMMENT_MARK} create=${mark} -->`
}

/** The create mark of a comment's first line (`createMarkerLine`), if it has one. */
export function createMarkOf(body: string): string | undefined {
  const first = body.slice(0, 200).split('\n', 1)[0]?.trim() ?? ''
  return /^<!-- codegen-agent-run-action create=([0-9a-f]{32}) -->$/.exec(first)?.[1]
}

/** GitHub refuses comments over 65,536 characters; stay clearly under it. */
export const COMMENT_MAX_CHARS = 60_000

/**
 * GitHub refuses a check run's summary (or text) over 65,535 bytes of UTF-8, whatever its
 * documentation says of characters ("summary exceeds a maximum bytesize of 65535").
 */
export const CHECK_SUMMARY_MAX_BYTES = 65_535
/** GitHub documents no maximum for the title; 255 bytes is within any it could mean (255 characters or bytes). */
export const CHECK_TITLE_MAX_BYTES = 255

/**
 * A check run's conclusion as the step decides it: nothing else (neutral, skipped) is written.
 * `action_required`: a plan awaits approval on the pull request.
 */
export type CheckConclusion = 'success' | 'failure' | 'timed_out' | 'cancelled' | 'action_required'

/** A check run's fields as the Checks API takes them. */
export interface CheckRunText {
  status: 'in_progress' | 'completed'
  conclusion?: CheckConclusion
  title: string
  summary: string
}

/** One annotation of a check run, as the Checks API names its fields. */
export interface CheckAnnotation {
  path: string
  start_line: number
  end_line: number
  annotation_level: Severity
  title?: string
  message: string
}

/** The bytes of `text` in UTF-8, as GitHub counts them (a lone surrogate is sent as U+FFFD: 3 bytes). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

/** The longest head of `text` within `maxBytes` of UTF-8, cut between characters; linear. */
export function cutUtf8(text: string, maxBytes: number): string {
  // Three bytes at most for each UTF-16 unit: most texts are measured without being encoded.
  if (text.length * 3 <= maxBytes || utf8Bytes(text) <= maxBytes) return text
  const bytes = Buffer.from(text, 'utf8')
  let end = Math.max(0, maxBytes)
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end-- // not inside a character
  return bytes.subarray(0, end).toString('utf8')
}
