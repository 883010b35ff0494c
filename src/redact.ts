/**
 * Secrets in every form the service's text could carry them: as they are, in any case, URL-encoded,
 * base64-encoded at any of the three alignments (standard and URL-safe alphabets), broken by line
 * breaks, blanks or invisible characters, and escaped as JSON or JavaScript strings write them (a
 * break as `\n` or `\u200b`, a character as `\u0065`: an agent's answer is JSON). The runner masks
 * some of these on the console only; the tracking comment, the summary, the outputs and the log
 * file are ours to protect.
 */

/** What may break a secret in two without a reader noticing: blanks, line breaks, format characters. */
const BREAK_CHARS =
  '[\\s\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0]'

/**
 * Code points whose `\uXXXX` escape counts as a break: controls, the space, and all past ASCII (a
 * near-secret redacted with them is no loss). None is a printable ASCII character, so a secret's
 * own characters, escaped (charPattern), are never read as breaks: one way to read each, no
 * backtracking between them.
 */
const BREAK_CODE = '(?:00[01][0-9a-f]|0020|00[89a-f][0-9a-f]|0[1-9a-f][0-9a-f]{2}|[1-9a-f][0-9a-f]{3})'

/** Breaks, as they are or escaped as JSON or JavaScript writes them (`\n`, `\t`, `\u200b`), once or more (JSON in JSON). */
const BREAK = `(?:${BREAK_CHARS}|\\\\+(?:[bfnrtv]|u${BREAK_CODE}))*`

/** Shortest form worth matching: below it, ordinary text would be cut. */
const MIN_FORM_CHARS = 6

const escape = (char: string): string => char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

/**
 * One character of a secret: itself (in any case), or, when it is printable ASCII, escaped as a
 * string literal may write it (`\u0065`, `\/`).
 */
function charPattern(char: string): string {
  const code = char.charCodeAt(0)
  if (char.length !== 1 || code <= 0x20 || code >= 0x7f) return escape(char)
  const codes = new Set([char, char.toLowerCase(), char.toUpperCase()])
  const escapes = [...codes].map(one => `\\\\+u${one.charCodeAt(0).toString(16).padStart(4, '0')}`)
  if ('"/'.includes(char)) escapes.push(`\\\\+${escape(char)}`)
  return `(?:${escape(char)}|${escapes.join('|')})`
}

/**
 * The base64 text that stands for `secret` wherever it starts in a longer base64 stream: the
 * characters fully determined by its bytes at each of the three byte alignments.
 */
export function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8')
  const forms: string[] = []
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '')
    // The first characters also carry the bytes before it; the last one, unless the length
    // falls on a group of three, the bytes after it.
    const skip = Math.ceil((offset * 8) / 6)
    const drop = (offset + bytes.length) % 3 === 0 ? 0 : 1
    forms.push(encoded.slice(skip, encoded.length - drop))
  }
  return forms
}

