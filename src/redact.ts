/**
 * Secrets in every form the service's text could carry them: as they are, in any case, URL-encoded,
 * base64-encoded at any of the three alignments (standard and URL-safe alphabets), and broken by
 * line breaks, blanks or invisible characters. The runner masks some of these on the console only;
 * the tracking comment, the summary, the outputs and the log file are ours to protect.
 */

/** What may break a secret in two without a reader noticing: blanks, line breaks, format characters. */
const BREAK =
  '[\\s\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0]*'

/** Shortest form worth matching: below it, ordinary text would be cut. */
const MIN_FORM_CHARS = 6

const escape = (char: string): string => char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

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

const compiled = new Map<string, RegExp | undefined>()

/** One pattern for all forms, case-insensitive, each character allowed to be followed by a break. */
function patternOf(secrets: string[]): RegExp | undefined {
  const key = secrets.join('\u0000')
  if (compiled.has(key)) return compiled.get(key)
  const forms = secretForms(secrets)
  const pattern =
    forms.length === 0
      ? undefined
      : new RegExp(forms.map(form => [...form].map(escape).join(BREAK)).join('|'), 'giu')
  compiled.set(key, pattern)
  return pattern
}

/** `text` with every form of every secret replaced by ***. */
export function redactText(text: string, secrets: string[]): string {
  const pattern = patternOf(secrets)
  return pattern ? text.replace(pattern, '***') : text
}

/** Replaces every secret in every string of `value` (deeply), object keys included, with ***. */
export function redactDeep<T>(value: T, secrets: string[]): T {
  const pattern = patternOf(secrets)
  if (!pattern) return value
  const redact = (text: string): string => text.replace(pattern, '***')
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return redact(node)
    if (Array.isArray(node)) return node.map(walk)
    if (node && typeof node === 'object') {
      const out: Record<string, unknown> = {}
      for (const [key, child] of Object.entries(node)) {
        let name = redact(key)
        // Two keys that were secrets stay two keys.
        for (let n = 2; name in out; n++) name = `${redact(key)} (${n})`
        out[name] = walk(child)
      }
      return out
    }
    return node
  }
  return walk(value) as T
}
