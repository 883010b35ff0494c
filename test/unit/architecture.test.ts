import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * No cycle between the units of src/ (its folders and the files at its top), nor between its files:
 * each unit is a layer a reader can take in without the ones above it, and a tie both ways (or round
 * a longer loop) cannot slip back in unseen.
 */

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** The unit of src/ a file belongs to: its folder, or the file itself at src/'s top. */
function unitOf(file: string): string {
  const parts = relative(SRC, file).split(sep)
  return parts.length > 1 ? `${parts[0]}/` : (parts[0] ?? '')
}

/** Every relative module a file imports or re-exports, static or dynamic. */
export function relativeImports(source: string): string[] {
  const specifiers = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm
  return [...source.matchAll(specifiers)].map(match => match[1] ?? '')
}

type Edge = { from: string; to: string; file: string; imported: string }

/** Every import between files of src/, as file → file (paths relative to src/, .ts). */
function fileEdges(): Edge[] {
  return sourceFiles(SRC).flatMap(file =>
    relativeImports(readFileSync(file, 'utf8')).map(imported => ({
      from: relative(SRC, file),
      to: relative(SRC, resolve(dirname(file), imported)).replace(/\.js$/, '.ts'),
      file: relative(SRC, file),
      imported
    }))
  )
}

/** The same imports between units (folders, and the files at src/'s top). */
function unitEdges(edges: Edge[]): Edge[] {
  const unit = (path: string): string => unitOf(resolve(SRC, path))
  return edges
    .map(edge => ({ ...edge, from: unit(edge.from), to: unit(edge.to) }))
    .filter(edge => edge.from !== edge.to)
}

/**
 * The cycles of a graph: each strongly connected group of more than one node (Tarjan), or a node
 * importing itself, as its sorted nodes and one import that closes it.
 */
export function cycles(edges: Edge[]): string[] {
  const next = new Map<string, Edge[]>()
  for (const edge of edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge])
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const found: string[] = []
  const visit = (node: string): void => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    for (const { to } of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!))
    }
    if (low.get(node) !== index.get(node)) return
    const group: string[] = []
    for (let top = stack.pop()!; ; top = stack.pop()!) {
      group.push(top)
      if (top === node) break
    }
    const inside = edges.find(edge => group.includes(edge.from) && group.includes(edge.to))
    if (group.length > 1 || inside?.from === inside?.to) {
      if (inside) found.push(`${group.sort().join(' -> ')}: e.g. ${inside.file} imports ${inside.imported}`)
    }
  }
  for (const node of new Set(edges.map(edge => edge.from))) if (!index.has(node)) visit(node)
  return found
}

describe('the units and files of src/', () => {
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

  const edge = (from: string, to: string): Edge => ({ from, to, file: from, imported: to })

  test('a cycle is found, of two or more, and a chain or a tree is not', () => {
    expect(cycles([edge('api/', 'runner/'), edge('runner/', 'api/'), edge('api/', 'clock.ts')])).toEqual([
      'api/ -> runner/: e.g. api/ imports runner/'
    ])
    expect(
      cycles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts'), edge('c.ts', 'a.ts'), edge('c.ts', 'd.ts')])
    ).toEqual(['a.ts -> b.ts -> c.ts: e.g. a.ts imports b.ts'])
    expect(cycles([edge('x.ts', 'x.ts')])).toEqual(['x.ts: e.g. x.ts imports x.ts'])
    expect(
      cycles([edge('action.ts', 'api/'), edge('action.ts', 'clock.ts'), edge('api/', 'clock.ts')])
    ).toEqual([])
  })

  test('src/ has units and files, and they import one another', () => {
    const files = fileEdges()
    expect(new Set(files.map(edge => edge.from)).size).toBeGreaterThan(25)
    expect(files.some(edge => edge.from === 'api/client.ts' && edge.to === 'api/transport.ts')).toBe(true)
    const units = unitEdges(files)
    expect(new Set(units.map(edge => edge.from)).size).toBeGreaterThan(6)
    expect(units.some(edge => edge.from === 'agent-run/' && edge.to === 'api/')).toBe(true)
    expect(units.some(edge => edge.from === 'action.ts' && edge.to === 'settings/')).toBe(true)
  })

  test('no cycle between the units of src/ (its folders and top files)', () => {
    expect(cycles(unitEdges(fileEdges()))).toEqual([])
  })

  test('no cycle between the files of src/', () => {
    expect(cycles(fileEdges())).toEqual([])
  })
})

/**
 * The three rooms of GitHub's side, each importing only one way: github/ (GitHub's client) imports
 * neither thread/ (what an event asks, how the thread is read) nor report/ (the reporters, those that
 * write to GitHub among them); thread/ imports no report/ (decide.ts opens its tracking comment).
 */
const ONE_WAY: Record<string, string[]> = {
  'github/': ['thread/', 'report/'],
  'thread/': ['report/']
}

/** The imports between units that go against ONE_WAY, as `file imports what`. */
export function wrongWay(edges: Edge[], rules: Record<string, string[]> = ONE_WAY): string[] {
  return edges
    .filter(edge => rules[edge.from]?.includes(edge.to))
    .map(edge => `${edge.file} imports ${edge.imported}`)
}

describe("the rooms of GitHub's side", () => {
  const edge = (from: string, to: string, file = `${from}x.ts`): Edge => ({
    from,
    to,
    file,
    imported: `../${to}y.js`
  })

  test("an import against the rooms' direction is found, and one with it is not", () => {
    expect(
      wrongWay([
        edge('github/', 'report/'),
        edge('github/', 'thread/'),
        edge('thread/', 'report/'),
        edge('thread/', 'github/'),
        edge('report/', 'thread/'),
        edge('report/', 'github/'),
        edge('decide.ts', 'report/', 'decide.ts')
      ])
    ).toEqual([
      'github/x.ts imports ../report/y.js',
      'github/x.ts imports ../thread/y.js',
      'thread/x.ts imports ../report/y.js'
    ])
  })

  test('src/ has the three rooms, and they import one way only', () => {
    const units = unitEdges(fileEdges())
    for (const [from, to] of [
      ['thread/', 'github/'],
      ['report/', 'github/'],
      ['report/', 'thread/']
    ])
      expect(units.some(edge => edge.from === from && edge.to === to)).toBe(true)
    expect(wrongWay(units)).toEqual([])
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

/** A file a reader can take in whole (issue 44): longer ones are split by what their parts do. */
const MAX_FILE_LINES = 400

describe('the size of the files', () => {
  test('no file of src/, emulator/, scripts/ or bench/ is over 400 lines', () => {
    const files = ['src', ...TOOLS].flatMap(folder => sourceFiles(join(ROOT, folder)))
    expect(files.length).toBeGreaterThan(50)
    const over = files.flatMap(file => {
      const lines = readFileSync(file, 'utf8').split('\n').length - 1
      return lines > MAX_FILE_LINES ? [`${relative(ROOT, file)}: ${lines} lines`] : []
    })
    expect(over).toEqual([])
  })
})
