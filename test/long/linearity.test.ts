import type { RunReport } from '../../src/model.js'
import { serviceMessage } from '../../src/api/errors.js'
import { parseLogPage, parseRun } from '../../src/api/parse.js'
import type { LogEntry } from '../../src/api/types.js'
import { buildCiFixPrompt } from '../../src/thread/ci-fix-prompt.js'
import { logTail, TailBuffer } from '../../src/github/log-tail.js'
import { buildCommentPrompt, stripHidden } from '../../src/thread/thread-prompt.js'
import { quoteWithin } from '../../src/report/fit-text.js'
import { renderTrackingComment, type TrackingState } from '../../src/report/tracking-text.js'
import { matchPhrase, readTrigger } from '../../src/thread/trigger.js'
import { redactDeep, redactText } from '../../src/redact.js'
import { extractAnswer } from '../../src/answer/extract.js'
import {
  answerAnnotation,
  answerSection,
  repairAskedText,
  verdictMarkdown
} from '../../src/report/answer-text.js'
import { entryHeadline, entryDetailLines, inlineText } from '../../src/report/console-text.js'
import { cutEntry, entryDetails, oneLine, trimmed } from '../../src/report/entry-text.js'
import {
  codeSpan,
  escapeHtml,
  fence,
  htmlCode,
  htmlInline,
  link,
  markdownInline,
  plainLine,
  pullRequestLink,
  serviceMarkdown,
  unmention
} from '../../src/report/markdown.js'
import { fitBytes, renderSummary } from '../../src/report/summary.js'
import { renderCheckRun } from '../../src/report/check-run-text.js'
import { splitPlan } from '../../src/report/plan-text.js'
import { cutUtf8 } from '../../src/github-shapes.js'
import { wellFormed } from '../../src/github/well-formed.js'
import { findingsCountText, findingsProblems, readFindings, type Finding } from '../../src/answer/findings.js'
import {
  annotationBatches,
  findingConsoleLine,
  findingsSummarySection,
  inlineCommentBody,
  reviewBody,
  trackingFindingsLine
} from '../../src/report/findings-text.js'
import { placeFindings } from '../../src/report/review.js'
import { rightSideHunks } from '../../src/report/diff.js'
import { noCommands } from '../../src/runner/commands.js'

/**
 * The guard of issue #17: every renderer and reader of text from the service, GitHub or a thread
 * runs in time linear in its input. Each is fed adversarial inputs of 140 KB and of twice that;
 * CPU time at 2n over CPU time at n above 3 fails (quadratic work gives 4). Each time is the best of
 * three, the two sizes in turn, calls batched to at least 3 ms; a case above ×2.5 is measured
 * again, up to twice and longer (best of five batches of at least 20 ms), at 2n and 4n as well
 * (`slowCases`), before it fails: a loaded machine, or a text outgrowing the memory cache, does not
 * fail it.
 */

/** Above 128 KiB: V8 keeps larger strings apart (large-object space), a step that is not growth. */
const N = 140_000
const LIMIT = 3
/**
 * A quick look at or below this decides linear; above it, a longer look decides against LIMIT.
 * Linear cases measure about ×2 (369 quick looks: 99% at most ×2.43), and a slow spell of the
 * machine can pull quadratic work's ×4 under LIMIT in one quick look (the control case passed in
 * CI; ×2.9 measured here).
 */
const CLEAR = 2.5

type Case = [name: string, make: (n: number) => string]

/** Characters that mean something to Markdown, HTML, the runner or GitHub, and line breaks. */
const SIGNIFICANT = [...'`~*_[]!<>&\\|#@: \n\u2028']

/** Up to `n` characters of `unit` repeated. */
const fill = (unit: string, n: number): string => unit.repeat(Math.ceil(n / unit.length)).slice(0, n)

/** A run of backticks of each length 1, 2, 3… in turn: no run has a match. */
function staircase(n: number): string {
  let out = ''
  for (let k = 1; out.length < n; k++) out += `${'`'.repeat(k)}x`
  return out
}

