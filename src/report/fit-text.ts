import type { PullRequest } from '../api/types.js'
import { cutUtf8, utf8Bytes } from '../github-shapes.js'
import { oneLine, trimmed } from './entry-text.js'
import { link, pullRequestLink, quoteBlock } from './markdown.js'

/**
 * Fitting the service's texts into GitHub's sizes, for the tracking comment (characters) and the
 * check run (UTF-8 bytes) alike: the caps of the service's one-line fields, one way to cut a text
 * until its rendering fits, one way for texts to share the room left, one quote within a size and
 * one note where a text was trimmed.
 */

/** Caps of the one-line fields the service supplies, in characters before escaping. */
export const CAPS = {
  status: 100,
  /** A log entry's gist, a reason the service gave. */
  step: 300,
  /** A title (a pull request's, a workflow's) or a label. */
  title: 200,
  /** Longer is no real URL: the label goes alone. */
  url: 500,
  /** The pull requests' line: past it, "and N more". */
  pullRequests: 3_000,
  verdict: 20,
  /** The verdict's reason in the check's table. */
  reason: 1_000
} as const

/** How a text counts against a limit: GitHub counts a comment in characters, a check run's text in UTF-8 bytes. */
export type Measure = (text: string) => number

/**
 * The rendering of the longest head of a source, `keep` characters at first, that fits `max`: cut in
 * proportion to how much the rendering overflows (and by at least a little), so that it ends in a
 * few rounds, each linear in what is kept. Undefined when even an empty head does not fit.
 */
export function renderWithin(
  keep: number,
  max: number,
  render: (keep: number) => string,
  measure: Measure
): string | undefined {
  for (;;) {
    const rendered = render(keep)
    const size = measure(rendered)
    if (size <= max) return rendered
    if (keep <= 0) return undefined
    keep = Math.max(0, Math.min(keep - 1 - Math.floor(keep / 50), Math.floor((keep * max) / size)))
  }
}

/** A text that shares the room: its length orders it, `overhead` is what wraps it once rendered. */
export interface Sharer {
  text: string
  overhead: number
}

/**
 * Each text's rendering within an equal share of the room the shorter ones left, shortest first, so
 * that a short text leaves its unused share to the others. `fit` renders a text within its share.
 */
export function shareRoom<T extends Sharer>(
  texts: T[],
  room: number,
  fit: (text: T, share: number) => string,
  measure: Measure
): Map<T, string> {
  const fitted = new Map<T, string>()
  const byLength = [...texts].sort((a, b) => a.text.length - b.text.length)
  for (const [index, text] of byLength.entries()) {
    const share = Math.floor(room / (byLength.length - index)) - text.overhead
    const rendered = fit(text, share)
    fitted.set(text, rendered)
    room -= text.overhead + measure(rendered)
  }
  return fitted
}

/** Where a text was cut to fit: the tracking comment's or the check run's size. */
export const trimmedNote = (what: 'comment' | 'check run'): string =>
  `… trimmed to fit GitHub’s ${what} size limit`

/** How a surface counts its size and says a quote was cut. */
export interface QuoteFit {
  measure: Measure
  note: string
  /**
   * The comment keeps the head as it is and says the cut below it, in a line of the quote; the
   * check run says the cut inside it (trimmed's count of characters left out), the note alone
   * standing when not even that fits.
   */
  cutSays: 'note-below' | 'count-inside'
}

export const COMMENT_FIT: QuoteFit = {
  measure: text => text.length,
  note: trimmedNote('comment'),
  cutSays: 'note-below'
}
export const CHECK_FIT: QuoteFit = {
  measure: utf8Bytes,
  note: trimmedNote('check run'),
  cutSays: 'count-inside'
}

/**
 * Service text as a quoted block within `max` once rendered (escaping, a `> ` per line and our
 * fences can grow it several times). The source is cut before it is rendered, never the rendering
 * (which could split a fence or a reference of ours), and cut again in proportion while the
 * rendering is too big: a few rounds, each linear in what is kept.
 */
export function quoteWithin(text: string, max: number, fit: QuoteFit = COMMENT_FIT): string {
  if (fit.cutSays === 'count-inside') {
    const head = (keep: number): string => quoteBlock(trimmed(text, keep))
    const keep = Math.min(text.length, Math.max(0, max))
    return renderWithin(keep, max, head, fit.measure) ?? cutUtf8(`> ${fit.note}`, max)
  }
  // Only what could fit is rendered (the text may be 16 MiB): rendering never shortens a text by
  // half but for CRLF and blank-padded lines, which then get the note.
  const quoted = text.length <= 2 * max ? quoteBlock(text) : ''
  if (quoted && fit.measure(quoted) <= max) return quoted
  const room = Math.max(0, max - fit.note.length - 4)
  const head = (keep: number): string => quoteBlock(text.slice(0, keep).replace(/[\ud800-\udbff]$/, ''))
  const cut = renderWithin(Math.min(text.length, room), room, head, fit.measure) ?? head(0)
  return `${cut}\n>\n> ${fit.note}`
}

/** The texts quoted, each within its share of the room (shareRoom, quoteWithin), as the surface measures them. */
export function quoteShares<T extends Sharer>(texts: T[], room: number, fit: QuoteFit): Map<T, string> {
  return shareRoom(texts, room, (text, share) => quoteWithin(text.text, Math.max(0, share), fit), fit.measure)
}

/** A link to a URL the service gave, or the label alone when the URL is too long to be a real one. */
export function serviceLink(text: string, url: string | null | undefined): string {
  return link(oneLine(text, CAPS.title), typeof url === 'string' && url.length <= CAPS.url ? url : undefined)
}

/** "Codegen agent run #12", linked to the run's page when the service gave one. */
export function runLink(runId: number | undefined, webUrl: string | null | undefined): string {
  return runId === undefined ? 'Codegen agent run' : `Codegen agent run ${serviceLink(`#${runId}`, webUrl)}`
}

/** The first pull requests as links, up to a line's worth of CAPS.pullRequests, then how many more. */
export function pullRequestsWithin(
  pullRequests: PullRequest[],
  { lead, separator, beforeMore }: { lead: string; separator: string; beforeMore: string }
): string {
  let line = lead
  for (const [index, pr] of pullRequests.entries()) {
    const entry = `${index > 0 ? separator : ''}${pullRequestLink(pr, CAPS.title)}`
    if (line.length + entry.length > CAPS.pullRequests)
      return `${line}${beforeMore}and ${pullRequests.length - index} more`
    line += entry
  }
  return line
}
