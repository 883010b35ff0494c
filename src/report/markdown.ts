import type { PullRequest } from '../api/types.js'
import { oneLine, valueText } from './entry-text.js'

/**
 * Service text written into GitHub-flavoured Markdown (the job summary, the tracking comment) so
 * that a reader sees it as written. Two rules hold for all of it:
 * - no `<` of the service's reaches the renderer raw outside code, so it cannot open or close HTML
 *   (our `<details>`, a `<script>`), and every backtick or tilde fence the renderer sees is one we
 *   wrote around text we know is code;
 * - code shows its characters literally: Markdown never decodes `&lt;` inside code, so code is
 *   written with fences and backtick runs longer than any inside it, or as `<code>` with its text
 *   escaped, never with escaped text inside Markdown code.
 * Mentions (`@user`, `@org/team`) and cross-references (`owner/repo#1`) from the service are broken
 * with an invisible word joiner, so agent text cannot notify people or write "mentioned this" into
 * other threads; they still read the same. Links to issues, pull requests and discussions on
 * github.com go through redirect.github.com (as Dependabot's do): they still lead there, and GitHub
 * writes no "mentioned this" for them. Every function here runs in time linear in its input.
 */

/** U+2060 WORD JOINER: invisible, keeps `@name` on one line, and GitHub no longer sees a mention. */
const WORD_JOINER = '\u2060'

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/**
 * `@name` as text that no longer notifies `name`, `owner/repo#1` (or `repo#1`, `owner/repo\#1`) as
 * text GitHub no longer links: its autolinker needs the `#` right before the digits. A `#1` after a
 * blank, this repository's, stays a reference. An issue's or pull request's address on github.com
 * goes through redirect.github.com.
 */