/** Runs of each significant character, and the constructs that a naive reader rescans. */
const RUNS: Case[] = SIGNIFICANT.map((c): Case => [`run of ${JSON.stringify(c)}`, n => `x${c.repeat(n)}`])
const CONSTRUCTS: Case[] = [
  ['backtick staircase', staircase],
  ['backticks and letters', n => fill('`a``b', n)],
  ['a code span of letters', n => `\` ${'a'.repeat(n)}\``],
  ['an open fence, a line separator', n => `\`\`\`${'`'.repeat(n)}\u2028`],
  ['tildes on lines', n => fill('~~~~\n', n)],
  ['unclosed comments', n => fill('<!--', n)],
  ['unclosed processing instructions', n => fill('<?', n)],
  ['unclosed declarations', n => fill('<!a', n)],
  ['unclosed CDATA', n => fill('<![CDATA[', n)],
  ['an HTML page of many <', n => `<html${'<'.repeat(n)}`],
  ['many <title', n => `<html>${fill('<title', n)}`],
  ['images', n => fill('![', n)],
  ['images without an address', n => fill('![a](', n)],
  ['images with labels', n => `[a]: /x\n\n${fill('![a] ![a][] ![b][a] ', n)}`],
  ['nested brackets', n => `${'!['.repeat(n / 4)}${']'.repeat(n / 4)}`],
  ['definition lines', n => fill('[a\n', n)],
  ['definitions with open titles', n => fill('[a]: b "\n    x\n', n)],
  ['cross-references and mentions', n => fill('owner/repo#1 @a ', n)],
  ['img tags with alt text', n => fill('<img alt="x" ', n)],
  ['an open img tag of open alts', n => `<img${fill(" alt='", n)}`],
  ['addresses of threads', n => fill('https://github.com/o/r/issues/1 www.github.com/o/', n)],
  ['one long github.com owner', n => `https://github.com/${'a'.repeat(n)}`],
  ['runner commands', n => fill('\n  ::x ##[', n)],
  ['blank lines, then the phrase', n => `${fill(' \n', n)}/codegen x`]
]
const TEXT_CASES = [...RUNS, ...CONSTRUCTS]
/** For the functions built on those above, or that treat few characters apart: the worst ones. */
const SOME_CASES = TEXT_CASES.filter(([name]) =>
  /run of "[`~<&]"|staircase|code span|line separator|many <|unclosed comments|open titles|nested|phrase/.test(
    name
  )
)

/** CPU time of this process in ms: other processes on a loaded machine do not count in it. */
const cpu = (): number => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1_000
}

const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc
/** A young-generation collection: cheap, and what a batch of short-lived copies leaves behind. */
const collectGarbage = gc && ((): void => gc({ type: 'minor' }))

/** The best CPU time of `calls` calls of fn(input), in ms, over `rounds` rounds. */
function best(fn: (input: string) => unknown, input: string, calls: number, rounds: number): number {
  let least = Infinity
  for (let round = 0; round < rounds; round++) {
    // Each round starts with an empty heap (npm run test:linearity exposes gc): the garbage of the
    // rounds before would be collected inside this one, more of it after the larger input.
    collectGarbage?.()
    const start = cpu()
    for (let i = 0; i < calls; i++) fn(input)
    least = Math.min(least, cpu() - start)
  }
  return least
}

/**
 * The fastest a call of fn was seen to take on each input, over every batch measured: a busy machine
 * only ever adds time, so the least is the truest figure, and no one slow batch decides.
 */
class Fastest {
  private readonly perCall: number[] = []

  constructor(
    private readonly fn: (input: string) => unknown,
    /** The inputs, n, 2n and (once pushed) 4n long. */
    private readonly inputs: string[]
  ) {}

  /**
   * Time per call on input j over input i, each batched to at least `batchMs`, the least ever seen.
   * The rounds alternate the two inputs: a slow spell of the machine (CPU time doubled for a second
   * or so, measured on a 2-core VM) then falls on both, where rounds of one input, then of the
   * other, let it fall on the small one alone and pass quadratic work for linear (×2.9 measured).
   */
  growth(i: number, j: number, batchMs: number, rounds: number): number {
    const [small, large] = [this.inputs[i] as string, this.inputs[j] as string]
    const once = best(this.fn, small, 1, 1)
    const calls = Math.min(100, Math.max(1, Math.ceil(batchMs / Math.max(once, 0.01))))
    for (let round = 0; round < rounds; round++)
      for (const [k, input] of [
        [i, small],
        [j, large]
      ] as const)
        this.perCall[k] = Math.min(this.perCall[k] ?? Infinity, best(this.fn, input, calls, 1) / calls)
    return (this.perCall[j] as number) / Math.max(this.perCall[i] as number, 0.00001)
  }
}

