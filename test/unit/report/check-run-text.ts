import type { RunReport } from '../../../src/model.js'
import { CHECK_SUMMARY_MAX_BYTES, CHECK_TITLE_MAX_BYTES } from '../../../src/github-shapes.js'
import { renderCheckRun, type CheckRunState } from '../../../src/report/check-run-text.js'
import type { FailCondition } from '../../../src/settings/settings.js'
import { CODE_RESULT, HOSTILE_TEXT, renderScenarios } from '../../../scripts/render-fixtures.js'
import { readerText, renderMarkdown, visibleText } from '../../../scripts/render-markdown.js'
import { ENDINGS } from '../../support/outcomes.js'

/** The check run's title and summary as GitHub shows them: rendered (CommonMark + GFM), then read. */

const scenarios = renderScenarios()
const WORKFLOW_RUN = 'https://github.com/o/r/actions/runs/1'
/** fail-on's default. */
const POLICY = {
  failOn: new Set<FailCondition>(['failure', 'timeout', 'rejected', 'invalid-output']),
  triggerPhrase: '/codegen'
}
const bytes = (text: string): number => Buffer.byteLength(text)

function ended(report: RunReport, extra: Partial<CheckRunState> = {}): CheckRunState {
  return {
    runId: report.run?.id,
    entriesSeen: report.entriesSeen,
    resumed: false,
    report,
    workflowRunUrl: WORKFLOW_RUN,
    policy: POLICY,
    ...extra
  }
}
const scenario = (name: string): RunReport => scenarios[name]!.report
const withRun = (report: RunReport, fields: Partial<NonNullable<RunReport['run']>>): RunReport => ({
  ...report,
  run: { ...report.run!, ...fields }
})

test('each ending concludes the check as the step does under the default fail-on; a working run is in progress', () => {
  const success = scenario('success')
  const conclusions = [...ENDINGS, 'started' as const].map(outcome => {
    const text = renderCheckRun(ended({ ...success, outcome }))
    return [outcome, text.status, text.conclusion]
  })
  expect(conclusions).toEqual([
    ['success', 'completed', 'success'],
    ['failure', 'completed', 'failure'],
    ['rejected', 'completed', 'failure'],
    ['invalid-output', 'completed', 'failure'],
    ['error', 'completed', 'failure'],
    ['timeout', 'completed', 'timed_out'],
    ['cancelled', 'completed', 'cancelled'],
    // The default fail-on lets a paused run pass the step: its check passes too (step-fail.ts).
    ['paused', 'completed', 'success'],
    ['started', 'completed', 'success']
  ])

  const working = renderCheckRun({
    runId: 41,
    webUrl: 'https://app.codegen.com/agent/trace/41',
    status: 'ACTIVE',
    entriesSeen: 3,
    resumed: true,
    workflowRunUrl: WORKFLOW_RUN,
    policy: POLICY
  })
  expect(working).toMatchObject({
    status: 'in_progress',
    title: 'Working on the follow-up: status ACTIVE, 3 log entries so far'
  })
  expect(working.conclusion).toBeUndefined()
  const html = renderMarkdown(working.summary)
  expect(visibleText(html)).toBe(
    '🤖 Codegen agent run #41 is working on the follow-up\n\nstatus ACTIVE · 3 log entries so far\n\nFollowed by the workflow run'
  )
  expect(html).toContain('<a href="https://app.codegen.com/agent/trace/41">#41</a>')
  expect(html).toContain(`<a href="${WORKFLOW_RUN}">workflow run</a>`)
})

test("the title: the outcome and the verdict's reason, else the result's first line, on one capped line", () => {
  const failure = scenario('failure')
  expect(renderCheckRun(ended(failure)).title).toBe('Failed: Tests still fail: expect(a < b)')
  const verdict = { verdict: 'fail', reason: 'It removes `parse()` from the public API.' }
  const rejected = renderCheckRun(
    ended({ ...scenario('success'), outcome: 'rejected' as RunReport['outcome'] }, { verdict })
  )
  expect(rejected.title).toBe('Rejected: It removes parse() from the public API.')
  const error = renderCheckRun(
    ended({ ...failure, run: undefined, outcome: 'error', error: 'The service answered 503\ntwice' })
  )
  expect(error.title).toBe('Could not be followed: The service answered 503')
  expect(renderCheckRun(ended({ ...failure, outcome: 'cancelled' })).title).toBe(
    'Cancelled: Tests still fail: expect(a < b)'
  )

  const long = renderCheckRun(ended(withRun(failure, { result: `\n\n  ${'word '.repeat(500)}\nnext` })))
  expect(long.title.length).toBeLessThanOrEqual(200)
  expect(long.title).toMatch(/^Failed: word word .*word…$/)
  const hostile = renderCheckRun(
    ended(withRun(failure, { result: 'Ping @octocat\u0007 now\u202e ##[error]x' }))
  )
  expect(hostile.title).toBe('Failed: Ping @\u2060octocat now ##[error]x')
})

