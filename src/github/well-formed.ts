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

/** Request parameters are our own shallow values; deeper than this, a value is kept as it is. */
const MAX_DEPTH = 64

/**
 * `value` with every string in it well-formed: plain objects and arrays are copied; anything else
 * (a function, a signal) is kept as it is. Linear in the value's size.
 */
export function wellFormed<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return wellFormedText(value) as T
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return value
  if (Array.isArray(value)) return value.map(item => wellFormed(item as unknown, depth + 1)) as T
  const prototype = Object.getPrototypeOf(value) as unknown
  if (prototype !== Object.prototype && prototype !== null) return value
  // fromEntries defines each key as its own (a key `__proto__` stays a key).
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [wellFormedText(key), wellFormed(item, depth + 1)])
  ) as T
}
