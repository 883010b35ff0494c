import {
  COMMENT_MAX_CHARS,
  CHECK_SUMMARY_MAX_BYTES,
  createMarkerLine,
  createMarkOf,
  cutUtf8,
  markerLine,
  OWN_COMMENT_MARK,
  utf8Bytes
} from '../../../src/github-shapes.js'

/** What GitHub takes of our texts (src/github-shapes.ts): its sizes as it counts them, and our comments' mark. */

test('GitHub counts a check run’s text in UTF-8 bytes; a lone surrogate is sent as three', () => {
  expect(utf8Bytes('abc')).toBe(3)
  expect(utf8Bytes('é')).toBe(2)
  expect(utf8Bytes('漢')).toBe(3)
  expect(utf8Bytes('😀')).toBe(4)
  expect(utf8Bytes('\ud800')).toBe(3)
})

test('cutUtf8: the longest head within the bytes, never inside a character', () => {
  expect(cutUtf8('abc', 10)).toBe('abc')
  expect(cutUtf8('漢漢漢', 7)).toBe('漢漢')
  expect(cutUtf8('a😀b', 4)).toBe('a')
  expect(cutUtf8('a😀b', 5)).toBe('a😀')
  expect(cutUtf8('abc', 0)).toBe('')
  const big = '€'.repeat(40_000)
  expect(utf8Bytes(cutUtf8(big, CHECK_SUMMARY_MAX_BYTES))).toBeLessThanOrEqual(CHECK_SUMMARY_MAX_BYTES)
  expect(utf8Bytes(cutUtf8(big, CHECK_SUMMARY_MAX_BYTES))).toBeGreaterThan(CHECK_SUMMARY_MAX_BYTES - 3)
})

test('the sizes stay clearly under what GitHub refuses', () => {
  expect(COMMENT_MAX_CHARS).toBeLessThan(65_536)
  expect(CHECK_SUMMARY_MAX_BYTES).toBeLessThanOrEqual(65_535)
})

test('markerLine: a hidden first line with our mark, the run and its signature only when known', () => {
  expect(markerLine(undefined)).toBe(`${OWN_COMMENT_MARK} -->`)
  expect(markerLine(12)).toBe('<!-- codegen-agent-run-action run-id=12 -->')
  expect(markerLine(12, 'ab12')).toBe('<!-- codegen-agent-run-action run-id=12 sig=ab12 -->')
})

test('createMarkerLine: the mark a comment being created is found by, read back from its first line only', () => {
  const mark = 'a1'.repeat(16)
  expect(createMarkerLine(mark)).toBe(`${OWN_COMMENT_MARK} create=${mark} -->`)
  expect(createMarkOf(`${createMarkerLine(mark)}\nCodegen is starting`)).toBe(mark)
  expect(createMarkOf(`  ${createMarkerLine(mark)}  `)).toBe(mark)
  // Elsewhere than the first line, of another length, or a marker with a run: no mark.
  expect(createMarkOf(`Quoted:\n${createMarkerLine(mark)}`)).toBeUndefined()
  expect(createMarkOf(createMarkerLine('a1'))).toBeUndefined()
  expect(createMarkOf(markerLine(12, 'ab12'))).toBeUndefined()
  expect(createMarkOf(`${OWN_COMMENT_MARK} create=${'A1'.repeat(16)} -->`)).toBeUndefined()
})