test('the title is plain text: GitHub shows it as written, so no Markdown mark of the result shows', () => {
  const success = scenario('success')
  const title = (result: string): string => renderCheckRun(ended(withRun(success, { result }))).title
  expect(title('## Fixed the failing **parser** test\n\nDetails')).toBe(
    'Succeeded: Fixed the failing parser test'
  )
  expect(title('> - **Done**: see [the PR](https://github.com/o/r/pull/7) and `src/a_b.ts`')).toBe(
    'Succeeded: Done: see the PR and src/a_b.ts'
  )
  expect(title('```json\n{"verdict": "pass"}\n```')).toBe('Succeeded: {"verdict": "pass"}')
  expect(title('# Title #\nmore')).toBe('Succeeded: Title')
  expect(title('snake_case_name and 2 * 3 and \\*literal\\*')).toBe(
    'Succeeded: snake_case_name and 2 * 3 and *literal*'
  )
  // A secret replaced by *** stays so.
  expect(title('Done with *** and __init__ ***')).toBe('Succeeded: Done with *** and init ***')
})

test('the summary: facts, verdict, result, summary and pull requests, as the job summary writes them', () => {
  const report = withRun(scenario('success'), {
    github_pull_requests: [
      { id: 7, title: 'Fix `Map<K, V>` & eviction @octocat', url: 'https://github.com/o/r/pull/7' },
      { id: 8, title: null, url: 'javascript:alert(1)' }
    ]
  })
  const verdict = { verdict: 'pass', reason: 'No public API changes; `Map<K, V>` is internal.' }
  const html = renderMarkdown(renderCheckRun(ended(report, { verdict })).summary)
  const text = visibleText(html)
  const table = text.replace(/ {2,}/g, ' ')
  expect(text).toContain('Codegen agent run #1000 ✅ succeeded')
  expect(table).toContain('Agent run | #1000 |')
  expect(table).toContain('Status | COMPLETE |')
  expect(table).toContain('Outcome | success |')
  expect(table).toContain('Log entries | 3 |')
  // A pull request as GitHub names it, owner/repo#N, then its title; one without a real address by its title or id.
  expect(table).toContain('Pull requests | o/r#7 Fix Map<K, V> & eviction @\u2060octocat\n#8 |')
  expect(table).toContain('Verdict | pass: No public API changes; Map<K, V> is internal. |')
  expect(html).toContain('<a href="https://github.com/o/r/pull/7">')
  expect(html).not.toContain('javascript:')
  // The result's code as written, the summary's Markdown rendered.
  expect(text).toContain('if (size < limit && ok) {\n  cache.set(key, new Entry<T>("a & b"))\n}')
  expect(text).toContain('fence with ``` inside </details>')
  expect(html).toContain('<h2>What changed</h2>')
  expect(html).toContain('<strong>bold</strong>')
  expect(text).not.toMatch(/&(lt|gt|amp|quot);/)
})

test('a paused run: its question, and how to answer it on the pull request or from a step', () => {
  const paused = scenario('paused')
  const onThread = renderCheckRun(ended(paused, { triggerPhrase: '/codegen' }))
  expect(onThread.title).toBe(
    'Paused, waiting for an answer (fail-on lets it pass): Should I use Map<K, V> or a plain object?'
  )
  // The question first, labelled as the agent's, then how to answer it, then the facts.
  const text = readerText(onThread.summary)
  expect(text).toMatch(
    /^Codegen agent run #1000 ⏸️ paused, waiting for an answer\n\nThe agent’s question\n\nShould I use Map<K, V> or a plain object\? More detail\.\n\nAnswer with a comment \/codegen <answer> on the pull request, or resume the run in a step with agent-run-id: 1000 and the answer as prompt\.\n\nThis check passes as the step does: .*\n\n *Agent run/
  )
  expect(text).not.toMatch(/\nQuestion\n|\nResult\n/)
  const fromInputs = readerText(renderCheckRun(ended(paused)).summary)
  expect(fromInputs).toContain(
    'Answer by resuming the run in a step with agent-run-id: 1000 and the answer as prompt.'
  )
  expect(fromInputs).not.toContain('/codegen')
})

