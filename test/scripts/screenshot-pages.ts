import { visibleText } from '../../scripts/render-markdown.js'
import {
  checkRunBody,
  measuredHeight,
  page,
  summaryBody,
  threadBody
} from '../../scripts/screenshot-pages.js'

/** The pages `npm run screenshots` photographs (scripts/screenshot-pages.ts): pure HTML builders. */

/** The lines of text a page shows, blank ones left out (the frames' blocks break lines, not paragraphs). */
const lines = (html: string): string[] =>
  visibleText(html)
    .split('\n')
    .filter(line => line.trim() !== '')

test('a page holds GitHub’s stylesheet, the Markdown rendered in a markdown-body article, and measures itself', () => {
  const html = page(
    '.markdown-body { color: #1f2328 }',
    'summary',
    summaryBody('agent', '## ✅ Done\n\n| a | b |\n|---|---|\n| 1 | 2 |')
  )
  expect(html).toContain('<style>.markdown-body { color: #1f2328 }</style>')
  expect(html).toMatch(/<article class="markdown-body">\s*<h2>✅ Done<\/h2>\s*<table>/)
  expect(lines(summaryBody('agent', '## ✅ Done'))).toEqual(['agent summary', '✅ Done'])
  expect(html).toContain("document.title = 'height='")
})

test('the height is read from the title Chromium dumped, and is missing when the page did not measure itself', () => {
  expect(measuredHeight('<html><head><title>height=1163</title></head></html>')).toBe(1163)
  expect(measuredHeight('<html><head><title>summary</title></head></html>')).toBeUndefined()
})

test('a check shows its conclusion beside its name, its title as plain text and its summary as Markdown', () => {
  const html = checkRunBody({
    name: 'Codegen',
    status: 'completed',
    conclusion: 'failure',
    title: 'Rejected: <b>breaks</b> *parseLine*',
    summary: '**Verdict:** fail'
  })
  expect(lines(html)).toEqual(['Codegen', 'failed', 'Rejected: <b>breaks</b> *parseLine*', 'Verdict: fail'])
  expect(html).toContain('fill="#d1242f"')
  const working = checkRunBody({ name: 'Codegen', status: 'in_progress', title: 'Working', summary: '' })
  expect(lines(working).slice(0, 2)).toEqual(['Codegen', 'in progress'])
})

test('a thread shows each comment under its author, a bot labelled and without [bot]', () => {
  const html = threadBody([
    { login: 'alice', bot: false, markdown: '/codegen fix it' },
    { login: 'github-actions[bot]', bot: true, markdown: 'Codegen agent run **#1** succeeded' }
  ])
  expect(lines(html)).toEqual([
    'A',
    'alice commented',
    '/codegen fix it',
    'G',
    'github-actions bot commented',
    'Codegen agent run #1 succeeded'
  ])
})
