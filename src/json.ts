/**
 * JSON read from outside (the service's answers, the agent's, GitHub's payloads): an object's
 * fields, unknown until each is checked.
 */
export type JsonObject = Record<string, unknown>

/** A JSON object, not an array nor null. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The value as an object to read fields of: `{}` when it is none (an absent field reads undefined). */
export const jsonObject = (value: unknown): JsonObject =>
  value && typeof value === 'object' ? (value as JsonObject) : {}

/** A text field: '' when it is not a string. */
export const jsonText = (value: unknown): string => (typeof value === 'string' ? value : '')

/** A whole number above 0 (an id, a count), exact as a number; undefined otherwise. */
export const jsonPositive = (value: unknown): number | undefined =>
  Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : undefined
