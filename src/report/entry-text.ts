import type { LogEntry } from '../api/types.js'

/** Plain-text views of a log entry, shared by the console mirror and the job summary. */

/** Any value as readable text: strings as they are, the rest as indented JSON. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value, null, 2) ?? String(value)
  } catch {
    return String(value)
  }
}

/** The first `max` UTF-16 units of `text`, never half of a surrogate pair. */
function cutChars(text: string, max: number): string {
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

/** `text` on one line, whitespace folded, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  // Only the head can show: folding a long text whole costs more than the rest of an entry's work.
  const window = max * 4
  const cut = text.length > window
  const folded = (cut ? cutChars(text, window) : text).replace(/\s+/g, ' ').trim()
  return folded.length > max || cut ? `${cutChars(folded, max - 1)}…` : folded
}

/** The note `trimmed` ends a cut text with. */
const CUT_NOTE = /\n… \((\d+) more characters\)$/

/** `text` cut to `max` characters, saying how much was left out. */
export function trimmed(text: string, max: number): string {
  if (text.length <= max) return text
  // Cut before (a kept entry): its note still tells the true count.
  const note = CUT_NOTE.exec(text.slice(-40))
  if (note && text.length - note[0].length <= max) return text
  const kept = cutChars(text, max)
  return `${kept}\n… (${text.length - kept.length} more characters)`
}

/**
 * The entry with every text cut to `max` characters (structured values as their JSON text), so that
 * what is kept of it for later is bounded and still shows what the summary would show.
 */
export function cutEntry(entry: LogEntry, max: number): LogEntry {
  // A copy, not a slice: V8's slices keep the whole text they were cut from alive.
  const copy = (text: string): string => Buffer.from(text, 'utf8').toString('utf8')
  const cut = (value: unknown): unknown => {
    if (typeof value === 'string') return value.length > max ? copy(trimmed(value, max)) : value
    if (value === null || typeof value !== 'object') return value
    const text = valueText(value)
    return text.length > max ? copy(trimmed(text, max)) : value
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(entry)) out[key] = cut(value)
  return out as unknown as LogEntry
}

/** HH:MM:SS (UTC) of the entry; the service writes times with or without the `T` and zone. */
export function entryTime(entry: LogEntry): string {
  const raw = entry.created_at ?? ''
  const match = /(\d{2}:\d{2}:\d{2})/.exec(raw)
  const parsed = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(raw) ? raw : `${raw.replace(' ', 'T')}Z`)
  if (!Number.isNaN(parsed)) return new Date(parsed).toISOString().slice(11, 19)
  return match?.[1] ?? '--:--:--'
}

/** Lengths of the one-line fields: the service does not bound them. */
const TYPE_CHARS = 40
const TOOL_CHARS = 80

export function entryType(entry: LogEntry): string {
  return oneLine(entry.message_type ?? '', TYPE_CHARS) || 'LOG'
}

export function entryTool(entry: LogEntry): string {
  return oneLine(entry.tool_name ?? '', TOOL_CHARS)
}

/** The short thought that heads an entry: its reasoning, else what it concluded or observed. */
export function entryGist(entry: LogEntry, max: number): string {
  // Tried in order, each made only when the one before is empty.
  const candidates = [
    () => entry.thought,
    () => valueText(entry.observation),
    () => (entry.tool_name ? `ran ${entry.tool_name}` : '')
  ]
  for (const candidate of candidates) {
    const text = candidate()
    if (text && text.trim()) return oneLine(text, max)
  }
  return ''
}

/** The entry's details in labelled sections, each trimmed: tool input, tool output, observation, full thought. */
export function entryDetails(entry: LogEntry, maxPerSection: number): string {
  const sections: string[] = []
  const add = (label: string, value: unknown): void => {
    const text = valueText(value).trim()
    if (text) sections.push(`${label}:\n${trimmed(text, maxPerSection)}`)
  }
  if (entry.thought && entry.thought.length > 120) add('thought', entry.thought)
  add('tool input', entry.tool_input)
  add('tool output', entry.tool_output)
  add('observation', entry.observation)
  return sections.join('\n\n')
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds % 60
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`
  return `${s}s`
}
