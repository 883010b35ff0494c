/**
 * A list of known words (comma, space or newline separated), or `none` for the empty set: the one
 * reading of `fail-on`, `mirror-logs` and `stop-run-on`.
 */
export function words(name: string, text: string, known: string[], problems: string[]): Set<string> {
  const list = text
    .split(/[\s,]+/)
    .map(word => word.trim().toLowerCase())
    .filter(Boolean)
  if (list.length === 1 && list[0] === 'none') return new Set()
  const unknown = list.filter(word => !known.includes(word))
  if (unknown.length > 0 || list.length === 0) {
    problems.push(
      `${name}: expected a comma-separated list of ${known.join(', ')} (or none), got "${unknown.join(', ') || text}"`
    )
  }
  return new Set(list.filter(word => known.includes(word)))
}