/**
 * The cases whose growth is above LIMIT, with their ratio: the expected answer is none. Each input
 * is read once before it is timed (V8 flattens a built string on its first read, and compiles). A
 * case whose quick look is not CLEAR is measured again, longer, at n and 2n and at 2n and 4n, and
 * passes if either pair grows within LIMIT: a step in cost between n and 2n can be the memory
 * cache (the 2n text no longer fits; measured ×2.9 on a linear scan of a 560 KB string, more beside
 * other processes) and happens once, where quadratic work grows ×4 at every doubling. Up to three
 * such looks, the least time of each input kept over all: one CI run saw logTail's nested brackets
 * ×3.7 on both pairs over two looks, where alone they grow ×1.9 from 2n to 4n (0.3, 1.4, 2.7 and
 * 5.6 ms at n, 2n, 4n and 8n); quadratic work stays ×4 however often it is looked at.
 */
function slowCases(fn: (input: string) => unknown, cases: Case[]): string[] {
  // Calls enough for V8 to compile the whole function, not only its loops (a single call left the
  // control case's first timings 65% slow, as if its growth were linear).
  const warm = cases[0]?.[1](N / 8) ?? ''
  for (let i = 0; i < 10; i++) fn(warm)
  return cases.flatMap(([name, make]) => {
    const inputs = [make(N), make(2 * N)]
    inputs.forEach(input => fn(input))
    const fastest = new Fastest(fn, inputs)
    if (fastest.growth(0, 1, 3, 3) <= CLEAR) return []
    inputs.push(make(4 * N))
    fn(inputs[2] as string)
    let growth = Infinity
    for (let look = 0; look < 3 && growth > LIMIT; look++)
      growth = Math.min(fastest.growth(0, 1, 20, 5), fastest.growth(1, 2, 20, 5))
    return growth > LIMIT ? [`${name}: ×${growth.toFixed(1)}`] : []
  })
}

const TOKEN = 'cg_sk_abcdefghijklmnopqrst'
const report = (text: string): RunReport => ({
  outcome: 'success',
  mode: 'create',
  status: 'COMPLETE',
  startedAt: 0,
  endedAt: 1,
  entriesSeen: 1,
  error: text,
  run: {
    id: 1,
    organization_id: 1,
    status: 'COMPLETE',
    created_at: null,
    web_url: 'https://codegen.com/agent/trace/1',
    result: `x${text}`,
    summary: text,
    source_type: 'API',
    github_pull_requests: [{ id: 2, title: text, url: 'https://github.com/o/r/pull/2' }],
    metadata: null
  }
})
/** A plan of `text` (its lines as the agent wrote them), revising one of `text` too, that opened a pull request. */
const planOf = (text: string) => ({
  text: `Plan:\n\n${text}`,
  digest: '0123456789abcdef',
  askedBy: text,
  earlier: text,
  pullRequests: 1
})
const entry = (text: string): LogEntry => ({
  agent_run_id: 1,
  message_type: text,
  thought: text,
  tool_name: text,
  tool_input: { command: text, script: `${text}\n` },
  observation: text
})
const tracking = (text: string): TrackingState => ({
  requestedBy: { login: text, type: 'User' },
  instruction: text,
  workflowRunUrl: 'https://github.com/o/r/actions/runs/1',
  sign: () => 'f'.repeat(32),
  commentId: 5,
  entriesSeen: 1,
  latestEntry: entry(text),
  resumed: false,
  triggerPhrase: '/codegen',
  updatedAt: 0,
  report: report(text)
})
const thread = (text: string) => ({
  number: 1,
  title: text,
  body: text,
  url: 'https://github.com/o/r/issues/1'
})

