/**
 * Every text sent to GitHub well-formed: a lone surrogate (half of a UTF-16 pair, which the service's
 * or the agent's text may hold) is not Unicode, and a JSON parser may refuse the body that carries it.
 */

/** A high surrogate without its low one after it, or a low one without its high one before it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** `text` with each lone surrogate replaced by U+FFFD (as a UTF-8 encoder writes it); linear. */
export function wellFormedText(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd')
}

/**
 * `value` with every string in it well-formed: plain objects and arrays are copied where a string in
 * them changes; anything else (a function, a signal) is kept as it is. Linear in the value's size.
 */
export function wellFormed<T>(value: T): T {
  if (typeof value === 'string') return wellFormedText(value) as T
  if (Array.isArray(value)) return value.map(item => wellFormed(item as unknown)) as T
  if (value === null || typeof value !== 'object') return value
  const prototype = Object.getPrototypeOf(value) as unknown
  if (prototype !== Object.prototype && prototype !== null) return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) out[key] = wellFormed(item)
  return out as T
}
