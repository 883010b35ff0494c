import { bySeverity, findingsCountText, lineRef, type Finding, type Severity } from '../answer/findings.js'
import { inlineText } from './console-text.js'
import { count, cutChars, oneLine, trimmed } from './entry-text.js'
import { cutUtf8, type CheckAnnotation } from '../github-shapes.js'
import { link, linkAddress, markdownInline, plainInline, serviceMarkdown, unmention } from './markdown.js'

/**
 * The agent's findings wherever they show: check run annotations (plain text within GitHub's
 * bytes), the job summary's table, the check's and the tracking comment's counts, the console's
 * lines and a pull request review. Every text of a finding is the service's: cut before it is
 * rendered, shown everywhere as findingText has it (no direction control, no zero-width
 * character), by the rules of markdown.ts and console-text.ts, in time linear in it.
 */

/** The commit the findings are about, for links to their lines. */
export interface FindingsPlace {
  serverUrl: string
  repository: string
  sha: string
}

/** GitHub takes at most 50 annotations a request (422 past it). */
export const ANNOTATIONS_PER_REQUEST = 50
/** Annotations written at most, four requests: past this the check's summary says how many were left out. */
export const MAX_ANNOTATIONS = 200
/** GitHub's limits: a message of 64 KB, a title of 255 characters (both held in bytes, the stricter). */
export const ANNOTATION_MESSAGE_BYTES = 65_535
export const ANNOTATION_TITLE_BYTES = 255

const ICONS: Record<Severity, string> = { failure: '❌', warning: '⚠️', notice: 'ℹ️' }

/** Control characters but line breaks and tabs, and the line and paragraph separators: a space each. */
// eslint-disable-next-line no-control-regex -- stripping control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g

/**
 * What changes how a text reads without showing: direction controls (the marks, embeddings,
 * overrides and isolates that can show a path or a message in another order than it is written)
 * and zero-width characters (which can make a path look like another's). A zero-width joiner
 * between two emoji stays: it joins them into one (👨‍👩‍👧). Lookarounds of two characters at most.
 */
