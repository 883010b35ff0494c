/**
 * Fitting the service's texts into GitHub's size limits, for the tracking comment (characters) and
 * the check run (UTF-8 bytes) alike: one way to cut a text until its rendering fits, and one way
 * for texts to share the room left.
 */

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