test('hostile text: no element of the service, no live mention, its text readable', () => {
  const hostile = scenario('hostile')
  const markdown = renderCheckRun(
    ended(hostile, { verdict: { verdict: '<b>fail', reason: '@octocat </td></table><script>x</script>' } })
  ).summary
  const html = renderMarkdown(markdown)
  expect(html).not.toMatch(/<script|<img|<!--|<b>/)
  expect(html.match(/<\/?table>/g)).toEqual(['<table>', '</table>'])
  const text = visibleText(html).replace(/ {2,}/g, ' ')
  expect(text).toContain('</details></summary></td></table><script>alert(1)</script>')
  expect(text).toContain('##[error]pr </details> @\u2060octocat `x')
  expect(text).toContain('Verdict | <b>fail: @\u2060octocat </td></table><script>x</script> |')
  const prose = visibleText(html.replace(/<pre>[\s\S]*?<\/pre>|<code>[\s\S]*?<\/code>/g, ''))
  expect(prose.match(/(^|[^\w\u2060])@[a-z]/gi) ?? []).toEqual([])
  expect(HOSTILE_TEXT).toContain('@octocat')
})

test("within GitHub's 65,535 bytes whatever the texts hold, cut before rendering", () => {
  const huge = `${CODE_RESULT}\n\n${'`a < b` & <more>. '.repeat(200_000)}`
  const report = withRun(scenario('success'), {
    result: huge,
    summary: '<'.repeat(3_000_000),
    github_pull_requests: Array.from({ length: 500 }, (_, i) => ({
      id: i,
      title: `<b>${'t'.repeat(300)}`,
      url: `https://github.com/o/r/pull/${i}`
    }))
  })
  const started = performance.now()
  const check = renderCheckRun(ended({ ...report, error: '&'.repeat(1_000_000) }))
  expect(performance.now() - started).toBeLessThan(2_000)
  expect(bytes(check.summary)).toBeLessThanOrEqual(CHECK_SUMMARY_MAX_BYTES)
  const text = readerText(check.summary)
  expect(text).toContain('if (size < limit && ok) {')
  expect(text).toContain('a < b & <more>.')
  expect(text).toMatch(/and \d+ more/)
  expect(text).toContain('more characters)')
  expect(text).not.toMatch(/&(lt|gt|amp);/)
  // A smaller limit still holds, and the texts share it.
  const small = renderCheckRun(ended(report), 8_000).summary
  expect(bytes(small)).toBeLessThanOrEqual(8_000)
  expect(readerText(small)).toContain('Summary')
})

test('GitHub counts bytes: 70,000 CJK characters, emoji and lone surrogates fit 65,535 bytes, cut between characters', () => {
  const cjk = '漢字かな交じり文'.repeat(8_750) // 70,000 characters, 210,000 bytes
  const emoji = '🙂'.repeat(40_000) // 80,000 UTF-16 units, 160,000 bytes
  const report = withRun(scenario('success'), { result: cjk, summary: `${emoji}\ud800 lone` })
  const started = performance.now()
  const check = renderCheckRun(ended(report, { verdict: { verdict: 'pass', reason: '審査'.repeat(500) } }))
  expect(performance.now() - started).toBeLessThan(2_000)
  expect(bytes(check.summary)).toBeLessThanOrEqual(CHECK_SUMMARY_MAX_BYTES)
  expect(bytes(check.summary)).toBeGreaterThan(CHECK_SUMMARY_MAX_BYTES - 2_000)
  // No character was cut in two: the only replacement character is the lone surrogate's own.
  expect(check.summary.replace(/\ud800/g, '')).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|\ufffd/)
  const text = readerText(check.summary)
  expect(text).toContain('漢字かな交じり文')
  expect(text).toContain('🙂🙂')
  expect(text).toMatch(/more characters\)/)
  // The title: GitHub documents no limit; 255 bytes is within any reading of one.
  expect(bytes(check.title)).toBeLessThanOrEqual(CHECK_TITLE_MAX_BYTES)
  expect(check.title).toMatch(/^Succeeded: [審査]+…$/)
  const astral = renderCheckRun(ended(withRun(report, { result: '🙂'.repeat(300) }))).title
  expect(bytes(astral)).toBeLessThanOrEqual(CHECK_TITLE_MAX_BYTES)
  expect(astral).toMatch(/^Succeeded: (🙂)+…$/)
})
