import type { LogEntry } from '../api/types.js'
import { cutChars, oneLine } from '../text.js'

/** Plain-text views of a log entry, shared by the console mirror and the job summary. */

// Cut and folded as every text is (text.ts); the report's renderers take them from here.
export { cutChars, oneLine }

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

/** "1 log entry", "3 log entries". */
export function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`
}

/** The note `trimmed` ends a cut text with. */
const CUT_NOTE = /\n… \((\d+) more characters\)$/

/** Whether `text` was cut by `trimmed` (it ends with the note). */
export function wasTrimmed(text: string): boolean {
  return CUT_NOTE.test(text.slice(-40))
}

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

/** A time as the service writes it is some 32 characters; past these, the rest is not read. */
const TIME_CHARS = 64

/** HH:MM:SS (UTC) of the entry; the service writes times with or without the `T` and zone. */
export function entryTime(entry: LogEntry): string {
  // Cut first: parsing and searching a flooded field cost some 20 ms a 400 KB, on every entry.
  const raw = (entry.created_at ?? '').slice(0, TIME_CHARS)
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

/**
 * The short thought that heads an entry: its reasoning, else what it observed. Empty when it has
 * neither (the tool's name, shown beside it, says what it did).
 */
export function entryGist(entry: LogEntry, max: number): string {
  // Tried in order, each made only when the one before is empty.
  const candidates = [() => entry.thought, () => valueText(entry.observation)]
  for (const candidate of candidates) {
    const text = candidate()
    if (text && text.trim()) return oneLine(text, max)
  }
  return ''
}

/** One labelled part of an entry's details; `prose` is text written for people, the rest is data. */
export interface DetailSection {
  label: string
  text: string
  prose: boolean
}

const isMultiLine = (value: unknown): value is string => typeof value === 'string' && value.includes('\n')

/**
 * The entry's details in labelled sections, each trimmed: the full thought (when its gist of
 * `gistChars` does not show it all, as it was written), tool input, tool output, observation. A field of an object whose value is a
 * multi-line string (stdout, a file, a diff) gets a section of its own, its lines as they are,
 * rather than one JSON line full of `\n`.
 */
export function entrySections(entry: LogEntry, maxPerSection: number, gistChars: number): DetailSection[] {
  const sections: DetailSection[] = []
  const push = (label: string, value: unknown, prose = false): void => {
    const text = valueText(value).trim()
    if (text) sections.push({ label, text: trimmed(text, maxPerSection), prose })
  }
  const add = (label: string, value: unknown): void => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return push(label, value)
    const fields = Object.entries(value as Record<string, unknown>)
    const long = fields.filter(([, field]) => isMultiLine(field))
    if (long.length === 0) return push(label, value)
    const rest = fields.filter(([, field]) => !isMultiLine(field))
    if (rest.length > 0) push(label, Object.fromEntries(rest))
    for (const [key, field] of long) push(`${label} · ${key}`, field)
  }
  const thought = entry.thought ?? ''
  if (thought.trim() && oneLine(thought, gistChars) !== thought.trim()) push('thought', thought, true)
  add('tool input', entry.tool_input)
  add('tool output', entry.tool_output)
  if (typeof entry.observation === 'string') push('observation', entry.observation, true)
  else add('observation', entry.observation)
  return sections
}

/** The entry's details as text: each section under its label. */
export function entryDetails(entry: LogEntry, maxPerSection: number, gistChars: number): string {
  return entrySections(entry, maxPerSection, gistChars)
    .map(section => `${section.label}:\n${section.text}`)
    .join('\n\n')
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
