/**
 * The least and the greatest of many numbers, in one pass: `Math.min(...values)` passes each value
 * as an argument, and a list the service or a user sizes (a page of 300,000 runs) overflows the
 * call stack. Empty, they answer as Math.min() and Math.max() do: Infinity and -Infinity.
 */

export function least(values: Iterable<number>): number {
  let found = Infinity
  for (const value of values) found = Math.min(found, value)
  return found
}

export function greatest(values: Iterable<number>): number {
  let found = -Infinity
  for (const value of values) found = Math.max(found, value)
  return found
}
