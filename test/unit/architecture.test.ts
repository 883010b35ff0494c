import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * No two folders of src/ import each other: each folder is a layer a reader can take in without the
 * other, and a tie both ways cannot slip back in unseen.
 */

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** The folder of src/ a file lives in, or '' for the files at src/'s top. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split(sep)
  return parts.length > 1 ? (parts[0] ?? '') : ''
}

/** Every relative module a file imports or re-exports, static or dynamic. */
export function relativeImports(source: string): string[] {
  const specifiers = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm
  return [...source.matchAll(specifiers)].map(match => match[1] ?? '')
}

type Edge = { from: string; to: string; file: string; imported: string }

function folderEdges(): Edge[] {
  return sourceFiles(SRC).flatMap(file =>
    relativeImports(readFileSync(file, 'utf8')).map(imported => ({
      from: folderOf(file),
      to: folderOf(resolve(dirname(file), imported)),
      file: relative(SRC, file),
      imported
    }))
  )
}

/** Pairs of folders (top files excluded) that each import the other, with one import each way. */
export function tiesBothWays(edges: Edge[]): string[] {
  const between = edges.filter(edge => edge.from && edge.to && edge.from !== edge.to)
  const ties: string[] = []
  for (const edge of between) {
    if (edge.from > edge.to) continue
    const back = between.find(other => other.from === edge.to && other.to === edge.from)
    const tie = `${edge.from} <-> ${edge.to}: ${edge.file} imports ${edge.imported}; ${back?.file} imports ${back?.imported}`
    if (back && !ties.some(known => known.startsWith(`${edge.from} <-> ${edge.to}:`))) ties.push(tie)
  }
  return ties
}

describe('the folders of src/', () => {
  test('reads the imports the way the sources write them', () => {
    const source = [
      "import { a } from '../api/client.js'",
      "import type { B } from './b.js'",
      "export { c } from '../report/c.js'",
      "import '../side-effect.js'",
      "const d = await import('../settings/d.js')",
      "import { core } from '@actions/core'"
    ].join('\n')
    expect(relativeImports(source)).toEqual([
      '../api/client.js',
      './b.js',
      '../report/c.js',
      '../side-effect.js',
      '../settings/d.js'
    ])
  })

  test('a tie both ways is found, and one way or within a folder is not', () => {
    const edge = (from: string, to: string): Edge => ({
      from,
      to,
      file: `${from}/x.ts`,
      imported: `../${to}/y.js`
    })
    expect(tiesBothWays([edge('api', 'runner'), edge('runner', 'api'), edge('api', 'api')])).toEqual([
      'api <-> runner: api/x.ts imports ../runner/y.js; runner/x.ts imports ../api/y.js'
    ])
    expect(tiesBothWays([edge('report', 'api'), edge('', 'report'), edge('report', '')])).toEqual([])
  })

  test('src/ has folders, and they import one another', () => {
    const edges = folderEdges()
    expect(new Set(edges.map(edge => edge.from)).size).toBeGreaterThan(5)
    expect(edges.some(edge => edge.from === 'agent-run' && edge.to === 'api')).toBe(true)
  })

  test('no two folders import each other', () => {
    expect(tiesBothWays(folderEdges())).toEqual([])
  })
})

/**
 * The tools a user runs (`npm start`, `npm run emulator`, `npm run preview`, `npm run bench`) build
 * without test/: emulator/, scripts/ and bench/ import nothing under it (test/ imports them).
 */

const ROOT = resolve(SRC, '..')
const TOOLS = ['emulator', 'scripts', 'bench']

/** The imports of `file` (given its source) that land under test/, as written. */
export function importsOfTests(file: string, source: string): string[] {
  return relativeImports(source).filter(imported => {
    const target = relative(ROOT, resolve(dirname(file), imported))
    return target === 'test' || target.startsWith(`test${sep}`)
  })
}

describe('the tools and the emulator', () => {
  test('an import of test/ is found, and one of src/, emulator/ or a sibling is not', () => {
    const file = join(ROOT, 'scripts', 'x.ts')
    const source = [
      "import { a } from '../test/support/a.js'",
      "const b = await import('../test/b.js')",
      "import { c } from '../emulator/index.js'",
      "import { d } from '../src/report/d.js'",
      "import { e } from './test/e.js'",
      "import { f } from '../tests/f.js'"
    ].join('\n')
    expect(importsOfTests(file, source)).toEqual(['../test/support/a.js', '../test/b.js'])
  })

  test('import nothing under test/', () => {
    const files = TOOLS.flatMap(folder => sourceFiles(join(ROOT, folder)))
    expect(files.filter(file => file.includes(`${sep}emulator${sep}`)).length).toBeGreaterThan(5)
    const found = files.flatMap(file =>
      importsOfTests(file, readFileSync(file, 'utf8')).map(
        imported => `${relative(ROOT, file)} imports ${imported}`
      )
    )
    expect(found).toEqual([])
  })
})
