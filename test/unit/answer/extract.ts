import { MAX_ANSWER_BYTES, nestsDeeperThan, parseBounded } from '../../../src/answer/bounded-json.js'
import { extractAnswer, fencedBlocks } from '../../../src/answer/extract.js'
import { renderMarkdown, visibleText } from '../../../scripts/render-markdown.js'

const block = (language: string, body: string, fence = '```'): string =>
  `${fence}${language}\n${body}\n${fence}`

describe('extractAnswer: where the answer is read from', () => {
  test('the last fenced json block, whatever comes before or after it', () => {
    const result = [
      'I looked at the change.',
      block('json', '{"verdict": "fail", "reason": "first draft"}'),
      'On reflection:',
      block('json', '{"verdict": "pass", "reason": "second"}'),
      block('', '{"not": "this"}'),
      'Done.'
    ].join('\n\n')
    expect(extractAnswer(result)).toEqual({ kind: 'json', value: { verdict: 'pass', reason: 'second' } })
  })

  test('the json tag in any case, with more words after it, in tildes or indented', () => {
    expect(extractAnswer(block('JSON title="answer"', '{"a": 1}'))).toEqual({ kind: 'json', value: { a: 1 } })
    expect(extractAnswer(block('json', '{"a": 2}', '~~~~'))).toEqual({ kind: 'json', value: { a: 2 } })
    expect(extractAnswer('1. The answer:\n   ```json\n   {"a": 3}\n   ```\n')).toEqual({
      kind: 'json',
      value: { a: 3 }
    })
    expect(extractAnswer('```json\r\n{"a": 4}\r\n```\r\n')).toEqual({ kind: 'json', value: { a: 4 } })
  })

  test.each([
    ['indented four spaces: indented code', '    ```json\n    {"a": 1}\n    ```'],
    ['indented by a tab: indented code', '\t```json\n{"a": 2}\n```'],
    [
      'four spaces after a paragraph line: the paragraph goes on',
      'The answer:\n    ```json\n    {"a": 3}\n    ```'
    ],
    ['three spaces: a fence', '   ```json\n{"a": 4}\n```'],
    ['in a list item, at its content column: a fence', '- The answer:\n\n    ```json\n    {"a": 5}\n    ```'],
    ['in an ordered item, on its first line: a fence', '10. ```json\n    {"a": 6}\n    ```'],
    ['after the list ended: indented code again', '- item\n\nText.\n\n    ```json\n    {"a": 7}\n    ```'],
    ['a closing fence indented four spaces is content', '```json\n{"a": 8}\n    ```\n```']
  ])('only what CommonMark reads as a fence is one: %s', (_, markdown) => {
    // What GitHub shows as json code blocks, and what is read as them (lines compared unindented:
    // CommonMark takes a list item's indentation off its code).
    const lines = (code: string): string[] =>
      code
        .split('\n')
        .map(line => line.trim())
        .filter(Boolean)
    const shown = [
      ...renderMarkdown(markdown).matchAll(/<code class="language-json">([\s\S]*?)<\/code>/g)
    ].map(match => lines(visibleText(`<pre>${match[1] ?? ''}</pre>`)))
    const read = fencedBlocks(markdown)
      .filter(found => found.language === 'json')
      .map(found => lines(markdown.slice(found.start, found.end)))
    expect(read).toEqual(shown)
    expect(shown.length).toBeLessThanOrEqual(1)
  })

  test('a longer fence holds shorter ones: a json block shown inside is not the answer', () => {
    const result = [
      'Asked for this format:',
      '````markdown',
      '```json',
      '{"shown": true}',
      '```',
      '````',
      block('json', '{"answer": true}', '~~~'),
      '````json',
      '{"last": "```"}',
      '```',
      '````'
    ].join('\n')
    expect(fencedBlocks(result).map(found => found.language)).toEqual(['markdown', 'json', 'json'])
    // The last json block holds a ``` line: it is not JSON, and is read as the (unreadable) answer.
    expect(extractAnswer(result).kind).toBe('unreadable')
    expect(extractAnswer(result.split('````json')[0] ?? '')).toEqual({
      kind: 'json',
      value: { answer: true }
    })
    // Three backticks and then a backtick in the info string are inline code, not a fence: the
    // last line opens the only block, empty and unclosed.
    expect(fencedBlocks('```json `x`\n{"a":1}\n```')).toEqual([{ language: '', start: 23, end: 23 }])
  })

  test('an unclosed json block runs to the end of the result', () => {
    expect(extractAnswer('Answer:\n```json\n{"a": [1, 2]}\n')).toEqual({ kind: 'json', value: { a: [1, 2] } })
    expect(extractAnswer('Answer:\n```json')).toEqual({
      kind: 'unreadable',
      problem: expect.stringMatching(/^it is not valid JSON/)
    })
  })

  test('without a json block: the last untagged block that parses as JSON, code that does not is passed over', () => {
    const result = [
      block('', '{"first": true}'),
      block('', '[1, 2, 3]'),
      block('ts', 'function f() { return 1 }'),
      block('', '{ not json }'),
      'Some closing words.'
    ].join('\n')
    expect(extractAnswer(result)).toEqual({ kind: 'json', value: [1, 2, 3] })
  })

  test('without any block: the whole result when it parses, else nothing', () => {
    expect(extractAnswer('  {"verdict": "pass", "reason": "ok"}\n')).toEqual({
      kind: 'json',
      value: { verdict: 'pass', reason: 'ok' }
    })
    expect(extractAnswer('The API is unchanged. {"a": 1} is an example.')).toEqual({ kind: 'none' })
    expect(extractAnswer('42')).toEqual({ kind: 'none' })
    expect(extractAnswer('')).toEqual({ kind: 'none' })
    expect(extractAnswer('[a link](https://example.com) and more')).toEqual({ kind: 'none' })
  })

  test('a json block that is not JSON is the answer, unreadable: earlier blocks are not read instead', () => {
    const result = `${block('', '{"a": 1}')}\n${block('json', '{\n  "verdict": "pass",\n  reason: "x"\n}')}`
    const extracted = extractAnswer(result)
    expect(extracted.kind).toBe('unreadable')
    if (extracted.kind !== 'unreadable') return
    expect(extracted.problem).toMatch(/^it is not valid JSON: .* at line 3, column 3$/)
    // The problem never quotes the agent's text.
    expect(extracted.problem).not.toContain('reason')
  })
})

