/**
 * The scalar values of the inputs, read the way every reader of settings/ reads: a bad value pushes
 * one problem naming the input and what was expected, and a stand-in is returned.
 */

export function positiveInteger(name: string, text: string, problems: string[]): number | undefined {
  const value = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value <= 0) {
    problems.push(`${name}: expected a positive integer, got "${text}"`)
    return undefined
  }
  return value
}

export function optionalInteger(name: string, text: string, problems: string[]): number | undefined {
  return text ? positiveInteger(name, text, problems) : undefined
}

/** The YAML 1.2 core booleans, as @actions/core's getBooleanInput accepts them. */
export function boolean(name: string, text: string, problems: string[]): boolean {
  if (['true', 'True', 'TRUE'].includes(text)) return true
  if (['false', 'False', 'FALSE'].includes(text)) return false
  problems.push(`${name}: expected true or false, got "${text}"`)
  return false
}
