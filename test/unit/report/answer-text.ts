import type { Answer, AnswerReport } from '../../../src/answer/answer.js'
import { renderTrackingComment } from '../../../src/report/tracking-text.js'
import type { RunReport } from '../../../src/model.js'
import {
  answerAnnotation,
  answerSection,
  repairAskedText,
  verdictLine,
  verdictMarkdown
} from '../../../src/report/answer-text.js'
import { readerText, renderMarkdown } from '../../../scripts/render-markdown.js'
import { trackingState } from '../../support/tracking-state.js'

const verdictAnswer = (verdict: 'pass' | 'fail', reason: string): Answer => ({
  valid: true,
  value: { verdict, reason },
  verdict,
  reason
})

/** What a reader sees, without the blank lines between blocks. */
const visibleLines = (markdown: string): string =>
  readerText(markdown)
    .split('\n')
    .filter(line => line !== '')
    .join('\n')

const report = (answer: Answer, repairs: string[] = []): AnswerReport => ({
  verdictAsked: true,
  answer,
  repairs
})

describe('the answer where people look', () => {
  test('the verdict line: the verdict and the reason, or that none was valid', () => {
    const failed = report(verdictAnswer('fail', 'It removes the exported parse().'))
    expect(readerText(verdictLine(failed))).toBe('Verdict: ❌ fail: It removes the exported parse().')
    expect(readerText(verdictLine(report({ valid: false, problem: { kind: 'missing' } })))).toBe(
      'Verdict: none: no valid answer'
    )
  })

  test('the reason is the agent’s text: shown as written, nothing opens HTML, nobody is mentioned', () => {
    const hostile = report(
      verdictAnswer('pass', '<script>x</script> | @octocat [link](https://e.x) `code` *b*')
    )
    const html = renderMarkdown(verdictMarkdown(hostile))
    expect(html).not.toContain('<script>')
    // A bare address may show as one (GFM's autolinks), but the agent's Markdown link is not a link.
    expect(html).not.toContain('>link</a>')
    expect(readerText(verdictMarkdown(hostile))).toBe(
      '✅ pass: <script>x</script> | @\u2060octocat [link](https://e.x) code *b*'
    )
  })

  test('a valid answer shows once: in the result when it is shown whole, else as a JSON block', () => {
    const short = { valid: true as const, value: { files: ['a.ts'], note: '```\n</details>' } }
    // The verdict's answer says itself on the verdict line; another answer is pointed at.
    expect(answerSection(report(verdictAnswer('pass', 'fine')), true)).toBe('')
    expect(readerText(answerSection({ verdictAsked: false, answer: short, repairs: [] }, true))).toBe(
      'The agent’s answer is valid: the JSON of its result below, and the structured-output output.'
    )
  })

  test('a valid answer of a cut result as a JSON block, shown as written; folded when long, capped when huge', () => {
    const short = { valid: true as const, value: { files: ['a.ts'], note: '```\n</details>' } }
    const text = visibleLines(answerSection(report(short), false))
    expect(text).toBe('Answer\n{\n  "files": [\n    "a.ts"\n  ],\n  "note": "```\\n</details>"\n}')
    const long = {
      valid: true as const,
      value: { files: Array.from({ length: 40 }, (_, i) => `f${i}.ts`) }
    }
    const folded = answerSection(report(long), false)
    expect(folded).toContain(
      '<details><summary>The answer, 44 lines (the <code>structured-output</code> output)</summary>'
    )
    expect(readerText(folded)).toContain('"f39.ts"')
    const huge = { valid: true as const, value: { text: 'x'.repeat(200_000) } }
    const capped = answerSection(report(huge), false)
    expect(capped.length).toBeLessThan(61_000)
    expect(readerText(capped)).toMatch(/… \(\d+ more characters\)/)
  })

  test('no valid answer: the errors with their pointers, and the repairs asked', () => {
    const invalid = report(
      {
        valid: false,
        problem: {
          kind: 'mismatch',
          errors: [
            { pointer: '', message: "must have required property 'reason'" },
            { pointer: '/files/0`<b>', message: 'must be string' }
          ]
        }
      },
      ['the final answer has no fenced json block']
    )
    expect(visibleLines(answerSection(invalid, true))).toBe(
      [
        'No valid answer',
        "the answer: must have required property 'reason'",
        '/files/0`<b>: must be string',
        'The agent was asked to repair its answer once (the final answer has no fenced json block).'
      ].join('\n')
    )
    expect(answerAnnotation(invalid)).toBe(
      "No valid answer (after 1 repair): the answer does not satisfy the schema: the answer must have required property 'reason'"
    )
  })

  test('the annotation quotes a rejected verdict’s reason; the console says a repair was asked', () => {
    expect(answerAnnotation(report(verdictAnswer('fail', 'It breaks\nthe API.')))).toBe(
      'Reason: It breaks the API.'
    )
    expect(repairAskedText("the answer's JSON could not be read: it nests deeper than 64 levels", 1, 2)).toBe(
      "No valid answer (the answer's JSON could not be read: it nests deeper than 64 levels): asking the agent to repair it (1 of 2)."
    )
  })
})

describe('the tracking comment', () => {
  const state = trackingState({ instruction: 'review it', runId: 12, entriesSeen: 3, resumed: true })
  const ended: RunReport = {
    outcome: 'rejected',
    mode: 'create',
    status: 'COMPLETE',
    startedAt: 0,
    endedAt: 1_000,
    entriesSeen: 3,
    run: { id: 12, organization_id: 1, result: 'It breaks.' },
    answer: { ...report(verdictAnswer('fail', 'It breaks @octocat <script>.'), ['no block']) }
  }
  const lines = (markdown: string): string[] => visibleLines(markdown).split('\n')

  test('while a repair runs, it says one was asked and why', () => {
    const working = renderTrackingComment({
      ...state,
      repair: { reason: 'the final answer has no fenced json block', attempt: 1, retries: 2 }
    })
    expect(lines(working)).toContain(
      'No valid answer (the final answer has no fenced json block): asking the agent to repair it (1 of 2).'
    )
  })

  test('at the end it leads with the verdict and the reason, shown as written', () => {
    const body = renderTrackingComment({ ...state, report: ended })
    expect(lines(body).slice(0, 2)).toEqual([
      'Codegen agent run #12 👎 rejected: its verdict is fail',
      'Verdict: ❌ fail: It breaks @\u2060octocat <script>. (after 1 repair)'
    ])
    expect(renderMarkdown(body)).not.toContain('<script>')
    const invalid = renderTrackingComment({
      ...state,
      report: {
        ...ended,
        outcome: 'invalid-output',
        answer: report({ valid: false, problem: { kind: 'missing' } })
      }
    })
    expect(lines(invalid)[1]).toBe('No valid answer: the final answer has no fenced json block')
  })
})
