/**
 * Text from outside (GitHub, the service, an agent) made safe to show or to quote: cut at a code
 * point, folded on one line, without the characters a reader does not see. Used by every room.
 */

/** The first `max` UTF-16 units of `text`, never half of a surrogate pair (cut at a code point). */
export function cutChars(text: string, max: number): string {
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

/**
 * `text` on one line, whitespace folded, cut to `max` characters with an ellipsis: at a word's end
 * when one is near, so that a headline does not stop mid-word. `shown` changes the head that can
 * show before it is folded (what must not show, taken out).
 */
export function oneLine(text: string, max: number, shown: (head: string) => string = head => head): string {
  // Only the head can show: folding a long text whole costs more than the rest of an entry's work.
  const window = max * 4
  const cut = text.length > window
  const folded = shown(cut ? cutChars(text, window) : text)
    .replace(/\s+/g, ' ')
    .trim()
  if (folded.length <= max && !cut) return folded
  const head = cutChars(folded, max - 1)
  const space = head.lastIndexOf(' ')
  return `${space > head.length - 25 && space > 0 ? head.slice(0, space) : head}…`
}

/**
 * Characters a reader does not see but an agent reads: format characters (\p{Cf}: zero-width,
 * soft hyphen, bidirectional controls, Unicode tags U+E0001-E007F, which smuggle ASCII), the rest
 * of the tag block, variation selectors, the combining grapheme joiner, Hangul fillers, and control
 * characters other than tab and newline. Emoji stay visible: a ZWJ sequence (👨‍👩‍👧) falls apart
 * into its emoji, a variation selector's choice of presentation and a tag flag's subdivision are lost.
 */
export const INVISIBLE =
  /[\p{Cf}\p{Variation_Selector}\u{E0000}-\u{E007F}\u115f\u1160\u3164\uffa0]|\u034f|(?![\t\n])\p{Cc}/gu

/** Code (or a log) without invisible characters (its HTML comments are visible in a diff, so they stay). */
export function stripInvisible(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(INVISIBLE, '')
}

/**
 * `text` as a quoted block of a prompt (context, not orders): its first `max` characters and then
 * `more` on a line of its own when it is cut (longer than `max`, or `cut` says it was cut before);
 * "(empty)" for no text.
 */
export function quotedBlock(text: string, max: number, more: string, cut = text.length > max): string {
  const kept = cut ? `${text.slice(0, max)}\n${more}` : text
  return (kept || '(empty)')
    .split('\n')
    .map(line => `> ${line}`.trimEnd())
    .join('\n')
}

/** Parts of a prompt as paragraphs: each trimmed, the empty ones left out. */
export function paragraphs(...parts: string[]): string {
  return parts
    .map(part => part.trim())
    .filter(Boolean)
    .join('\n\n')
}
