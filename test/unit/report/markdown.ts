import type { PullRequest } from '../../../src/api/types.js'
import {
  codeSpan,
  escapeHtml,
  fence,
  htmlInline,
  link,
  markdownInline,
  plainInline,
  plainLine,
  pullRequestLink,
  pullRequestRef,
  quoteBlock,
  serviceMarkdown,
  unmention
} from '../../../src/report/markdown.js'
import { liveMentions, readerText, renderMarkdown } from '../../../scripts/render-markdown.js'

/**
 * The Markdown we write of the service's text (src/report/markdown.ts), read as GitHub renders it:
 * the reader sees the text as it was, and nothing in it becomes ours (HTML, a link, a mention).
 */

test('escapeHtml: the four characters HTML reads', () => {
  expect(escapeHtml('<a href="x">&</a>')).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;')
})

test('unmention: a mention and a cross-reference read the same and are neither; an email stays', () => {
  const text = 'ping @octocat, mail a@b.io, see octo/repo#12, and #3'
  const shown = unmention(text)
  expect(shown).not.toMatch(/(^|\s)@octocat/)
  expect(shown).not.toContain('repo#12')
  expect(shown).toContain('a@b.io')
  // A reference to this repository's #3 stays one.
  expect(shown).toContain(' #3')
  expect(readerText(shown).replace(/\u2060/g, '')).toBe(text)
})

describe('a mention after any character but a letter or a digit is made inert (GitHub: after a non-word character)', () => {
  const TEXT =
    '-@octocat .@octocat +@octocat (@octocat) é@octocat _x_@octocat *x*@octocat @org/team; mail a.b@octocat.io'
  const AS_WRITTEN = '@org/team; mail a.b@octocat.io'

  test('as GitHub reads the text unbroken: every one of them notifies (the email does not)', () => {
    expect(liveMentions(renderMarkdown(TEXT))).toEqual([...Array<string>(7).fill('@octocat'), '@org'])
  })

  // Markdown renders the emphasis; the inline texts show every character.
  const EMPHASIZED = TEXT.replace(/_x_|\*x\*/g, 'x')

  test.each<[string, (text: string) => string, string]>([
    ['serviceMarkdown', serviceMarkdown, EMPHASIZED],
    ['quoteBlock', quoteBlock, EMPHASIZED],
    ['markdownInline', markdownInline, TEXT],
    ['plainInline', plainInline, TEXT],
    ['htmlInline', text => `<p>${htmlInline(text)}</p>`, TEXT]
  ])('%s: none notifies, and the reader sees the text as written', (_name, render, written) => {
    const html = renderMarkdown(render(TEXT))
    expect(liveMentions(html)).toEqual([])
    const seen = readerText(render(TEXT)).replace(/\u2060/g, '')
    expect(seen).toBe(written)
    // The email address is left as it is.
    expect(seen.endsWith(AS_WRITTEN)).toBe(true)
    expect(html).toContain('a.b@octocat.io')
  })
})

test('unmention: an issue’s address on github.com goes through redirect.github.com', () => {
  expect(unmention('https://github.com/o/r/issues/4')).toBe('https://redirect.github.com/o/r/issues/4')
  expect(unmention('https://github.com/o/r')).toBe('https://github.com/o/r')
})

test('codeSpan: a backtick run longer than any inside, padded where a backtick or blank borders it', () => {
  expect(codeSpan('a `b` c')).toBe('``a `b` c``')
  expect(codeSpan('`x')).toBe('`` `x ``')
  expect(readerText(codeSpan('a `b`\n c'))).toBe('a `b` c')
})

test('fence: longer than any backtick run, CRLF as LF, the info string cleaned', () => {
  const block = fence('a ``` b\r\nc\n', 'ts <x>')
  expect(block).toBe('````tsx\na ``` b\nc\n````')
  expect(renderMarkdown(block)).toContain('a ``` b\nc')
})

test('plainInline: every character shown, nothing opens HTML, a link or emphasis', () => {
  // A bare address is GitHub's autolink, as in any comment: a Markdown link around it is not made.
  const text = '*bold* <b>x</b> | [x](y) ~~s~~'
  const html = renderMarkdown(plainInline(text))
  expect(html).not.toMatch(/<(b|a|em|strong|del)\b/)
  expect(readerText(plainInline(text))).toBe(text)
})

test('link: only http(s) addresses are links; the label and address cannot break out', () => {
  expect(link('label', 'javascript:alert(1)')).toBe('label')
  expect(link('label', 42)).toBe('label')
  const made = link('a (b) ]', 'https://x.io/a b(c)')
  expect(renderMarkdown(made)).toContain('href="https://x.io/a%20b%28c%29"')
  expect(readerText(made)).toBe('a (b) ]')
  // An unbalanced parenthesis would end the address early: the whole address is the link's.
  const unbalanced = link('x', 'https://x.io/a)b(c/d?e=1#f')
  expect(renderMarkdown(unbalanced)).toBe('<p><a href="https://x.io/a%29b%28c/d?e=1#f">x</a></p>')
  expect(link('x', `https://x.io/${'a'.repeat(2_001)}`)).toBe('x')
})

test('pullRequestRef: owner/repo#N from a pull request’s address only', () => {
  expect(pullRequestRef('https://github.com/octo/my_repo/pull/42')).toBe('octo/my_repo#42')
  expect(pullRequestRef('https://github.com/octo/r/issues/4')).toBe('')
  expect(pullRequestRef(42)).toBe('')
})

test('pullRequestLink: owner/repo#N linked, then the title; without an address, the title alone', () => {
  const pr = { id: 1, title: 'Fix *it*', url: 'https://github.com/octo/my_repo/pull/42' } as PullRequest
  expect(readerText(pullRequestLink(pr, 200))).toBe('octo/my_repo#42 Fix *it*')
  expect(renderMarkdown(pullRequestLink(pr, 200))).toContain('href="https://github.com/octo/my_repo/pull/42"')
  const bare = { id: 7, title: '', url: 42 } as unknown as PullRequest
  expect(readerText(pullRequestLink(bare, 200))).toBe('#7')
  const long = { ...pr, title: 'x'.repeat(500) }
  expect(readerText(pullRequestLink(long, 20)).length).toBeLessThan(60)
})

test('plainLine: a line of Markdown as the words it shows', () => {
  expect(plainLine('> - ## **Fixed** the `parser` [here](https://x.io)')).toBe('Fixed the parser here')
  expect(plainLine('plain words')).toBe('plain words')
})

test('quoteBlock: every line quoted, HTML shown as text', () => {
  const quoted = quoteBlock('line one\n<b>two</b>')
  expect(quoted.split('\n').every(line => line.startsWith('>'))).toBe(true)
  const html = renderMarkdown(quoted)
  expect(html).toContain('<blockquote>')
  expect(html).not.toContain('<b>')
  expect(readerText(quoted)).toContain('<b>two</b>')
})
