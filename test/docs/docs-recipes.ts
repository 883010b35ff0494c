import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { readerText, renderMarkdown } from '../../scripts/render-markdown.js'
import { ROOT as root, USER_PAGES as pages } from '../support/doc-pages.js'

/**
 * What the recipes of README.md and docs/ promise, held by their YAML: a review made a required
 * check decides with a verdict (without one the check passes whatever the agent found), and README
 * stays a page to decide and start from.
 */

interface Step {
  uses?: string
  with?: Record<string, unknown>
}

function stepsOf(markdown: string): Step[] {
  return [...markdown.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)].flatMap(match => {
    const value = parse(match[1] as string) as unknown
    if (Array.isArray(value)) return value as Step[]
    const jobs = (value as { jobs?: Record<string, { steps?: Step[] }> } | null)?.jobs ?? {}
    return Object.values(jobs).flatMap(job => job.steps ?? [])
  })
}

/** Steps of this action that write a named check a branch can require, but ask for no verdict. */
function gatesWithoutVerdict(markdown: string): Record<string, unknown>[] {
  return stepsOf(markdown)
    .filter(step => step?.uses?.startsWith('codegen-sh/agent-run-action@'))
    .map(step => step.with ?? {})
    .filter(inputs => inputs['check-name'] !== undefined && String(inputs.verdict) !== 'true')
}

test.each(pages.map(page => [page]))('every required-check recipe of %s asks for a verdict', page => {
  expect(gatesWithoutVerdict(readFileSync(join(root, page), 'utf8'))).toEqual([])
})

test('the check catches the recipe that passed API-breaking pull requests', () => {
  const recipe = [
    '```yaml',
    '- uses: codegen-sh/agent-run-action@v1',
    '  with:',
    '    check-name: Codegen review',
    '    prompt: Review the pull request. Fail if it breaks the public API.',
    '```',
    ''
  ].join('\n')
  expect(gatesWithoutVerdict(recipe)).toEqual([
    { 'check-name': 'Codegen review', prompt: 'Review the pull request. Fail if it breaks the public API.' }
  ])
})

test('README.md is at most 250 lines, and shows a complete first workflow on its first screen', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  expect(readme.split('\n').length).toBeLessThanOrEqual(250)
  const first = /^```yaml\n([\s\S]*?)^```$/m.exec(readme)
  expect(readme.slice(0, first?.index).split('\n').length).toBeLessThan(40)
  const workflow = parse(first?.[1] ?? '') as Record<string, unknown>
  expect(Object.keys(workflow)).toEqual(expect.arrayContaining(['on', 'permissions', 'jobs']))
  // The two set-up commands of this repository, as .ci/run and newcomers run them.
  expect(readme).toContain('npm ci && npm start')
  expect(readme).toContain('npm ci && npm test')
})

/** The targets of the links of a page of the repository, rendered as GitHub renders it. */
function linksOf(page: string): string[] {
  const html = renderMarkdown(readFileSync(join(root, page), 'utf8'))
  return [...html.matchAll(/<a [^>]*?href="([^"]*)"/g)].map(match => match[1] as string)
}

test('README.md and docs/README.md link every published example workflow', () => {
  const examples = readdirSync(join(root, 'docs', 'examples')).filter(file => /\.ya?ml$/.test(file))
  expect(examples).toEqual(expect.arrayContaining(['review-findings.yml', 'fix-ci.yml', 'plan-approve.yml']))
  const unlinked = (page: string, folder: string) =>
    examples.filter(file => !linksOf(page).includes(`${folder}${file}`))
  expect({
    readme: unlinked('README.md', 'docs/examples/'),
    docs: unlinked('docs/README.md', 'examples/')
  }).toEqual({
    readme: [],
    docs: []
  })
})

test('README.md names each main use with what asks for it, and links its page', () => {
  const text = readerText(readFileSync(join(root, 'README.md'), 'utf8'))
  for (const words of [
    '/codegen',
    'verdict: true',
    'findings: true',
    'review-comments: true',
    'max-fix-attempts',
    '/codegen plan',
    '/codegen approve',
    'approvers',
    'allow-self-approval'
  ])
    expect({ words, named: text.includes(words) }).toEqual({ words, named: true })
  expect(linksOf('README.md')).toEqual(
    expect.arrayContaining([
      'docs/usage.md',
      'docs/triggers.md',
      'docs/gates.md',
      'docs/triggers.md#ci-fixes-workflow_run',
      'docs/triggers.md#plan-then-approve'
    ])
  )
})
