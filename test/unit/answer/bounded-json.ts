import {
  MAX_ANSWER_BYTES,
  MAX_ANSWER_DEPTH,
  nestsDeeperThan,
  parseBounded
} from '../../../src/answer/bounded-json.js'

/** JSON.parse within the answer's bounds: size and depth checked before any parse, problems that never quote. */

const nested = (levels: number, open = '[', close = ']'): string => open.repeat(levels) + close.repeat(levels)

describe('nestsDeeperThan', () => {
  test('counts brackets and braces alike, up to and past the limit', () => {
    expect(nestsDeeperThan(nested(2), 2)).toBe(false)
    expect(nestsDeeperThan(nested(3), 2)).toBe(true)
    expect(nestsDeeperThan('{"a": [{"b": 1}]}', 3)).toBe(false)
    expect(nestsDeeperThan('{"a": [{"b": []}]}', 3)).toBe(true)
    expect(nestsDeeperThan('{}', 0)).toBe(true)
    expect(nestsDeeperThan('1', 0)).toBe(false)
  })

  test('siblings do not add up: depth is the deepest point, not the count of brackets', () => {
    expect(nestsDeeperThan(`[${'[], '.repeat(1_000)}[]]`, 2)).toBe(false)
  })

  test('brackets inside strings are text, and an escaped backslash ends before the closing quote', () => {
    expect(nestsDeeperThan('["[[[[", "{{{{"]', 1)).toBe(false)
    // "\\" is one backslash and the string ends: the brackets after it nest.
    expect(nestsDeeperThan('["\\\\", [[]]]', 2)).toBe(true)
    // "\"" is a quote inside the string: the brackets after it are still text.
    expect(nestsDeeperThan('["\\"[[[["]', 1)).toBe(false)
  })

  test('100,000 levels are told in one pass, without a stack', () => {
    expect(nestsDeeperThan(nested(100_000), MAX_ANSWER_DEPTH)).toBe(true)
  })
})

describe('parseBounded', () => {
  test('JSON within the bounds is parsed', () => {
    expect(parseBounded('{"verdict": "pass", "n": [1, 2]}')).toEqual({
      ok: true,
      value: { verdict: 'pass', n: [1, 2] }
    })
    expect(parseBounded('null')).toEqual({ ok: true, value: null })
  })

  test(`exactly ${MAX_ANSWER_DEPTH} levels are parsed; one more is refused unparsed`, () => {
    expect(parseBounded(nested(MAX_ANSWER_DEPTH))).toMatchObject({ ok: true })
    expect(parseBounded(nested(MAX_ANSWER_DEPTH + 1, '{"a":', '}'))).toEqual({
      ok: false,
      refused: true,
      problem: `it nests deeper than ${MAX_ANSWER_DEPTH} levels`
    })
  })

  test('the size is counted in bytes of UTF-8: the limit itself passes, one byte more is refused', () => {
    const string = (bytes: number): string => `"${'x'.repeat(bytes - 2)}"`
    expect(parseBounded(string(MAX_ANSWER_BYTES))).toMatchObject({ ok: true })
    expect(parseBounded(string(MAX_ANSWER_BYTES + 1))).toEqual({
      ok: false,
      refused: true,
      problem: 'it is 1.0 MiB, over the 1 MiB an answer may take'
    })
    // Fewer characters than the limit, more bytes: three-byte and four-byte characters.
    const euros = `"${'€'.repeat(MAX_ANSWER_BYTES / 3)}"`
    expect(euros.length).toBeLessThan(MAX_ANSWER_BYTES)
    expect(parseBounded(euros)).toMatchObject({ ok: false, refused: true })
    expect(parseBounded(`"${'🙂'.repeat(MAX_ANSWER_BYTES / 4)}"`)).toMatchObject({ ok: false, refused: true })
  })

  test('a text that is not JSON: why and where, as line and column, never the text itself', () => {
    const problem = (text: string): string => {
      const parsed = parseBounded(text)
      expect(parsed).toMatchObject({ ok: false, refused: false })
      return parsed.ok ? '' : parsed.problem
    }
    expect(problem('{\n  "a": 1,\n  oops\n}')).toMatch(/^it is not valid JSON: .+ at line 3, column 3$/)
    expect(problem('')).toBe('it is not valid JSON: Unexpected end of JSON input')
    const secret = 'cg_sk_SECRET_in_the_answer'
    for (const text of [
      `{"token": "${secret}", }`,
      `{"token": ${secret}}`,
      `{"a": 1} ${secret}`,
      `${secret}`,
      `["${secret}`
    ]) {
      expect(problem(text)).toMatch(/^it is not valid JSON: /)
      expect(problem(text)).not.toContain('SECRET')
      expect(problem(text).length).toBeLessThan(160)
    }
  })
})
