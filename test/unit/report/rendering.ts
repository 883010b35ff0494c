import { COMMENT_MAX_CHARS } from '../../../src/github-shapes.js'
import { renderTrackingComment } from '../../../src/report/tracking-text.js'
import { entrySections } from '../../../src/report/entry-text.js'
import { quoteBlock, serviceMarkdown } from '../../../src/report/markdown.js'
import { renderSummary, SUMMARY_MAX_BYTES } from '../../../src/report/summary.js'
import { CODE_RESULT, renderScenarios, trackingState } from '../../../scripts/render-fixtures.js'
import { mulberry32 } from '../../../emulator/random.js'
import { readerText, renderMarkdown, visibleText } from '../../../scripts/render-markdown.js'

/**
 * The summary and the tracking comment as a reader sees them: rendered with a CommonMark + GFM
 * renderer, then reduced to the text a browser shows.
 */

const scenarios = renderScenarios()
const summaryOf = (name: string): string => {
  const scenario = scenarios[name]!
  return renderSummary({ report: scenario.report, entries: scenario.entries, logFile: '/tmp/x.jsonl' })
}
const commentOf = (name: string, final: boolean): string =>
  renderTrackingComment(trackingState(scenarios[name]!, final))
const detailsCount = (html: string): number => html.match(/<details[ >]/g)?.length ?? 0
const WJ = /\u2060/g

/** The code of CODE_RESULT as a reader must see it, character for character. */
const CODE_AS_WRITTEN = [
  'Map<string, Entry>',
  'a && b',
  'if (size < limit && ok) {\n  cache.set(key, new Entry<T>("a & b"))\n}',
  'a `tick` inside',
  '````',
  'fence with ``` inside </details>'
]

