import type { LogEntry } from '../../../src/api/types.js'
import {
  OTHER_TOOLS,
  totalUsage,
  usageJson,
  usageLine,
  usageMarkdown,
  UsageTally
} from '../../../src/report/usage.js'

const action = (tool: unknown): LogEntry => ({
  agent_run_id: 1,
  message_type: 'ACTION',
  tool_name: tool as string
})
const of = (type: string): LogEntry => ({ agent_run_id: 1, message_type: type })
const facts = { durationMs: 42_400, pullRequests: 1, resumes: 0, repairs: 0 }

test('counts the entries, the tool calls by tool, the errors, as the log arrives page by page', () => {
  const tally = new UsageTally()
  tally.add([of('PLAN_EVALUATION'), action('edit_file'), action('run_tests')])
  tally.add([action('edit_file'), of('ERROR'), action('edit_file'), of('FINAL_ANSWER')])
  expect(tally.usage(facts)).toEqual({
    durationMs: 42_400,
    logEntries: 7,
    toolCalls: 4,
    topTools: [
      { name: 'edit_file', count: 3 },
      { name: 'run_tests', count: 1 }
    ],
    errors: 1,
    pullRequests: 1,
    resumes: 0,
    repairs: 0
  })
})

test('the five tools used most, ties by name; an ACTION without a name is (unnamed)', () => {
  const tally = new UsageTally()
  tally.add(['f', 'e', 'd', 'c', 'b', 'a', 'a', null].map(action))
  expect(tally.usage(facts).topTools).toEqual([
    { name: 'a', count: 2 },
    { name: '(unnamed)', count: 1 },
    { name: 'b', count: 1 },
    { name: 'c', count: 1 },
    { name: 'd', count: 1 }
  ])
})

test('a hostile log cannot grow the tally: past 1,000 names the rest count as other tools; names one bounded line', () => {
  const tally = new UsageTally()
  tally.add(Array.from({ length: 5_000 }, (_, i) => action(`tool-${i}`)))
  tally.add([action(`x\n${'y'.repeat(10_000)}`)])
  const usage = tally.usage(facts)
  expect(usage.toolCalls).toBe(5_001)
  expect(usage.topTools[0]).toEqual({ name: OTHER_TOOLS, count: 4_001 })
  const long = new UsageTally()
  long.add([action(`x\n${'y'.repeat(10_000)}`)])
  const [name] = long.usage(facts).topTools
  expect(name?.name).toMatch(/^x y+$/)
  expect(name?.name.length).toBe(100)
})

/** Half of a UTF-16 pair without its other half. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

test('a tool name is cut at a code point: an emoji across the cut is left out whole, never split', () => {
  const named = (name: string): string => {
    const tally = new UsageTally()
    tally.add([action(name)])
    return tally.usage(facts).topTools[0]?.name ?? ''
  }
  // The 100th unit is the first half of the emoji.
  const at100 = named(`${'a'.repeat(99)}😀 and more`)
  expect(at100).toBe('a'.repeat(99))
  // Whitespace folded after the first cut (at 200 units), which splits the emoji at its end.
  const at200 = named(`${' '.repeat(150)}${'b'.repeat(49)}😀`)
  expect(at200).toBe('b'.repeat(49))
  for (const name of [at100, at200]) expect(name).not.toMatch(LONE_SURROGATE)
  // Whole in the output and the texts: no lone half, no U+FFFD where GitHub would replace it.
  const tally = new UsageTally()
  tally.add([action(`${'a'.repeat(98)}😀😀`)])
  const usage = tally.usage(facts)
  expect(usage.topTools[0]?.name).toBe(`${'a'.repeat(98)}😀`)
  expect(JSON.parse(usageJson(usage)).top_tools[0].name).toBe(`${'a'.repeat(98)}😀`)
  expect(usageJson(usage)).not.toMatch(LONE_SURROGATE)
  expect(usageMarkdown(usage)).not.toMatch(LONE_SURROGATE)
})

test('the usage output is compact JSON with the documented keys', () => {
  const tally = new UsageTally()
  tally.add([action('grep')])
  expect(JSON.parse(usageJson(tally.usage({ ...facts, repairs: 1 })))).toEqual({
    duration_seconds: 42,
    log_entries: 1,
    tool_calls: 1,
    top_tools: [{ name: 'grep', count: 1 }],
    errors: 0,
    pull_requests: 1,
    resumes: 0,
    repairs: 1
  })
})

test('many runs: sums, the longest duration, the tools most used across them', () => {
  const one = new UsageTally()
  one.add([action('grep'), action('edit'), of('ERROR')])
  const two = new UsageTally()
  two.add([action('edit'), action('edit')])
  const total = totalUsage([
    one.usage({ durationMs: 10_000, pullRequests: 1, resumes: 1, repairs: 0 }),
    two.usage({ durationMs: 30_000, pullRequests: 0, resumes: 0, repairs: 2 })
  ])
  expect(total).toMatchObject({ durationMs: 30_000, logEntries: 5, toolCalls: 4, errors: 1, pullRequests: 1 })
  expect(total.topTools).toEqual([
    { name: 'edit', count: 3 },
    { name: 'grep', count: 1 }
  ])
  expect([total.resumes, total.repairs]).toEqual([1, 2])
})

test('the usage line says the counts in words, follow-ups only when there were some', () => {
  const tally = new UsageTally()
  tally.add([action('edit_file'), action('edit_file'), action('run_tests')])
  const seconds = (ms: number): string => `${Math.round(ms / 1000)}s`
  expect(usageLine(tally.usage(facts), seconds)).toBe(
    '3 tool calls (edit_file 2, run_tests 1) · 3 log entries · 0 errors · 1 pull request · 42s'
  )
  expect(usageLine(new UsageTally().usage({ ...facts, pullRequests: 0, resumes: 1 }), seconds)).toBe(
    '0 tool calls · 0 log entries · 0 errors · 0 pull requests · 1 resume, 0 repairs · 42s'
  )
})