describe('extractAnswer: bounded on hostile text', () => {
  const deep = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels)

  test('exactly 64 levels are read; 65 are refused unparsed', () => {
    expect(extractAnswer(block('json', deep(64))).kind).toBe('json')
    expect(extractAnswer(block('json', deep(65)))).toEqual({
      kind: 'unreadable',
      problem: 'it nests deeper than 64 levels'
    })
    // Brackets inside strings, escaped quotes included, are not nesting.
    expect(nestsDeeperThan(JSON.stringify({ a: '['.repeat(100) + '\\"{{{{' }), 2)).toBe(false)
    expect(nestsDeeperThan('{"a": {"b": {}}}', 2)).toBe(true)
  })

  test('100,000-deep nesting, in a json block, an untagged block or the whole result: refused, no crash', () => {
    const hostile = deep(100_000)
    const refused = { kind: 'unreadable', problem: 'it nests deeper than 64 levels' }
    expect(extractAnswer(block('json', hostile))).toEqual(refused)
    expect(extractAnswer(`Here:\n${block('', hostile)}`)).toEqual(refused)
    expect(extractAnswer(hostile)).toEqual(refused)
    expect(extractAnswer(`{"a": ${'{"a": '.repeat(100_000)}1${'}'.repeat(100_001)}`)).toEqual(refused)
  })

  test('a 3 MB answer is refused by its size without being parsed, in a block or as the whole result', () => {
    const big = JSON.stringify({ verdict: 'pass', reason: 'x'.repeat(3_000_000) })
    const started = performance.now()
    const inBlock = extractAnswer(`Long.\n${block('json', big)}`)
    const whole = extractAnswer(big)
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(inBlock).toEqual({
      kind: 'unreadable',
      problem: 'it is 2.9 MiB, over the 1 MiB an answer may take'
    })
    expect(whole).toEqual(inBlock)
    // Measured in bytes of UTF-8: 400,000 three-byte characters are over the limit.
    expect(parseBounded(JSON.stringify({ a: '€'.repeat(400_000) }))).toMatchObject({
      ok: false,
      refused: true
    })
    expect(parseBounded(JSON.stringify({ a: 'x'.repeat(MAX_ANSWER_BYTES - 10) }))).toMatchObject({ ok: true })
  })

  test('many fences, long fence lines and unclosed fences take linear time', () => {
    const cases = [
      '```\n{\n```\n'.repeat(30_000),
      '```json\n'.repeat(30_000),
      '`'.repeat(300_000),
      `\`\`\`json ${'`'.repeat(300_000)}\n{}\n`,
      '~~~\n'.repeat(70_000),
      `${'{"a":'.repeat(50_000)}\n\`\`\`\n`
    ]
    // Alone, each takes under 0.05 s of CPU; a scan quadratic in these 300 KB would take minutes, so
    // 10 s tells the two apart (the linearity suite, npm run test:linearity, measures the growth).
    // CPU time, not the clock's: other jobs on the machine do not count.
    for (const text of cases) {
      const started = process.cpuUsage()
      const extracted = extractAnswer(text)
      const { user, system } = process.cpuUsage(started)
      expect((user + system) / 1_000).toBeLessThan(10_000)
      expect(['none', 'unreadable']).toContain(extracted.kind)
    }
  })
})
