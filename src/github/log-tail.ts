import { stripInvisible } from '../text.js'

/**
 * The end of a job's log, where its error is: read as a stream whatever its size, only its last
 * bytes kept (memory bounded, each byte looked at once), then made plain text (ANSI escapes and the
 * runner's timestamps removed) and cut to about 16 KB. The log is hostile (a pull request's tests
 * print whatever they like): it goes into the agent's prompt only, quoted as data.
 */

/**
 * Bytes of the log kept as it streams: enough for LOG_TAIL_CHARS once timestamps and colours go (a
 * line of coloured dots is ten bytes a character).
 */
export const LOG_TAIL_BYTES = 256 * 1024
/** Characters of a log's end the prompt quotes. */
export const LOG_TAIL_CHARS = 16_000

/** The last `capacity` bytes of a stream, in a ring: each chunk's bytes copied once, the rest dropped. */
export class TailBuffer {
  private readonly ring: Uint8Array
  /** Where the next byte goes. */
  private at = 0
  /** Bytes seen in all. */
  total = 0

  constructor(readonly capacity = LOG_TAIL_BYTES) {
    this.ring = new Uint8Array(capacity)
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length
    // Of a chunk longer than the ring, only its end can stay.
    const kept = chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk
    const first = Math.min(kept.length, this.capacity - this.at)
    this.ring.set(kept.subarray(0, first), this.at)
    this.ring.set(kept.subarray(first), 0)
    this.at = (this.at + kept.length) % this.capacity
  }

  /** The bytes kept, oldest first. */
  bytes(): Uint8Array {
    if (this.total < this.capacity) return this.ring.slice(0, this.total)
    const out = new Uint8Array(this.capacity)
    out.set(this.ring.subarray(this.at), 0)
    out.set(this.ring.subarray(0, this.at), this.capacity - this.at)
    return out
  }

  /** Whether bytes before the kept ones were dropped. */
  get cut(): boolean {
    return this.total > this.capacity
  }
}

/** The end of a log as the prompt quotes it. */
export interface LogTail {
  text: string
  /** The log's size in bytes, as it streamed. */
  totalBytes: number
  /** Text before `text` was left out. */
  cut: boolean
}

/**
 * Escape sequences a terminal reads (colours, cursor moves, titles): CSI `ESC [ … final`, OSC
 * `ESC ] … BEL|ESC \` (within its line), and other two-character escapes; also their 8-bit CSI.
 * Linear: every class here excludes what ends it.
 */
const ANSI =
  // eslint-disable-next-line no-control-regex -- escape sequences are what it removes
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]/g

/** The runner's timestamp at the start of each line: `2024-05-01T10:00:00.1234567Z `. */
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/gm

/**
 * The kept bytes of a log as plain text: a character cut in two at the start dropped, ANSI escapes,
 * timestamps and invisible characters removed, then its last `maxChars` characters, from a line's
 * start when one begins within them.
 */
export function logTail(kept: Uint8Array, totalBytes: number, maxChars = LOG_TAIL_CHARS): LogTail {
  let start = 0
  // A UTF-8 character cut at the ring's start: its continuation bytes (10xxxxxx) go.
  if (totalBytes > kept.length)
    while (start < 3 && start < kept.length && (kept[start]! & 0xc0) === 0x80) start++
  const decoded = new TextDecoder('utf-8').decode(kept.subarray(start))
  const plain = stripInvisible(decoded.replace(/\r\n?/g, '\n').replace(ANSI, '').replace(TIMESTAMP, ''))
  // Trailing line breaks trimmed by a scan: /\n+$/ would rescan every run of them that is not the last.
  let end = plain.length
  while (end > 0 && plain.charCodeAt(end - 1) === 10) end--
  let text = plain.slice(0, end)
  let cut = totalBytes > kept.length
  // The first line of a cut log is a piece of one: it goes when others follow.
  if (cut) {
    const firstBreak = text.indexOf('\n')
    if (firstBreak >= 0 && firstBreak < text.length - 1) text = text.slice(firstBreak + 1)
  }
  if (text.length > maxChars) {
    cut = true
    const end = text.slice(text.length - maxChars).replace(/^[\udc00-\udfff]/, '')
    const lineStart = end.indexOf('\n')
    text = lineStart >= 0 && lineStart < end.length - 1 ? end.slice(lineStart + 1) : end
  }
  return { text, totalBytes, cut }
}