describe('renderers of service text grow linearly with it', () => {
  test.each<[string, (text: string) => unknown]>([
    ['serviceMarkdown (quoteBlock)', serviceMarkdown],
    ['markdownInline (tableCell, plainInline)', markdownInline],
    ['htmlInline', htmlInline],
    [
      'htmlCode, codeSpan, fence, escapeHtml',
      text => [htmlCode(text), codeSpan(text), fence(text), escapeHtml(text)]
    ],
    ['unmention', unmention],
    ['plainLine (check titles, annotations)', plainLine],
    [
      'pullRequestLink',
      text => pullRequestLink({ id: 1, title: text, url: 'https://github.com/o/r/pull/1' }, 200)
    ],
    ['link', text => link(text, `https://x.example/${text}`)],
    ['quoteWithin', text => quoteWithin(text, 60_000)],
    ['console lines, runner commands', text => [inlineText(text), noCommands(text)]],
    ['oneLine, trimmed', text => [oneLine(text, 200), trimmed(text, 4_000)]],
    [
      "the agent's answer: verdict, answer section, repair and annotation lines",
      text => {
        const answer = {
          verdictAsked: true,
          repairs: [text],
          answer: { valid: true as const, value: { text }, verdict: 'fail' as const, reason: text }
        }
        const invalid = {
          ...answer,
          answer: {
            valid: false as const,
            problem: { kind: 'mismatch' as const, errors: [{ pointer: text, message: text }] }
          }
        }
        return [
          verdictMarkdown(answer),
          answerSection(answer, false),
          answerSection(invalid, true),
          repairAskedText(text, 1, 1),
          answerAnnotation(invalid)
        ]
      }
    ]
  ])('%s', (name, fn) => {
    expect(slowCases(fn, name.startsWith('serviceMarkdown') ? TEXT_CASES : SOME_CASES)).toEqual([])
  })
})

describe('whole documents grow linearly with the texts in them', () => {
  test.each<[string, (text: string) => unknown]>([
    ['the job summary', text => renderSummary({ report: report(text), entries: [entry(text), entry(text)] })],
    ['the tracking comment', text => renderTrackingComment(tracking(text))],
    [
      'a plan: the tracking comment, the summary, the check (the earlier plan too)',
      text => {
        const planned = { ...report(text), outcome: 'planned' as const, plan: planOf(text) }
        return [
          splitPlan(text),
          renderTrackingComment({ ...tracking(text), report: planned }),
          renderSummary({ report: planned }),
          renderCheckRun({
            entriesSeen: 1,
            resumed: false,
            report: planned,
            workflowRunUrl: '',
            policy: { failOn: new Set(), triggerPhrase: '/codegen' }
          })
        ]
      }
    ],
    [
      'an entry on the console and in the log',
      text => [
        entryHeadline(entry(text)),
        entryDetailLines(entry(text)),
        cutEntry(entry(text), 4_000),
        entryDetails(entry(text), 2_000, 160)
      ]
    ],
    ['fitBytes', text => fitBytes(`<details>\n\n${fence(text)}\n${text}`, 50_000)]
  ])('%s', (_name, fn) => {
    expect(slowCases(fn, SOME_CASES)).toEqual([])
  })
})

describe('readers of GitHub and service text grow linearly with it', () => {
  test.each<[string, (text: string) => unknown]>([
    ['stripHidden', stripHidden],
    [
      'the prompt',
      text =>
        buildCommentPrompt({
          standing: '',
          instruction: text,
          thread: { ...thread(text), isPullRequest: true },
          author: { login: 'a', type: 'User' },
          repository: 'o/r',
          code: { path: text, line: 2, startSide: 'RIGHT', side: 'RIGHT', diffHunk: text, threadId: 1 }
        })
    ],
    ['matchPhrase', text => matchPhrase(text, '/codegen')],
    [
      'readTrigger',
      text =>
        readTrigger(
          'issue_comment',
          { action: 'created', issue: thread(text), comment: { id: 1, body: text, user: { login: 'a' } } },
          { phrase: '/codegen' }
        )
    ],
    [
      'an error body',
      text => [serviceMessage(text), serviceMessage(JSON.stringify({ detail: [{ loc: [text], msg: text }] }))]
    ],
    ['redactText', text => redactText(text, [TOKEN])],
    ['extractAnswer (the answer in a result)', text => extractAnswer(text)]
  ])('%s', (name, fn) => {
    expect(slowCases(fn, /^(stripHidden|extractAnswer)/.test(name) ? TEXT_CASES : SOME_CASES)).toEqual([])
  })
})

/** What a job's log may hold that its reader removes or reads twice: escapes, timestamps, broken UTF-8. */
const LOG_CASES: Case[] = [
  ...SOME_CASES,
  ['CSI escapes without an end', n => fill('\u001b[0;', n)],
  ['OSC escapes without an end', n => fill('\u001b]0;title', n)],
  ['escapes of every kind', n => fill('\u001b[31m\u001b]8;;x\u0007\u001bM\u009b1m', n)],
  ['timestamps alone on their lines', n => fill('2026-03-02T08:59:00.0000000Z\n', n)],
  ['timestamps without their Z', n => fill('2026-03-02T08:59:00.000000000', n)],
  ['lone UTF-8 continuation bytes', n => fill('\u0080\u00bf', n)]
]

