import { parseBounded } from './bounded-json.js'

/** A fenced code block of the result: its info string's first word, and where its content lies. */
interface FencedBlock {
  language: string
  start: number
  end: number
}

/** What the run's result holds as its answer. */
export type Extracted =
  { kind: 'none' } | { kind: 'unreadable'; problem: string } | { kind: 'json'; value: unknown }

/** The columns of a line's indentation (a tab to the next multiple of four), and where it ends. */
function indentation(text: string, start: number, end: number): { columns: number; at: number } {
  let columns = 0
  let at = start
  for (; at < end && (text[at] === ' ' || text[at] === '\t'); at++)
    columns = text[at] === '\t' ? columns + 4 - (columns % 4) : columns + 1
  return { columns, at }
}

/**
 * A fence line (text[start, end)): at most three columns of indentation past `base` (the content
 * column of the list item it sits in, else 0: four or more make indented code), then three or
 * more backticks or tildes (CommonMark).
 */
function fenceAt(
  text: string,
  start: number,
  end: number,
  base: number
): { char: string; length: number; rest: number } | undefined {
  const { columns, at } = indentation(text, start, end)
  if (columns - base > 3 || (columns < base && columns > 3)) return undefined
  const char = text[at]
  if (char !== '`' && char !== '~') return undefined
  let after = at
  while (after < end && text[after] === char) after++
  return after - at < 3 ? undefined : { char, length: after - at, rest: after }
}

/**
 * A list item's first line ("- ", "* ", "+ ", "1. ", "1) "): the column its content starts at, and
 * where in the text.
 */
function listItem(text: string, start: number, end: number): { column: number; at: number } | undefined {
  const { columns, at } = indentation(text, start, end)
  const marker = /^(?:[-*+]|\d{1,9}[.)])(?: {1,4}|\t|$)/.exec(text.slice(at, Math.min(end, at + 16)))
  return marker ? { column: columns + marker[0].length, at: at + marker[0].length } : undefined
}

const isBlank = (text: string, start: number, end: number): boolean => {
  for (let at = start; at < end; at++) if (!/\s/.test(text[at] ?? '')) return false
  return true
}

/**
 * The fenced code blocks of a Markdown text, in one pass over its characters. A fence of backticks
 * whose info string holds a backtick is inline code, not a fence; an unclosed block runs to the
 * end. A fence counts where CommonMark reads one: at the top level or in a list item (the last
 * item's content column, until a blank line and a line less indented end the list), never as
 * indented code.
 */
export function fencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = []
  let open: { char: string; length: number; language: string; start: number; base: number } | undefined
  let base = 0
  let afterBlank = false
  let at = 0
  while (at <= text.length) {
    const newline = text.indexOf('\n', at)
    const lineEnd = newline < 0 ? text.length : newline
    if (open) {
      const fence = fenceAt(text, at, lineEnd, open.base)
      if (
        fence &&
        fence.char === open.char &&
        fence.length >= open.length &&
        isBlank(text, fence.rest, lineEnd)
      ) {
        blocks.push({ language: open.language, start: open.start, end: at })
        open = undefined
      }
    } else if (isBlank(text, at, lineEnd)) afterBlank = true
    else {
      const item = listItem(text, at, lineEnd)
      if (item) base = item.column
      else if (afterBlank && indentation(text, at, lineEnd).columns < base) base = 0
      afterBlank = false
      // An item's first line may open a fence right after its marker.
      const fence = item ? fenceAt(text, item.at, lineEnd, 0) : fenceAt(text, at, lineEnd, base)
      const info = fence ? text.slice(fence.rest, lineEnd) : ''
      if (fence && !(fence.char === '`' && info.includes('`'))) {
        const language = (/^\s*(\S*)/.exec(info)?.[1] ?? '').toLowerCase()
        const start = Math.min(lineEnd + 1, text.length)
        open = { char: fence.char, length: fence.length, language, start, base }
      }
    }
    if (newline < 0) break
    at = newline + 1
  }
  if (open) blocks.push({ language: open.language, start: open.start, end: text.length })
  return blocks
}

/** Text that may be a JSON object or array (other values are not answers): the rest is not parsed. */
const looksLikeJson = (text: string): boolean => /^\s*[[{]/.test(text) && /[\]}]\s*$/.test(text.slice(-100))

/**
 * Blocks that look like JSON but are not are tried at most this many times: a failed JSON.parse
 * costs tens of microseconds, and a hostile result can hold hundreds of thousands of blocks.
 */
const MAX_TRIES = 100

/**
 * The answer in a run's result: the last fenced `json` block; else the last fenced block whose
 * whole content parses as JSON; else the whole result when it parses. Linear in the result's size:
 * each block is scanned once and parsed at most once, within the answer's size and depth bounds.
 */
export function extractAnswer(result: string): Extracted {
  const blocks = fencedBlocks(result)
  const tagged = blocks.filter(block => block.language === 'json').at(-1)
  if (tagged) return readJson(result.slice(tagged.start, tagged.end), true) ?? { kind: 'none' }
  let tries = 0
  for (let index = blocks.length - 1; index >= 0 && tries < MAX_TRIES; index--) {
    const block = blocks[index]
    if (!block) continue
    const content = result.slice(block.start, block.end)
    if (!looksLikeJson(content)) continue
    tries++
    // A block that is not JSON is some other code; one refused for its size or depth is the answer.
    const read = readJson(content, false)
    if (read) return read
  }
  return (looksLikeJson(result) && readJson(result, false)) || { kind: 'none' }
}

/** The JSON of a text; a syntax error is the answer's problem only when the text had to be JSON. */
function readJson(text: string, mustBeJson: boolean): Extracted | undefined {
  const parsed = parseBounded(text)
  if (parsed.ok) return { kind: 'json', value: parsed.value }
  return mustBeJson || parsed.refused ? { kind: 'unreadable', problem: parsed.problem } : undefined
}
