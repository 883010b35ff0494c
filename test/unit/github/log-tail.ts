import { LOG_TAIL_BYTES, LOG_TAIL_CHARS, logTail, TailBuffer } from '../../../src/github/log-tail.js'

/** The end of a job's log (src/github/log-tail.ts): kept as it streams, in bounded memory, then made plain text. */

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)

/** `data` pushed in pieces of `size` bytes. */
function streamed(data: Uint8Array, size: number, capacity = LOG_TAIL_BYTES): TailBuffer {
  const tail = new TailBuffer(capacity)
  for (let at = 0; at < data.length; at += size) tail.push(data.subarray(at, at + size))
  return tail
}

describe('TailBuffer', () => {
  test('keeps the last bytes, whatever the pieces the stream comes in', () => {
    const data = new Uint8Array(10_000).map((_, i) => i % 251)
    for (const size of [1, 7, 100, 999, 1_000, 1_001, 10_000])
      expect(streamed(data, size, 1_000).bytes()).toEqual(data.subarray(9_000))
    const short = streamed(data.subarray(0, 600), 64, 1_000)
    expect(short.bytes()).toEqual(data.subarray(0, 600))
    expect([short.total, short.cut]).toEqual([600, false])
    const long = streamed(data, 333, 1_000)
    expect([long.total, long.cut]).toEqual([10_000, true])
  })

  test('holds its capacity, not the stream: 5 MB pass through 256 KiB', () => {
    const tail = new TailBuffer()
    const piece = new Uint8Array(1 << 20).fill(0x61)
    for (let i = 0; i < 5; i++) tail.push(piece)
    expect(tail.bytes()).toHaveLength(LOG_TAIL_BYTES)
    expect(tail.total).toBe(5 << 20)
  })
})

describe('logTail', () => {
  test('removes the runner’s timestamps, ANSI escapes and invisible characters; keeps the runner’s markers as text', () => {
    const log = [
      '\ufeff2026-03-02T08:59:00.1234567Z ##[group]Run npm test',
      '2026-03-02T08:59:01.0000000Z \u001b[1m\u001b[31mFAIL\u001b[39m\u001b[22m test/parser.test.ts\r',
      '2026-03-02T08:59:02.0000000Z \u001b]0;title\u0007  ● parses a quoted field\u200b',
      '2026-03-02T08:59:03.0000000Z ##[error]Process completed with exit code 1.',
      ''
    ].join('\n')
    const tail = logTail(bytes(log), bytes(log).length)
    expect(tail).toEqual({
      text: '##[group]Run npm test\nFAIL test/parser.test.ts\n  ● parses a quoted field\n##[error]Process completed with exit code 1.',
      totalBytes: bytes(log).length,
      cut: false
    })
  })

  test('a cut log starts at a whole character and a whole line', () => {
    const log = bytes(`${'é'.repeat(10)}\nsecond line\nthird line`)
    // Cut one byte into the first "é" (two bytes each).
    const kept = log.subarray(1)
    expect(logTail(kept, log.length)).toEqual({
      text: 'second line\nthird line',
      totalBytes: log.length,
      cut: true
    })
    // A log of one line is cut inside it: the line's end stays.
    const line = bytes(`${'x'.repeat(100)}é${'y'.repeat(50)}`)
    expect(logTail(line.subarray(101), line.length).text).toBe('y'.repeat(50))
  })

  test('a long text keeps its last LOG_TAIL_CHARS characters, from a line’s start', () => {
    const lines = Array.from({ length: 2_000 }, (_, i) => `line ${i} ${'-'.repeat(20)}`)
    const text = lines.join('\n')
    const tail = logTail(bytes(text), bytes(text).length)
    expect(tail.cut).toBe(true)
    expect(tail.text.length).toBeLessThanOrEqual(LOG_TAIL_CHARS)
    expect(tail.text.length).toBeGreaterThan(LOG_TAIL_CHARS - 40)
    expect(tail.text.endsWith('line 1999 --------------------')).toBe(true)
    expect(tail.text.startsWith('line ')).toBe(true)
  })

  test('a 5 MB log of one line: its last characters, plain', () => {
    const tail = new TailBuffer()
    const piece = bytes('\u001b[32mok\u001b[0m '.repeat(10_000))
    let total = 0
    while (total < 5_000_000) {
      tail.push(piece)
      total += piece.length
    }
    tail.push(bytes('THE END'))
    const read = logTail(tail.bytes(), tail.total)
    expect(read.cut).toBe(true)
    expect(read.totalBytes).toBe(tail.total)
    expect(read.text.length).toBe(LOG_TAIL_CHARS)
    expect(read.text.endsWith('ok ok THE END')).toBe(true)
    expect(read.text).not.toMatch(/\[0m|\[32m/)
  })
})
