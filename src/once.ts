/** Reads once, at the first call: the value, or the same error at every call. */
export function once<T>(read: () => T): () => T {
  let kept: { value: T } | { error: unknown } | undefined
  return () => {
    if (!kept) {
      try {
        kept = { value: read() }
      } catch (error) {
        kept = { error }
      }
    }
    if ('error' in kept) throw kept.error
    return kept.value
  }
}
