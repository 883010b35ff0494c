import { wellFormed, wellFormedText } from '../../../src/github/well-formed.js'

/**
 * Every text the action sends to GitHub well-formed (issue #26): lone surrogates replaced, pairs
 * kept, in one pass.
 */

test('a lone surrogate, high or low, becomes U+FFFD; a pair stays whole', () => {
  expect(wellFormedText('a\ud800b')).toBe('a\ufffdb')
  expect(wellFormedText('a\udc00b')).toBe('a\ufffdb')
  expect(wellFormedText('end \ud83d')).toBe('end \ufffd')
  expect(wellFormedText('\udc00\ud800')).toBe('\ufffd\ufffd')
  expect(wellFormedText('🙂 \ud83d\ude42 漢')).toBe('🙂 🙂 漢')
  expect(wellFormedText('\ud83d\ud83d\ude42')).toBe('\ufffd🙂')
  // As Node's own toWellFormed (Node 20+) has it.
  const mixed = 'x\ud800\udc00\udc00\ud800y\ud83d'
  const toWellFormed = (String.prototype as unknown as { toWellFormed: () => string }).toWellFormed
  expect(wellFormedText(mixed)).toBe(toWellFormed.call(mixed))
})

test('every string of a request’s parameters, keys included; functions and signals kept as they are', () => {
  const signal = new AbortController().signal
  const fetch = (): void => undefined
  const params = {
    body: 'reason \ud800',
    output: { title: 'T\udc00', summary: ['a', 'b\ud83d'] },
    'k\ud800': 1,
    request: { fetch, signal },
    number: 7,
    none: null
  }
  const sent = wellFormed(params)
  expect(sent).toEqual({
    body: 'reason \ufffd',
    output: { title: 'T\ufffd', summary: ['a', 'b\ufffd'] },
    'k\ufffd': 1,
    request: { fetch, signal },
    number: 7,
    none: null
  })
  expect(sent.request.signal).toBe(signal)
  // A key __proto__ stays a key of its own.
  const hostile = wellFormed(JSON.parse('{"__proto__": {"polluted": "\\ud800"}}') as Record<string, unknown>)
  expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype)
  expect(Object.keys(hostile)).toEqual(['__proto__'])
})