const encoder = new TextEncoder()

describe('a CI fix reads a job’s log, and quotes it, in time linear in its size', () => {
  test.each<[string, (text: string) => unknown]>([
    // The whole text through the reader (its stream keeps 256 KiB: here nothing is left out).
    ['logTail', text => logTail(encoder.encode(text), text.length, text.length)],
    [
      'the stream’s end kept (TailBuffer), in pieces of 1 KiB',
      text => {
        const bytes = encoder.encode(text)
        const tail = new TailBuffer()
        for (let at = 0; at < bytes.length; at += 1024) tail.push(bytes.subarray(at, at + 1024))
        return tail.bytes()
      }
    ],
    [
      'the CI fix’s prompt',
      text =>
        buildCiFixPrompt({
          repository: 'o/r',
          run: {
            id: 1,
            workflow: text,
            runNumber: 1,
            runAttempt: 1,
            url: '',
            conclusion: 'failure',
            event: text,
            headBranch: text,
            headSha: 'a'.repeat(40),
            pullRequest: 7
          },
          pullRequest: { number: 7, title: text },
          jobs: [
            {
              id: 1,
              name: text,
              conclusion: 'failure',
              failedSteps: [{ number: 1, name: text, conclusion: 'failure' }]
            }
          ],
          logs: [{ jobId: 1, name: text, tail: { text, totalBytes: text.length, cut: false } }],
          instructions: text
        })
    ]
  ])('%s', (_name, fn) => {
    expect(slowCases(fn, LOG_CASES)).toEqual([])
  })
})

describe('what is sent to GitHub fits its bytes and is well-formed, in linear time', () => {
  /** Text of many bytes a character, and halves of surrogate pairs. */
  const unicode: Case[] = [
    ['CJK', n => fill('漢字かな', n)],
    ['emoji', n => fill('🙂', n)],
    ['lone surrogates', n => fill('\ud800a\udc00\ud83d', n)]
  ]
  const policy = { failOn: new Set(['failure' as const]), triggerPhrase: '/codegen' }
  test.each<[string, (text: string) => unknown]>([
    [
      'the check run',
      text =>
        renderCheckRun({
          entriesSeen: 1,
          resumed: false,
          workflowRunUrl: '',
          policy,
          report: report(text),
          verdict: { verdict: 'fail', reason: text }
        })
    ],
    ['wellFormed, cutUtf8', text => [wellFormed({ output: { summary: text } }), cutUtf8(text, 65_535)]]
  ])('%s', (_name, fn) => {
    expect(slowCases(fn, [...unicode, ...SOME_CASES])).toEqual([])
  })
})

describe('findings (issue #35): their texts, and hundreds of them, in linear time', () => {
  const PLACE = { serverUrl: 'https://github.com', repository: 'o/r', sha: 'a'.repeat(40) }
  const one = (text: string): Finding => ({
    path: text,
    line: 1,
    endLine: 2,
    severity: 'warning',
    title: text,
    message: text
  })
  /** The text cut into findings of 100 characters each: 1,400 of them at n. */
  const split = (text: string): Finding[] =>
    Array.from({ length: Math.ceil(text.length / 100) }, (_, i) => ({
      ...one(text.slice(i * 100, i * 100 + 100)),
      path: `src/f${i % 50}.ts`,
      line: i + 1,
      endLine: i + 1,
      severity: i % 2 ? 'failure' : 'notice'
    }))
  const review = (findings: Finding[]): string =>
    reviewBody({ marker: 'm', run: 'run', findings, inline: 0, listed: findings, footer: 'f' })
  /** What a finding's texts take out (findingText) or encode (its link), and mentions after any mark. */
  const FINDING_CASES: Case[] = [
    ['direction controls, zero-width characters, mentions', n => fill('\u202e\u2066a\u200b\ufeff-@b.@c ', n)],
    ['joiners between emoji and after them', n => fill('👨\u200d👩\u200d\u200d👍🏽\u200d', n)],
    ['a path of characters an address encodes', n => fill(")(#?% '*", n)]
  ]

  test.each<[string, (text: string) => unknown]>([
    [
      "one finding's texts: annotation, table, console, tracking line, review",
      text => [
        annotationBatches([one(text)]),
        findingsSummarySection([one(text)], PLACE),
        findingConsoleLine(one(text)),
        trackingFindingsLine([one(text)], 'https://github.com/o/r/runs/1'),
        inlineCommentBody(one(text)),
        review([one(text)])
      ]
    ],
    ['a patch read for the lines of the diff', text => rightSideHunks(`@@ -1,1 +1,9 @@\n${text}`)]
  ])('%s', (_name, fn) => {
    expect(slowCases(fn, [...SOME_CASES, ...FINDING_CASES])).toEqual([])
  })

  test('hundreds of findings: read, counted, annotated, placed, tabled and listed', () => {
    const hunks = new Map(Array.from({ length: 50 }, (_, i) => [`src/f${i}.ts`, [[1, 500] as const]]))
    const fn = (text: string): unknown => {
      const findings = split(text)
      const answer = {
        findings: findings.map(({ endLine, ...rest }) => ({ ...rest, end_line: endLine }))
      }
      return [
        findingsProblems(answer),
        readFindings(answer).length,
        findingsCountText(findings),
        annotationBatches(findings),
        placeFindings(findings, hunks),
        findingsSummarySection(findings, PLACE),
        review(findings),
        findings.map(findingConsoleLine)
      ]
    }
    expect(slowCases(fn, SOME_CASES.slice(0, 3))).toEqual([])
  })
})

