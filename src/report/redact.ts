/** Replaces every secret in every string of `value` (deeply) with ***. */
export function redactDeep<T>(value: T, secrets: string[]): T {
  const live = secrets.filter(secret => secret.length >= 4)
  if (live.length === 0) return value
  const redact = (text: string): string => live.reduce((out, secret) => out.split(secret).join('***'), text)
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return redact(node)
    if (Array.isArray(node)) return node.map(walk)
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]))
    }
    return node
  }
  return walk(value) as T
}