describe.each(['success', 'code-heavy'])('the %s run', name => {
  test('summary: code as written, Markdown rendered, no character references showing', () => {
    const html = renderMarkdown(summaryOf(name))
    const text = visibleText(html)
    for (const code of CODE_AS_WRITTEN) expect(text).toContain(code)
    expect(text).not.toMatch(/&(lt|gt|amp|quot);/)
    // The summary text is Markdown: its heading, list, emphasis and link render.
    expect(html).toContain('<h2>What changed</h2>')
    expect(html).toContain('<strong>bold</strong>')
    expect(html).toContain('<a href="https://example.com/docs">link</a>')
    expect(html).toMatch(
      /<li>First step\n<pre><code class="language-sh">npm test &amp;&amp; echo ok\n<\/code><\/pre>/
    )
    // The pull request title keeps its code; its mention does not notify.
    expect(text).toContain('Fix Map<K, V> & eviction @\u2060octocat')
    expect(text.replace(WJ, '')).not.toMatch(/&lt;|\\`/)
  })

  test('summary: one <details> per entry with details, a line for the others, tool output as its lines', () => {
    const scenario = scenarios[name]!
    const html = renderMarkdown(summaryOf(name))
    const withDetails = scenario.entries.filter(entry => entrySections(entry, 4_000, 200).length > 0)
    expect(detailsCount(html)).toBe(withDetails.length)
    const text = visibleText(html)
    // A multi-line string field shows its lines, not JSON with \n.
    expect(text).toContain('tool input · diff\n\n-const cache = {}\n+const cache = new Map<string, Entry>()')
    expect(text).toContain('tool output · content\n\nif (size < limit && ok) {\n  evict()\n}')
    expect(text).not.toContain('\\n')
    // The prose thought is a paragraph, which wraps, not a <pre>.
    expect(html).toMatch(/<p>I will change the cache to <code>Map&lt;string, Entry&gt;<\/code>/)
    // Headlines: the tool once, no 'ran edit_file'; a gist cut at a word's end.
    expect(text).toContain('ACTION edit_file\n')
    expect(text).not.toContain('ran edit_file')
    expect(text).toMatch(/This long prose…/)
    // The facts table's header row is its first fact; the log file is named by its output.
    expect(html).toMatch(/<thead>\n<tr>\n<th>Agent run<\/th>/)
    expect(text).toContain('3 (all in the log-file output, which actions/upload-artifact can keep)')
    expect(text).not.toContain('/tmp/x.jsonl')
  })

  test('tracking comment, working and final: code as written, no references, one mention (the requester)', () => {
    const working = visibleText(renderMarkdown(commentOf(name, false)))
    expect(working).toContain('Latest step: 10:00:03 FINAL_ANSWER Done')
    expect(working).toContain('fix the cache: Map<string, Entry> && @\u2060team')
    const finalHtml = renderMarkdown(commentOf(name, true))
    const final = visibleText(finalHtml)
    for (const code of CODE_AS_WRITTEN) expect(final).toContain(code)
    for (const text of [working, final]) {
      expect(text).not.toMatch(/&(lt|gt|amp|quot);/)
      expect(text.match(/(^|[^\w\u2060])@[a-z]/gi)).toEqual([' @o']) // "Asked by @octocat"
    }
    expect(finalHtml).toContain('<h2>What changed</h2>')
    expect(detailsCount(finalHtml)).toBe(3) // Result, Summary, Request
  })
})

test('failure: the result shows with its code, in summary and comment', () => {
  for (const markdown of [summaryOf('failure'), commentOf('failure', true)]) {
    const text = readerText(markdown)
    expect(text).toContain('Tests still fail: expect(a < b) second line')
    expect(text).not.toMatch(/&(lt|gt|amp);/)
  }
  expect(readerText(commentOf('failure', true))).toContain('❌ failed')
})

test('paused: the agent’s question first, labelled as its question, then how to answer it, then the facts', () => {
  const summary = readerText(summaryOf('paused'))
  expect(summary).toMatch(
    /^⏸️ Agent run paused, waiting for a follow-up\n\nThe agent’s question\n\nShould I use Map<K, V> or a plain object\? More detail\.\n\nAnswer by resuming the run in a step with agent-run-id: 1000 and the answer as prompt\.\n\n *Agent run \| +#1000/
  )
  // Shown once, as the question: not again under "Result".
  expect(summary.match(/Should I use/g)).toHaveLength(1)
  expect(summary).not.toMatch(/^Result$/m)
  // A run asked for on a thread is answered there too.
  const onThread = readerText(renderSummary({ report: { ...scenarios.paused!.report, trigger: 'comment' } }))
  expect(onThread).toContain(
    'Answer on the issue or pull request that asked for it (its tracking comment says how), or resume the run in a step with agent-run-id: 1000 and the answer as prompt.'
  )
  const comment = readerText(commentOf('paused', true))
  expect(comment).toMatch(
    /^Codegen agent run #1000 ⏸️ paused, waiting for a follow-up\n\n⏸️ The agent’s question \(reply \/codegen <answer> to answer it and continue this run\):\n\nShould I use Map<K, V> or a plain object\? More detail\.\n\nstatus PAUSED · /
  )
  expect(comment.match(/Should I use/g)).toHaveLength(1)
  // Not the generic reply hint, nor a "Result" fold below it.
  expect(comment).not.toContain('<follow-up>')
  expect(comment).not.toMatch(/^Result$/m)
})

test('a verdict: first in the summary, its JSON shown once', () => {
  const summary = readerText(summaryOf('verdict'))
  expect(summary).toMatch(
    /^👎 Agent run’s verdict: fail\n\nVerdict: ❌ fail: It renames the exported parseLine, which v1 clients import\.\n\n *Agent run \|/
  )
  expect(summary).not.toMatch(/^ *Verdict \|/m)
  expect(summary.match(/"verdict": "fail"/g)).toHaveLength(1)
  expect(summary).not.toMatch(/^Answer$/m)
})

test('pull requests as GitHub names them, owner/repo#N, then the title: summary, comment', () => {
  const summary = readerText(summaryOf('success')).replace(/ {2,}/g, ' ')
  expect(summary).toContain('Pull requests | o/r#7 Fix Map<K, V> & eviction @\u2060octocat |')
  const comment = readerText(commentOf('success', true))
  expect(comment).toContain('Pull requests: o/r#7 Fix Map<K, V> & eviction @\u2060octocat')
  expect(renderMarkdown(commentOf('success', true))).toContain(
    '<a href="https://github.com/o/r/pull/7">o/r#7</a>'
  )
})

describe('hostile text', () => {
  const outputs = (): Array<[string, string]> => [
    ['summary', summaryOf('hostile')],
    ['working comment', commentOf('hostile', false)],
    ['final comment', commentOf('hostile', true)]
  ]

  test.each(outputs())('%s: no element of the service, only ours; its text readable', (what, markdown) => {
    // The comment's first line is our marker, the one HTML comment of ours.
    const html = renderMarkdown(markdown.replace(/^<!-- codegen-agent-run-action [^\n]* -->\n/, ''))
    expect(html).not.toMatch(/<script|<img|<!--/)
    // Every <details> is ours, and closes where we close it.
    const ours = (markdown.match(/^<details( open)?><summary>/gm) ?? []).length
    expect(detailsCount(html)).toBe(ours)
    expect(html.match(/<\/details>/g)?.length ?? 0).toBe(ours)
    const text = visibleText(html)
    if (what !== 'working comment') {
      expect(text).toContain('</details></summary></td></table><script>alert(1)</script>')
      expect(text).toContain('&lt;already escaped&gt; &amp;')
      // Links keep their text: an empty link and an image show as written.
      expect(text).toContain('[](https://evil.example/hidden) ![](https://evil.example/pixel.png)')
      // A fence inside a list item, its content less indented: still all code.
      expect(text).toContain('item\n</details>\n')
      expect(text).toContain('an unclosed fence <b>')
    }
    // No live mention outside code (GitHub links none in code): only the requester's, in the footer.
    const prose = visibleText(html.replace(/<pre>[\s\S]*?<\/pre>|<code>[\s\S]*?<\/code>/g, ''))
    const mentions = prose.match(/(^|[^\w\u2060])@[a-z]/gi) ?? []
    expect(mentions.length).toBe(what === 'summary' ? 0 : 1)
  })

  test('pull request title and status stay text', () => {
    const text = readerText(summaryOf('hostile'))
    expect(text).toContain('##[error]pr </details> @\u2060octocat `x')
    expect(text).toContain('##[error]st`at<b>us')
  })
})

test('a 3,000-entry run: under 1 MiB, the omitted entries said, every shown entry a <details>', () => {
  const markdown = summaryOf('big')
  expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES)
  const html = renderMarkdown(markdown)
  const text = visibleText(html)
  const leftOut = Number(
    /(\d+) log entries left out here to keep the summary under GitHub's 1 MiB limit; the log-file output has them all\./.exec(
      text
    )?.[1]
  )
  expect(leftOut).toBeGreaterThan(0)
  const shown = detailsCount(html)
  expect(shown + leftOut).toBe(3_000)
  expect(text).toContain(`3000, ${shown} shown below (all in the log-file output`)
  expect(text).toContain('line with <tag> & code 0')
  expect(text).toContain('line with <tag> & code 2999')
  expect(text).not.toMatch(/&(lt|gt|amp);/)
  const comment = commentOf('big', true)
  expect(comment.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS)
  expect(readerText(comment)).toContain('3000 log entries')
})

