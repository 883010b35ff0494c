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