describe('values of any shape are walked in linear time, to a bounded depth', () => {
  /** Keys that are all forms of the token: every one redacts to ***. */
  const colliding = (n: number): string => {
    const keys: string[] = []
    for (let i = 0; keys.length * TOKEN.length < n; i++)
      keys.push([...TOKEN].map((c, at) => ((i >> at) & 1 ? c.toUpperCase() : c)).join(''))
    return JSON.stringify({ tool_input: Object.fromEntries(keys.map((key, i) => [key, i])) })
  }
  const deep = (n: number): string => `${'{"a":['.repeat(n / 6)}1${']}'.repeat(n / 6)}`
  const wide = (n: number): string =>
    JSON.stringify(Array.from({ length: n / 10 }, (_, i) => ({ [`k${i}`]: i })))
  // Past 20,000 keys or so: below that, V8 moves an object's keys to its large-object space between
  // n and 2n, a step that is not growth.
  const inherited = (n: number): string =>
    JSON.stringify(Object.fromEntries(Array.from({ length: n / 3 }, (_, i) => [`constructor${i}`, i])))
  const cases: Case[] = [
    ['colliding keys', colliding],
    ['deep nesting', deep],
    ['wide values', wide],
    ['many keys', inherited]
  ]

  // Parsed once, outside the measure: the client's JSON.parse is V8's, not ours.
  const parsed = new Map<string, unknown>()
  const parse = (json: string): unknown => {
    if (!parsed.has(json)) parsed.set(json, JSON.parse(json))
    return parsed.get(json)
  }
  test.each<[string, (json: string) => unknown, Case[]]>([
    ['redactDeep', json => redactDeep(parse(json), [TOKEN]), cases],
    [
      'parseRun',
      json => redactDeep(parseRun({ id: 1, github_pull_requests: [{ extra: parse(json) }] }), []),
      cases.slice(1, 3)
    ],
    [
      'parseLogPage',
      json => redactDeep(parseLogPage({ logs: [{ tool_input: parse(json) }] }, 1), []),
      cases.slice(1, 3)
    ]
  ])('%s', (_name, fn, shapes) => {
    expect(slowCases(fn, shapes)).toEqual([])
  })

  test('a value nested 100,000 deep is stringified after redaction, cut at 64 levels', () => {
    const value = JSON.parse(deep(600_000))
    const text = JSON.stringify(redactDeep({ run: value }, [TOKEN]))
    expect(text.length).toBeLessThan(1_000)
    expect(text).toContain('nested too deep')
  })
})

test('the guard catches quadratic work', () => {
  // How markdown.ts measured a run of tildes before issue #17: the whole run again for each tilde.
  const tildeRuns = (text: string): number => {
    let count = 0
    for (let i = 0; i < text.length; i++) {
      let start = i
      let end = i
      while (text[start - 1] === '~') start--
      while (text[end] === '~') end++
      count += end - start
    }
    return count
  }
  // Long enough (5,000, 10,000 and 20,000 tildes: 25, 100 and 400 million steps) that nothing but growth
  // shows (a quarter of that let the compiler's tiering blur the growth in CI).
  expect(slowCases(tildeRuns, [['tildes', n => '~'.repeat(n / 28)]])).toHaveLength(1)
})