test('a result too long for the comment is cut in its source: code still shows as written', () => {
  const scenario = scenarios['code-heavy']!
  const long = `${CODE_RESULT}\n\n${'`a < b` & more. '.repeat(10_000)}`
  const comment = renderTrackingComment({
    ...trackingState(scenario, true),
    report: { ...scenario.report, run: { ...scenario.report.run!, result: long } }
  })
  expect(comment.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS)
  const text = readerText(comment)
  expect(text).toContain('… trimmed to fit GitHub’s comment size limit')
  expect(text).toContain('a < b & more.')
  expect(text).not.toMatch(/&(lt|gt|amp);/)
})

/**
 * Random text from the pieces every breakout is made of, inside a block of ours: whatever it is,
 * the rendering holds exactly our one <details>, no element but Markdown's own, and every `<` of
 * the text shows.
 */
// The first 200 cases in npm test; all 2,000 in CI's long part (npm run test:cases).
const HOSTILE_CASES = Number(process.env.CODEGEN_TEST_CASES) || 200

test(`random hostile Markdown never opens HTML nor closes our block (${HOSTILE_CASES} cases)`, () => {
  const pieces = [
    '`',
    '``',
    '```',
    '````',
    '~~~',
    '<',
    '</details>',
    '<b>',
    '<!--',
    '-->',
    '&',
    '&lt;',
    '\\',
    '[',
    ']',
    '(',
    ')',
    '](',
    '|',
    '- ',
    '1. ',
    '> ',
    ' ',
    '  ',
    '    ',
    '\n',
    '\n\n',
    '\t',
    'a',
    '*',
    '_',
    '!',
    '@x',
    '<http://a`b>',
    'http://x.y',
    ':',
    '#',
    '$'
  ]
  const allowed =
    /^<\/?(p|code|pre|blockquote|h[1-6]|ul|ol|li|a|strong|em|del|table|thead|tbody|tr|th|td|br|hr|input|details|summary)( [^>]*)?\/?>$/
  const random = mulberry32(9)
  for (let i = 0; i < HOSTILE_CASES; i++) {
    const text = Array.from({ length: 40 }, () => pieces[Math.floor(random() * pieces.length)]).join('')
    const markdown = `<details open><summary>Result</summary>\n\n${quoteBlock(text)}\n\n</details>\n\nafter`
    const html = renderMarkdown(markdown)
    const tags = html.match(/<[^>]*>/g) ?? []
    const bad = tags.filter(tag => !allowed.test(tag))
    if (bad.length > 0 || detailsCount(html) !== 1 || (html.match(/<\/details>/g) ?? []).length !== 1)
      throw new Error(`case ${i}: ${JSON.stringify(text)}\n${html}`)
    expect(html).toMatch(/<\/details>\n<p>after<\/p>\n?$/)
    // Every `<` the text holds is on the screen. Not checked with a bare URL (micromark's GFM
    // autolink literal takes `&lt;` into the link, where cmark-gfm, GitHub's, decodes it first) nor
    // with a fence (its info string is never shown), nor with indented code (not recognised: its
    // references show).
    const visible = visibleText(html)
    if (!/http|```|~~~|(^|\n)[ >-]*( {4}|\t)/.test(text))
      expect(visible.split('<').length).toBeGreaterThanOrEqual(text.split('<').length - countIn(text, '\\<'))
  }
})

const countIn = (text: string, part: string): number => text.split(part).length - 1

test('serviceMarkdown writes fences longer than any backtick run in their code', () => {
  expect(serviceMarkdown('```\na ```` b\n```')).toBe('`````\na ```` b\n`````')
  expect(serviceMarkdown('  ~~~ js\n  x < y\n  ~~~')).toBe('  ```js\n  x < y\n  ```')
  expect(serviceMarkdown('`a<b` & <i>')).toBe('<code>a&lt;b</code> &amp; &lt;i>')
})

test('addresses of issues and pull requests in service text lead there through redirect.github.com', () => {
  const text = [
    'See https://github.com/torvalds/linux/issues/1 and HTTPS://GitHub.com/o/my_repo/pull/2,',
    'www.github.com/o/r/discussions/3, [here](https://github.com/o/r/pull/4),',
    'and https://github.com/o/r/blob/main/x.ts, https://github.com.evil.example/o/r/issues/5.'
  ].join(' ')
  const html = renderMarkdown(quoteBlock(text))
  const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map(match => match[1])
  // Each live link to a thread goes through the redirect (GitHub writes no "mentioned this" for it).
  expect(hrefs).toEqual([
    'https://redirect.github.com/torvalds/linux/issues/1',
    'https://redirect.github.com/o/my_repo/pull/2',
    'https://redirect.github.com/o/r/discussions/3',
    'https://redirect.github.com/o/r/pull/4',
    'https://github.com/o/r/blob/main/x.ts',
    'https://github.com.evil.example/o/r/issues/5'
  ])
  // What the reader sees says where each leads.
  expect(visibleText(html)).toContain('See https://redirect.github.com/torvalds/linux/issues/1 and')
})

test('cross-references in service text read the same but are not references; our pull request links stay live', () => {
  const text = 'Fixed like torvalds/linux#1, octo.js#22, owner/repo\\#3 and #4 here; see ~~~ and ``` too.'
  const html = renderMarkdown(quoteBlock(text))
  const shown = visibleText(html)
  expect(shown.replace(WJ, '')).toBe(
    'Fixed like torvalds/linux#1, octo.js#22, owner/repo#3 and #4 here; see ~~~ and ``` too.'
  )
  // GitHub's autolinker needs `#` right before the digits: a word joiner sits between them.
  expect(shown).toMatch(/linux#\u20601, octo\.js#\u206022, owner\/repo#\u20603 and #4/)
  const comment = renderTrackingComment({
    ...trackingState(scenarios.success!, true),
    instruction: 'see torvalds/linux#1'
  })
  expect(comment).toContain('torvalds/linux#\u20601')
  expect(comment).toContain('](https://github.com/o/r/pull/7)')
})