export function unmention(text: string): string {
  return text
    .replace(MENTION, `$1@${WORD_JOINER}`)
    .replace(/(?<=[A-Za-z0-9_.\\-])#(?=[0-9])/g, `#${WORD_JOINER}`)
    .replace(THREAD_URL, 'https://redirect.github.com/')
}

/**
 * An `@` GitHub reads as a mention: at the start of a text or after any character but a word's
 * (its rule is `(?:^|\W)@name`, so `-@a`, `.@a`, `+@a` and `(@a)` notify), and after `_` too,
 * which can close emphasis (`_x_@a` renders as a text that starts with `@a`). Only a letter or a
 * digit before it keeps it, as in an email address (`a.b@c.io`).
 */
const MENTION = /(^|[^A-Za-z0-9])@(?=[A-Za-z0-9])/g

/**
 * The start of a github.com address of an issue, pull request or discussion, any case, with or
 * without `www.` (GFM links `www.` without a scheme too), its name perhaps escaped (`my\_repo`).
 * The lookahead reads one owner and one name (no `/` in either): each match reads its own address.
 */
const THREAD_URL =
  /\b(?:https?:\/\/(?:www\.)?|www\.)github\.com\/(?=[\w.\\-]+\/[\w.\\-]+\/(?:issues|pull|discussions)\/\d)/gi

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/

/** The longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let longest = 0
  let run = 0
  for (const c of text) {
    run = c === char ? run + 1 : 0
    if (run > longest) longest = run
  }
  return longest
}

/**
 * Inline code as HTML that shows `text` literally wherever Markdown puts it in a line (a paragraph,
 * a table cell, a link label): `<`, `&`, `>` as references and the characters that mean something
 * mid-line escaped, so no emphasis, link, pipe or backtick inside it means anything to Markdown.
 */
export function htmlCode(text: string): string {
  return `<code>${inlineLiteral(text)}</code>`
}

/** `&`, `<`, `>` as references; the rest of what means something to GFM mid-line (`$` is GitHub's math) escaped. */
const INLINE_LITERAL = /[&<>\\`*_[\]|~!$]/g
const LITERAL: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' }

/** One line of text shown literally in Markdown's inline context (replace, not `+=` a character at a time). */
function inlineLiteral(text: string): string {
  return text.replace(/\s+/g, ' ').replace(INLINE_LITERAL, c => LITERAL[c] ?? `\\${c}`)
}

/** Inline code in Markdown: a backtick run longer than any in `text`, one line. */
export function codeSpan(text: string): string {
  const line = text.replace(/\s+/g, ' ')
  const ticks = '`'.repeat(longestRun(line, '`') + 1)
  const pad = /^[` ]|[` ]$/.test(line) ? ' ' : ''
  return `${ticks}${pad}${line}${pad}${ticks}`
}

/** A fenced code block showing `text` literally: its fence is longer than any backtick run inside. */
export function fence(text: string, info = ''): string {
  const body = text.replace(/\r\n?/g, '\n').replace(/\n$/, '')
  const ticks = '`'.repeat(Math.max(3, longestRun(body, '`') + 1))
  return `${ticks}${info.replace(/[^\w.+#-]/g, '')}\n${body}\n${ticks}`
}

/**
 * One line of service text for an HTML context (a `<summary>`, a `<p>`), where Markdown does not
 * apply: escaped, with its backtick code spans shown as code.
 */
export function htmlInline(text: string): string {
  return mapCodeSpans(
    text.replace(/\s+/g, ' '),
    content => `<code>${escapeHtml(content)}</code>`,
    plain => unmention(escapeHtml(plain))
  )
}

/**
 * One line of service text in a Markdown inline context (a table cell, a link label, after a
 * label): every character shown literally, nothing opens HTML, a link, a table cell or emphasis.
 */
export function plainInline(text: string): string {
  return unmention(inlineLiteral(text))
}

/**
 * One line of service text in a Markdown inline context, its backtick code spans shown as code and
 * the rest literally (plainInline).
 */
export function markdownInline(text: string): string {
  return mapCodeSpans(text.replace(/\s+/g, ' ').trim(), htmlCode, plainInline)
}

/** Text for one cell of a Markdown table. */
export function tableCell(text: string): string {
  return markdownInline(text)
}

/** Longer addresses are not real ones: the label shows alone. */
const URL_CHARS = 2_000

/** A link whose text and address cannot break out of the Markdown. */
export function link(text: string, url: unknown): string {
  const label = markdownInline(text) || plainInline(String(url))
  if (typeof url !== 'string' || url.length > URL_CHARS || !/^https?:\/\//i.test(url)) return label
  return `[${label}](${linkAddress(url)})`
}

/**
 * An address as a Markdown link's destination, kept whole: what would end it or break it (`(`, `)`,
 * blanks, `<`, `>`) percent-encoded. encodeURIComponent leaves parentheses as they are.
 */
export function linkAddress(url: string): string {
  return url.replace(/[()\s<>]/g, c => (c === '(' ? '%28' : c === ')' ? '%29' : encodeURIComponent(c)))
}

/** Longer addresses of a pull request are not real ones. */
const PULL_REQUEST_URL_CHARS = 500

/**
 * "owner/repo#42" from a pull request's address (`https://host/owner/repo/pull/42`), or '' when
 * the address is not one: what GitHub itself calls a pull request of another repository.
 */
export function pullRequestRef(url: unknown): string {
  if (typeof url !== 'string' || url.length > PULL_REQUEST_URL_CHARS) return ''
  const match = /^https?:\/\/[^/\s]+\/([\w.-]+)\/([\w.-]+)\/pull\/(\d{1,12})(?:[/?#]|$)/i.exec(url)
  return match ? `${match[1]}/${match[2]}#${match[3]}` : ''
}

/**
 * A pull request as readers know it: `owner/repo#42` linked to it, then its title; without an
 * address GitHub's form, its title (or `#id`) alone.
 */
export function pullRequestLink(pr: PullRequest, titleChars: number): string {
  const title = oneLine(valueText(pr.title), titleChars)
  const url = typeof pr.url === 'string' && pr.url.length <= PULL_REQUEST_URL_CHARS ? pr.url : undefined
  const ref = pullRequestRef(url)
  if (!ref) return link(title || `#${oneLine(valueText(pr.id), titleChars)}`, url)
  // The reference is ours, made of [\w.-] and digits: it needs no breaking, only `_` kept from emphasis.
  return `[${ref.replace(/_/g, '\\_')}](${linkAddress(url as string)})${title ? ` ${markdownInline(title)}` : ''}`
}

/**
 * One line of Markdown as plain text, for where nothing renders it (a check run's title, the
 * console): its block marks (heading, quote, list item), emphasis marks next to a word (never a
 * lone `*` nor `***`, which may be a secret replaced), code-span backticks, links' addresses and
 * backslash escapes left out. Linear: every quantifier is bounded or one pass.
 */
export function plainLine(line: string): string {
  let text = line.trim()
  // "> - ## Title": a few marks deep at most.
  for (let depth = 0; depth < 4; depth++) {
    const next = text.replace(/^(?:#{1,6}(?=\s|$)|>|[-*+](?=\s)|\d{1,9}[.)](?=\s))\s*/, '')
    if (next === text) break
    text = next
  }
  text = text.replace(/(?:^|\s)#+\s*$/, '') // a heading's closing hashes
  return mapCodeSpans(
    text,
    content => content,
    plain =>
      plain
        .replace(/!?\[([^\]\n]{0,200})\]\([^)\s]{0,500}(?:\s+"[^"\n]{0,100}")?\)/g, '$1')
        .replace(
          /\\([!-/:-@[-`{-~])|\*+|~~+|_+/g,
          (mark: string, escaped: string | undefined, at: number, all: string) =>
            escaped ?? (isEmphasis(mark, all[at - 1], all[at + mark.length]) ? '' : mark)
        )
  )
    .replace(/\s+/g, ' ')
    .trim()
}

const isBlank = (c: string | undefined): boolean => c === undefined || /\s/.test(c)
const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c)

/**
 * Whether a run of `*`, `~` or `_` between `before` and `after` is an emphasis mark (CommonMark's
 * flanking rules, simplified): next to a word on one side; `_` never inside a word (snake_case).
 */
function isEmphasis(mark: string, before: string | undefined, after: string | undefined): boolean {
  if (mark[0] !== '_') return !isBlank(before) || !isBlank(after)
  return (!isBlank(after) && !isWordChar(before)) || (!isBlank(before) && !isWordChar(after))
}

/**
 * Splits one line at its backtick code spans (CommonMark: a run of n backticks up to the next run
 * of exactly n), mapping the code and the rest apart. A run without its match is plain text. The
 * line's runs are listed once, by length, so looking for a match never rescans the line.
 */
function mapCodeSpans(
  line: string,
  code: (content: string) => string,
  plain: (text: string) => string
): string {
  const findRun = runFinder(line)
  let out = ''
  let start = 0
  let i = 0
  while (i < line.length) {
    const c = line[i]
    if (c === '\\' && i + 1 < line.length && ASCII_PUNCTUATION.test(line[i + 1] as string)) {
      i += 2
      continue
    }
    if (c !== '`') {
      i++
      continue
    }
    let run = 1
    while (line[i + run] === '`') run++
    const close = findRun(i + run, run)
    if (close < 0) {
      i += run
      continue
    }
    out += plain(line.slice(start, i))
    let content = line.slice(i + run, close)
    // CommonMark strips one space each side when both are there and the content is not all spaces.
    if (content.length > 2 && content.startsWith(' ') && content.endsWith(' ') && /[^ ]/.test(content))
      content = content.slice(1, -1)
    out += code(content)
    i = start = close + run
  }
  return out + plain(line.slice(start))
}

/**
 * Index of the next run of exactly `length` backticks at or after `from`, or -1, for `from` that
 * never decreases: every run of the line is listed once, and each length's list is walked once.
 */
function runFinder(line: string): (from: number, length: number) => number {
  const byLength = new Map<number, { starts: number[]; next: number }>()
  for (let i = 0; i < line.length; i++) {
    if (line[i] !== '`') continue
    let length = 1
    while (line[i + length] === '`') length++
    const runs = byLength.get(length) ?? { starts: [], next: 0 }
    runs.starts.push(i)
    byLength.set(length, runs)
    i += length - 1
  }
  return (from, length) => {
    const runs = byLength.get(length)
    if (!runs) return -1
    while (runs.next < runs.starts.length && (runs.starts[runs.next] as number) < from) runs.next++
    return runs.starts[runs.next] ?? -1
  }
}

/**
 * Text outside code, for Markdown: `<` and `&` as references, backticks and tilde runs that could
 * open code escaped (only code we recognised is code), mentions broken, and links kept visible
 * (an image shows as a link with its text, an empty link label shows literally).
 */
function markdownText(text: string): string {
  return unmention(text.replace(MARKDOWN_SPECIAL, markdownEscape))
}

/**
 * What markdownText changes, found by one regex (a `[` looks ahead at most 39 characters): an
 * escaped character, `<`, `&`, a backtick, a run of three tildes or more (a fence), `![`, and a
 * `[` that opens an empty link label.
 */
const MARKDOWN_SPECIAL = /\\[!-/:-@[-`{-~]|[<&`]|~{3,}|!(?=\[)|\[(?=[\s\u200b-\u200d\u2060\ufeff]{0,38}\])/g

function markdownEscape(match: string): string {
  // An escaped character stays escaped; `\<` and `\&` become references, which show the same
  // and stay text even where a GFM autolink literal takes the backslash into its address.
  if (match.length === 2 && match[0] === '\\')
    return match === '\\<' ? '&lt;' : match === '\\&' ? '&amp;' : match
  if (match === '<') return '&lt;'
  if (match === '&') return '&amp;'
  if (match[0] === '~') return '\\~'.repeat(match.length)
  return `\\${match}`
}

/** One line outside fences: its code spans as `<code>`, the rest as markdownText. */
function markdownLine(line: string): string {
  // A link reference definition renders as nothing: its bracket is escaped so that it shows as text.
  const definition = /^( {0,3})\[(?=[^\]]*\]:)/.exec(line)
  if (definition)
    return `${definition[1]}\\[${mapCodeSpans(line.slice(definition[0].length), htmlCode, markdownText)}`
  return mapCodeSpans(line, htmlCode, markdownText)
}

// `[^]*`, not `.*`: a line separator inside would make the engine retry every shorter fence.
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})([^]*)$/

/**
 * Service text that is Markdown, made safe to place in a block of ours (see the file's comment):
 * headings, lists, emphasis, links and tables still render. Its fenced code blocks are written again
 * with our own fences, longer than any backtick run inside, at the same indentation, every line of
 * their content indented at least as far, so that no line of the service's can end them early; a
 * fence left open is closed where the text ends. Only fences indented 0-3 spaces are recognised
 * (those are fences in any container); deeper ones, and indented code blocks, are text here: their
 * backticks are escaped, and in an indented code block `<` and `&` would show as references.
 */
export function serviceMarkdown(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const out: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    const open = FENCE_OPEN.exec(line)
    if (!open || (open[2]?.[0] === '`' && open[3]?.includes('`'))) {
      out.push(markdownLine(line))
      continue
    }
    const indent = (open[1] as string).length
    const marker = open[2] as string
    const closing = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`)
    // CommonMark strips up to the fence's indentation from each content line.
    const strip = new RegExp(`^ {0,${indent}}`)
    const content: string[] = []
    let j = i + 1
    while (j < lines.length && !closing.test(lines[j] as string)) {
      content.push((lines[j] as string).replace(strip, ''))
      j++
    }
    const pad = ' '.repeat(indent)
    const info = (open[3] ?? '').trim().split(/\s+/)[0] ?? ''
    out.push(
      ...fence(content.join('\n'), info)
        .split('\n')
        .map((fenceLine, index, all) =>
          index === 0 || index === all.length - 1 || fenceLine ? pad + fenceLine : fenceLine
        )
    )
    if (content.length === 0) out.splice(out.length - 2, 1) // fence() wrote one empty line for no content
    i = j
  }
  return out.join('\n')
}

/**
 * Service text as a block quote: its Markdown still renders (serviceMarkdown), and every construct
 * it opens (a list, a table) closes with the quote.
 */
export function quoteBlock(text: string): string {
  return serviceMarkdown(text)
    .split('\n')
    .map(line => `> ${line}`.trimEnd())
    .join('\n')
}
