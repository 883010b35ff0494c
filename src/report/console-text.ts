import type { LogEntry } from '../api/types.js'
import { classifyStatus, type StatusClass } from '../agent-run/status.js'
import { entryDetails, entryGist, entryTime, entryTool, entryType, oneLine } from './entry-text.js'
import { BROKEN_LEGACY_COMMAND, LEGACY_COMMAND } from '../runner/commands.js'

/**
 * Console lines built from the service's text. The runner has two command parsers: `::name` after
 * leading blanks, and the legacy `##[name` anywhere in a line; it splits lines at \r as well as \n.
 * So service text is cut at every line break, stripped of control characters, each line starts
 * with our own prefix, never with the service's characters, and every `##[` gets an invisible
 * word joiner after its `##` (it reads the same; the legacy parser no longer sees it).
 */

// eslint-disable-next-line no-control-regex -- stripping control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g
const LINE_BREAKS = /\r\n|\r|\n|\u0085|\u2028|\u2029/

/** Service text made safe to print inside one of our lines. */
export function inlineText(text: string): string {
  return text
    .split(LINE_BREAKS)
    .join(' ')
    .replace(CONTROL_CHARACTERS, ' ')
    .replace(LEGACY_COMMAND, BROKEN_LEGACY_COMMAND)
}

/** Characters of a text an annotation quotes: its first line, so the annotation stays readable. */
const ANNOTATION_QUOTE_CHARS = 300

/** The first non-blank line of a text (the run's, a reason), one line, bounded, unable to issue commands: as an annotation quotes it. */
export function firstLine(text: string | null | undefined): string {
  const line = (text ?? '').split(/\r\n|\r|\n/).find(candidate => candidate.trim()) ?? ''
  return inlineText(oneLine(line, ANNOTATION_QUOTE_CHARS))
}

/** A run status inside one of our lines: one line, and short (the service does not bound it). */
export function statusText(status: string | null): string {
  return status === null ? 'none' : inlineText(status).slice(0, 60)
}

/** Service text as lines that each begin with `prefix` (which must not begin with `::`). */
export function prefixedLines(text: string, prefix: string): string[] {
  return text
    .split(LINE_BREAKS)
    .map(
      line => prefix + line.replace(CONTROL_CHARACTERS, ' ').replace(LEGACY_COMMAND, BROKEN_LEGACY_COMMAND)
    )
}

/**
 * What a status means for the run, in words that agree with any outcome the step then reports: a
 * COMPLETE run may still be rejected by its verdict, or have no valid answer, so it "ended".
 */
const STATUS_MEANING: Record<StatusClass, string> = {
  working: 'working',
  paused: 'the run paused',
  success: 'the run ended',
  failure: 'the run failed'
}

/** "Status ACTIVE → COMPLETE (the run ended)". */
export function statusChangeLine(from: string | null, to: string | null): string {
  return `Status ${statusText(from)} → ${statusText(to)} (${STATUS_MEANING[classifyStatus(to)]})`
}

const HEADLINE_GIST_CHARS = 160
const DETAIL_SECTION_CHARS = 2_000

/** "12:04:05  ACTION            run_command · Running the test suite…" */
export function entryHeadline(entry: LogEntry): string {
  const tool = inlineText(entryTool(entry))
  const gist = inlineText(entryGist(entry, HEADLINE_GIST_CHARS))
  const what = tool && gist ? `${tool} · ${gist}` : tool || gist
  return `${entryTime(entry)}  ${inlineText(entryType(entry)).padEnd(16)} ${what}`
}

/** The folded details of an entry, each line behind a gutter. */
export function entryDetailLines(entry: LogEntry): string[] {
  const details = entryDetails(entry, DETAIL_SECTION_CHARS, HEADLINE_GIST_CHARS)
  return details ? prefixedLines(details, '  │ ') : []
}