const HIDDEN =
  /[\u061c\u180e\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|(?<!\p{Extended_Pictographic}(?:\u{fe0f}|\p{Emoji_Modifier})?)\u200d|\u200d(?!\p{Extended_Pictographic})/gu

/**
 * A finding's text (its path, title or message) as it may show anywhere, the annotation, the
 * review, the summary and the console alike: direction controls and zero-width characters removed,
 * control characters as spaces. Before the text is rendered (unmention's word joiner comes after).
 */
export function findingText(text: string): string {
  return text.replace(HIDDEN, '').replace(CONTROLS, ' ')
}

/** A finding's text cut to `max` characters on one line, as it may show (findingText). */
const findingLine = (text: string, max: number): string => oneLine(text, max, findingText)

/** Service text for a place GitHub shows as plain text: cut first, shown as findingText, no live mention. */
function plainText(text: string, maxBytes: number): string {
  // A character is at least a byte: what is past maxBytes characters can never show.
  return cutUtf8(unmention(findingText(cutChars(text, maxBytes))), maxBytes)
}

/** A finding as an annotation of the check run: its lines, its severity as the level, its texts as plain text. */
export function annotationOf(finding: Finding): CheckAnnotation {
  const title = finding.title
    ? plainText(oneLine(finding.title, ANNOTATION_TITLE_BYTES), ANNOTATION_TITLE_BYTES)
    : ''
  return {
    path: finding.path,
    start_line: finding.line,
    end_line: finding.endLine,
    annotation_level: finding.severity,
    ...(title ? { title } : {}),
    message: plainText(finding.message, ANNOTATION_MESSAGE_BYTES) || finding.severity
  }
}

/** The annotations of the findings in requests GitHub takes, up to MAX_ANNOTATIONS, most severe first. */
export function annotationBatches(findings: readonly Finding[]): CheckAnnotation[][] {
  const shown = bySeverity(findings).slice(0, MAX_ANNOTATIONS).map(annotationOf)
  const batches: CheckAnnotation[][] = []
  for (let at = 0; at < shown.length; at += ANNOTATIONS_PER_REQUEST)
    batches.push(shown.slice(at, at + ANNOTATIONS_PER_REQUEST))
  return batches
}

/** The check's summary on its findings: how many of each severity, and how many were not annotated. */
export function checkFindingsMarkdown(findings: readonly Finding[]): string {
  if (findings.length === 0) return '**No findings**: the agent found nothing to show on the code.'
  const leftOut = findings.length - MAX_ANNOTATIONS
  const lines = [`**${findingsCountText(findings)}**, annotated on the lines they are about.`]
  if (leftOut > 0)
    lines.push(
      '',
      `${count(leftOut, 'finding was', 'findings were')} left out of the annotations (${MAX_ANNOTATIONS} at most, the most severe first): the \`findings\` output has them all.`
    )
  return lines.join('\n')
}

/** Caps of a finding's texts in a table row or a list item, in characters before escaping. */
const CAPS = { path: 300, title: 200, message: 500, url: 1_000 }
/** Rows of the job summary's table: a thousand findings fit in the `findings` output, not in a summary. */
export const SUMMARY_FINDINGS_ROWS = 200

/**
 * The address of the finding's lines in the file at the commit: GitHub's blob page, its lines
 * marked. Every character of the path that means something in an address or a Markdown link (`#`,
 * `?`, `%`, blanks, `(`, `)`…) is percent-encoded, so the link leads to the whole path.
 */
export function findingUrl(place: FindingsPlace, finding: Finding): string {
  const path = finding.path.split('/').map(pathSegment).join('/')
  const lines = `#L${finding.line}${finding.endLine > finding.line ? `-L${finding.endLine}` : ''}`
  return `${place.serverUrl}/${place.repository}/blob/${encodeURIComponent(place.sha)}/${path}${lines}`
}

/**
 * A segment of a path in an address: encodeURIComponent, and the `!'()*` it leaves as they are. A
 * lone surrogate, which it throws on (no file is named so), goes through UTF-8 as U+FFFD.
 */
const pathSegment = (segment: string): string =>
  encodeURIComponent(Buffer.from(segment, 'utf8').toString('utf8')).replace(
    /[!'()*]/g,
    c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`
  )

/** `path:line` as text, linked to the lines when the commit is known (and the address is a real one's length). */
function whereMarkdown(finding: Finding, place: FindingsPlace | undefined): string {
  const label = plainInline(findingLine(lineRef(finding), CAPS.path))
  const url = place && findingUrl(place, finding)
  return url && url.length <= CAPS.url && /^https?:\/\//i.test(url)
    ? `[${label}](${linkAddress(url)})`
    : label
}

/**
 * The job summary's section: the count by severity, then a table of the findings (the severity as a
 * word, `path:line` linked to the lines at the commit, the title, the message), the first
 * SUMMARY_FINDINGS_ROWS of them.
 */
export function findingsSummarySection(
  findings: readonly Finding[],
  place: FindingsPlace | undefined
): string {
  const parts = ['### Findings', '', `${findingsCountText(findings)}.`]
  if (findings.length === 0) return parts.join('\n')
  const rows = findings
    .slice(0, SUMMARY_FINDINGS_ROWS)
    .map(
      finding =>
        `| ${finding.severity} | ${whereMarkdown(finding, place)} | ${markdownInline(findingLine(finding.title ?? '', CAPS.title))} | ${markdownInline(findingLine(finding.message, CAPS.message))} |`
    )
  parts.push('', '| Severity | Where | Title | Message |', '|---|---|---|---|', ...rows)
  const more = findings.length - rows.length
  if (more > 0)
    parts.push('', `And ${count(more, 'finding', 'findings')} more: the \`findings\` output has them all.`)
  return parts.join('\n')
}

/** The console's line for a finding: "warning  src/a.ts:12-14  Title: message", one line. */
export function findingConsoleLine(finding: Finding): string {
  const title = finding.title ? `${findingLine(finding.title, CAPS.title)}: ` : ''
  return inlineText(
    `${finding.severity.padEnd(8)} ${findingLine(lineRef(finding), CAPS.path)}  ${title}${findingLine(finding.message, CAPS.message)}`
  )
}

/** The tracking comment's line: the count and its split by severity, and the check that shows them. */
export function trackingFindingsLine(findings: readonly Finding[], checkUrl: string | undefined): string {
  const where = checkUrl ? ` · ${link('on the check run', checkUrl)}` : ''
  return `**${findingsCountText(findings)}**${findings.length > 0 ? where : ''}`
}

/** The heading of a finding in a review: its severity, and its title. */
function findingHead(finding: Finding): string {
  const title = finding.title ? ` · **${markdownInline(findingLine(finding.title, CAPS.title))}**` : ''
  return `${ICONS[finding.severity]} **${finding.severity}**${title}`
}

/** A review comment's text on a finding's lines: its head, then the message as the agent wrote it. */
export function inlineCommentBody(finding: Finding): string {
  return `${findingHead(finding)}\n\n${serviceMarkdown(findingText(trimmed(finding.message, 4_000)))}`
}

/** GitHub takes a review's body of 65,536 characters: stay clearly under it. */
export const REVIEW_BODY_CHARS = 60_000

/**
 * The review's body: our marker, the count, then the findings not commented on the diff's lines
 * (outside it, or past the inline comments GitHub is sent), each with its path, line and message,
 * as many as fit.
 */
export function reviewBody(input: {
  marker: string
  /** "Codegen agent run #12" as Markdown, linked. */
  run: string
  findings: readonly Finding[]
  inline: number
  listed: readonly Finding[]
  footer: string
}): string {
  const { marker, run, findings, inline, listed, footer } = input
  const lines = [marker, `### 🤖 ${run}: ${findingsCountText(findings)}`, '']
  if (inline > 0)
    lines.push(`${count(inline, 'finding is', 'findings are')} commented on the lines of the diff.`, '')
  if (listed.length > 0) {
    lines.push(inline > 0 ? 'The others:' : 'Not on the lines of the diff:', '')
    let size = lines.join('\n').length + footer.length + 200
    let shown = 0
    for (const finding of listed) {
      const item = `- ${findingHead(finding)} ${plainInline(findingLine(lineRef(finding), CAPS.path))}: ${markdownInline(findingLine(finding.message, CAPS.message))}`
      if (size + item.length + 1 > REVIEW_BODY_CHARS) break
      lines.push(item)
      size += item.length + 1
      shown++
    }
    if (shown < listed.length)
      lines.push(
        '',
        `And ${count(listed.length - shown, 'finding', 'findings')} more: the check run and the \`findings\` output have them all.`
      )
    lines.push('')
  }
  lines.push(footer)
  return lines.join('\n')
}
