import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { REFERENCE_PATH, renderReference } from '../../scripts/reference-doc.js'
import { readerText } from '../../scripts/render-markdown.js'

/** docs/reference.md is action.yml's: `npm run docs` writes it, and a stale page fails here and in CI. */

const root = join(import.meta.dirname ?? '.', '..', '..')
const actionYml = readFileSync(join(root, 'action.yml'), 'utf8')
const action = parse(actionYml) as {
  inputs: Record<string, { description: string; required: boolean; default: string }>
  outputs: Record<string, { description: string }>
}

test('docs/reference.md is what npm run docs writes from action.yml', () => {
  expect(readFileSync(join(root, REFERENCE_PATH), 'utf8')).toBe(renderReference(actionYml))
})

test('the page shows every input with its default, whether it is required and its description; every output', () => {
  const text = readerText(renderReference(actionYml)).replace(/ +/g, ' ')
  for (const [name, input] of Object.entries(action.inputs)) {
    const given = input.default === '' ? 'empty' : input.default
    const row = `${name} | ${given} | ${input.required ? 'yes' : 'no'} | ${input.description}`
    expect(text).toContain(row)
  }
  for (const [name, output] of Object.entries(action.outputs))
    expect(text).toContain(`${name} | ${output.description}`)
})

test('a change to action.yml changes the page', () => {
  const changed = actionYml.replace('default: /codegen', 'default: /agent')
  expect(changed).not.toBe(actionYml)
  expect(renderReference(changed)).not.toBe(renderReference(actionYml))
  expect(readerText(renderReference(changed)).replace(/ +/g, ' ')).toContain('trigger-phrase | /agent | no |')
})

test("action.yml's descriptions are short enough to read in a table", () => {
  const long = [...Object.entries(action.inputs), ...Object.entries(action.outputs)]
    .filter(([, entry]) => entry.description.length > 200)
    .map(([name]) => name)
  expect(long).toEqual([])
})

test("action.yml's description fits the Marketplace (under 125 characters)", () => {
  const { description } = parse(actionYml) as { description: string }
  expect(description.length).toBeGreaterThan(0)
  expect(description.length).toBeLessThan(125)
})

test('every input links to the page that tells more of it', () => {
  const rows = renderReference(actionYml).split('\n')
  const unlinked = Object.keys(action.inputs).filter(
    name =>
      !rows.some(row => row.startsWith(`| \`${name}\``) && /\[More\]\([a-z-]+\.md(#[a-z0-9-]+)?\)/.test(row))
  )
  expect(unlinked).toEqual([])
})
