/** An answer block larger than this (bytes of UTF-8) is refused unread: `structured-output` stays under it. */
export const MAX_ANSWER_BYTES = 1024 * 1024

/** An answer nested deeper than this is refused unread: JSON.stringify, ajv and renderers recurse. */
export const MAX_ANSWER_DEPTH = 64

/** A failed parse: `refused` when the text was over the bounds and not parsed at all. */
export type BoundedParse = { ok: true; value: unknown } | { ok: false; refused: boolean; problem: string }

const OPEN = new Set(['{', '['])

/**
 * Whether brackets outside strings nest deeper than `max`: one pass over the text, constant memory,
 * so a hostile 100,000-deep text costs no stack and no parse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let at = 0; at < text.length; at++) {
    const char = text[at]
    if (inString) {
      if (char === '\\') at++
      else if (char === '"') inString = false
    } else if (char === '"') inString = true
    else if (char !== undefined && OPEN.has(char)) {
      if (++depth > max) return true
    } else if (char === '}' || char === ']') depth--
  }
  return false
}

/**
 * What JSON.parse said, without the text it quotes ("Unexpected token '}', "{…" is not valid JSON"),
 * and where, as line and column.
 */
function parseProblem(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : ''
  const what = message
    .replace(/, ".*$/s, '')
    .replace(/ (in JSON )?at position \d+.*$/s, '')
    .slice(0, 100)
  const position = /at position (\d+)/.exec(message)?.[1]
  if (position === undefined) return `it is not valid JSON: ${what}`
  const before = text.slice(0, Number(position))
  const line = before.split('\n').length
  const column = before.length - before.lastIndexOf('\n')
  return `it is not valid JSON: ${what} at line ${line}, column ${column}`
}

/**
 * JSON.parse within the answer's bounds: the size and depth are checked first, so an oversized or
 * deeply nested block is refused without being parsed. The problem never quotes the text.
 */
export function parseBounded(text: string): BoundedParse {
  // A UTF-16 unit makes at most 3 bytes of UTF-8: a text this short cannot be over the limit.
  if (text.length > MAX_ANSWER_BYTES / 3 && Buffer.byteLength(text, 'utf8') > MAX_ANSWER_BYTES) {
    const mib = (Buffer.byteLength(text, 'utf8') / 1024 / 1024).toFixed(1)
    return { ok: false, refused: true, problem: `it is ${mib} MiB, over the 1 MiB an answer may take` }
  }
  if (nestsDeeperThan(text, MAX_ANSWER_DEPTH)) {
    return { ok: false, refused: true, problem: `it nests deeper than ${MAX_ANSWER_DEPTH} levels` }
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (error) {
    return { ok: false, refused: false, problem: parseProblem(error, text) }
  }
}
