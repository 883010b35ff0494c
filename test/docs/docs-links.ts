import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { renderMarkdown, visibleText } from '../../scripts/render-markdown.js'
import { ROOT as root, USER_PAGES as pages } from '../support/doc-pages.js'

/**
 * README.md and the pages of docs/ are read rendered: every relative link must lead to a file of
 * the repository, and every `#anchor` to a heading of that file, named as GitHub names it.
 */

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(html: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const match of html.matchAll(/<h[1-6][^>]*>([\s\S]*?)<\/h[1-6]>/g)) {
    const base = visibleText(match[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** A page of the repository rendered, each page once: its links are read, and its anchors by others. */
const pageHtml = new Map<string, string>()
function htmlOfPage(page: string): string {
  let html = pageHtml.get(page)
  if (html === undefined) pageHtml.set(page, (html = renderMarkdown(readFileSync(join(root, page), 'utf8'))))
  return html
}

/** The anchors of a page of the repository, found once (reference.md links to itself often). */
const pageAnchors = new Map<string, Set<string>>()
function anchorsOfPage(page: string): Set<string> {
  let anchors = pageAnchors.get(page)
  if (!anchors) pageAnchors.set(page, (anchors = anchorsOf(htmlOfPage(page))))
  return anchors
}

/** The targets of a page's links and images, as rendered (links inside code are not links). */
function linksOf(html: string): string[] {
  return [...html.matchAll(/<(?:a [^>]*?href|img [^>]*?src)="([^"]*)"/g)].map(match =>
    (match[1] as string).replace(/&amp;/g, '&')
  )
}

/** What is wrong with one link of `page`, or undefined. */
function problemOf(page: string, link: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link)) return undefined
  const [path = '', anchor] = link.split('#')
  const target = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)))
  if (relative(root, join(root, target)).startsWith('..')) return `${link} leaves the repository`
  if (!existsSync(join(root, target))) return `${link}: no ${target}`
  if (anchor === undefined) return undefined
  if (!target.endsWith('.md') || statSync(join(root, target)).isDirectory())
    return `${link}: an anchor into a non-page`
  return anchorsOfPage(target).has(anchor) ? undefined : `${link}: no heading #${anchor} in ${target}`
}

test('the pages are there', () => {
  for (const page of [
    'setup',
    'triggers',
    'gates',
    'many-runs',
    'limits',
    'security',
    'troubleshooting',
    'reference'
  ])
    expect(pages).toContain(`docs/${page}.md`)
})

test.each(pages.map(page => [page]))('every relative link of %s resolves', page => {
  const links = linksOf(htmlOfPage(page))
  expect(links.length).toBeGreaterThan(0)
  expect(links.map(link => problemOf(page, link)).filter(Boolean)).toEqual([])
})

test('the check finds a broken link and a missing anchor, and names anchors as GitHub does', () => {
  expect(problemOf('README.md', 'docs/nowhere.md')).toBe('docs/nowhere.md: no docs/nowhere.md')
  expect(problemOf('README.md', 'docs/setup.md#nowhere')).toBe(
    'docs/setup.md#nowhere: no heading #nowhere in docs/setup.md'
  )
  expect(problemOf('docs/setup.md', '../README.md#your-first-workflow')).toBeUndefined()
  expect(problemOf('docs/setup.md', '../../outside.md')).toBe('../../outside.md leaves the repository')
  expect(problemOf('README.md', 'https://codegen.com/token')).toBeUndefined()
  expect([
    ...anchorsOf(
      renderMarkdown(
        "# 1. An API token\n## Forks and `pull_request_target`\n## The check's colour\n## A\n## A\n"
      )
    )
  ]).toEqual(['1-an-api-token', 'forks-and-pull_request_target', 'the-checks-colour', 'a', 'a-1'])
})

test('no page tells users to write a real token into a file, and .env is ignored by git', () => {
  expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).toContain('.env')
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8')
    // A token is written only as the secret's expression, or as the emulator's token.
    for (const match of text.matchAll(/(?:INPUT_API-TOKEN|CODEGEN_API_TOKEN)=(\S*)/g))
      expect([page, match[1]]).toEqual([page, match[1] === '' ? '' : 'emulator-token'])
  }
})