/** Every form of the secrets, longest first; empty when none is worth matching. */
export function secretForms(secrets: string[]): string[] {
  const forms = new Set<string>()
  for (const secret of secrets.filter(candidate => candidate.length >= 4)) {
    forms.add(secret)
    const encoded = [encodeURIComponent(secret), ...base64Forms(secret)]
    for (const form of encoded.filter(candidate => candidate.length >= MIN_FORM_CHARS)) {
      forms.add(form)
      forms.add(form.replace(/\+/g, '-').replace(/\//g, '_'))
    }
  }
  return [...forms].sort((a, b) => b.length - a.length)
}

const compiled = new Map<string, RegExp[]>()

/**
 * One pattern a form, case-insensitive, each character allowed to be followed by a break, applied
 * longest first. Not one pattern for all: V8 runs a union of two secrets' forms some 20 times
 * slower (about 100 ms a MB of text against 5).
 */
function patternsOf(secrets: string[]): RegExp[] {
  const key = secrets.join('\u0000')
  const known = compiled.get(key)
  if (known) return known
  const patterns = secretForms(secrets).map(form => new RegExp([...form].map(charPattern).join(BREAK), 'giu'))
  compiled.set(key, patterns)
  return patterns
}

/** `text` with every form of each secret replaced by ***, the longest forms first. */
function replaceForms(text: string, patterns: RegExp[]): string {
  let redacted = text
  for (const pattern of patterns) redacted = redacted.replace(pattern, '***')
  return redacted
}

/** `text` with every form of every secret replaced by ***. */
export function redactText(text: string, secrets: string[]): string {
  return replaceForms(text, patternsOf(secrets))
}

/**
 * Levels of nesting walked; what lies deeper is replaced by DEEPER_CUT (never a stack overflow). An
 * answer's 64 levels (bounded-json.ts) fit whole under a fan-out report's own six.
 */
export const MAX_DEPTH = 72
export const DEEPER_CUT = '[… nested too deep: cut]'

/**
 * Replaces every secret in every string of `value` (deeply), object keys included, with ***. A
 * copy, walked without recursion to MAX_DEPTH levels; anything deeper is cut (DEEPER_CUT), so that
 * a value of any depth can be printed, stringified and walked again afterwards.
 */
export function redactDeep<T>(value: T, secrets: string[]): T {
  const patterns = patternsOf(secrets)
  const redact = (text: string): string => replaceForms(text, patterns)
  const root: Record<string, unknown> = { value: undefined }
  // A stack of slots to fill, as parallel arrays (no object or closure per value: a wide value
  // walked this way stays linear, garbage collection included). Each slot of a copy exists
  // already, so assigning fills it, and a key `__proto__` stays a key.
  const nodes: unknown[] = [value]
  const intos: Array<Record<string | number, unknown>> = [root]
  const keys: Array<string | number> = ['value']
  const depths: number[] = [0]
  while (nodes.length > 0) {
    const node = nodes.pop()
    const into = intos.pop() as Record<string | number, unknown>
    const key = keys.pop() as string | number
    const depth = depths.pop() as number
    if (typeof node === 'string') into[key] = redact(node)
    else if (!node || typeof node !== 'object') into[key] = node
    else if (depth >= MAX_DEPTH) into[key] = DEEPER_CUT
    else {
      // Object.keys, not Object.entries: on an object of many keys, V8's entries grows faster.
      const entries: Array<[string | number, unknown]> = Array.isArray(node)
        ? node.map((child, index): [number, unknown] => [index, child])
        : uniqueKeys(node as Record<string, unknown>, redact)
      // Object.fromEntries defines every key at once; defining them one by one grows an object in
      // quadratic time past some thousands of keys.
      const copy = Array.isArray(node)
        ? new Array<unknown>(node.length)
        : Object.fromEntries(entries.map(([name]) => [name, undefined]))
      into[key] = copy
      for (const [name, child] of entries) {
        nodes.push(child)
        intos.push(copy as Record<string | number, unknown>)
        keys.push(name)
        depths.push(depth + 1)
      }
    }
  }
  return root.value as T
}

/**
 * Each entry under its redacted key. Keys that redaction made equal (two secrets, both ***) stay
 * apart as `*** (2)`, `*** (3)`; a key redaction left alone keeps its name. Only the object's own
 * keys count, and each base name's counter only goes up: linear in the number of keys.
 */
function uniqueKeys(
  node: Record<string, unknown>,
  redact: (text: string) => string
): Array<[string, unknown]> {
  const keys = Object.keys(node)
  const names = keys.map(redact)
  const taken = new Set(keys.filter((key, index) => names[index] === key))
  const counters = new Map<string, number>()
  return keys.map((key, index) => {
    const base = names[index] as string
    if (base === key) return [key, node[key]]
    let name = base
    if (taken.has(name)) {
      let n = counters.get(base) ?? 2
      while (taken.has(`${base} (${n})`)) n++
      counters.set(base, n + 1)
      name = `${base} (${n})`
    }
    taken.add(name)
    return [name, node[key]]
  })
}
