import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Tests named after their units: most files of src/ over 60 lines have a test of their name, a
 * unit's (test/unit/<part>/<name>.ts) or, for a unit that needs the clock or HTTP, a flow's
 * (test/flows/<behaviour>/<name>.ts). A reader looking for a file's tests finds them by its name.
 * Each folder of test/unit, test/flows and test/fakes is run by one jest file beside the folders,
 * which imports each of its files (unit.test.ts runs every folder of test/unit; a jest file of
 * test/flows runs the folders that share its world): one file for jest, so their modules load once.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** The folders of test/<kind>, each a group of tests run by test/<kind>/<folder>.test.ts. */
function groups(kind: string): string[] {
  return readdirSync(join(ROOT, 'test', kind), { withFileTypes: true })
    .filter(entry => entry.isDirectory())
    .map(entry => entry.name)
}

/** The files of src/ over `minLines` lines, each with whether a test of its name exists. */
export function testNames(minLines = 60): Array<{ file: string; tested: boolean }> {
  return sourceFiles(SRC)
    .filter(file => readFileSync(file, 'utf8').split('\n').length - 1 > minLines)
    .map(file => {
      const name = basename(file, '.ts')
      const tested = ['unit', 'flows'].some(
        kind =>
          existsSync(join(ROOT, 'test', kind, `${name}.test.ts`)) ||
          groups(kind).some(group => existsSync(join(ROOT, 'test', kind, group, `${name}.ts`)))
      )
      return { file: relative(SRC, file), tested }
    })
}

test('at least 80% of the files of src/ over 60 lines have a test of their name', () => {
  const files = testNames()
  const tested = files.filter(file => file.tested).length
  const share = tested / files.length
  if (process.env.TEST_NAMES_PRINT)
    console.log(
      `${tested}/${files.length} (${(100 * share).toFixed(1)}%); without: ${files
        .filter(file => !file.tested)
        .map(file => file.file)
        .join(', ')}`
    )
  expect(files.length).toBeGreaterThan(50)
  expect(share).toBeGreaterThanOrEqual(0.8)
})

/** The jest files of test/<kind>, each with the files of the folders it imports, as `folder/file.ts`. */
function jestFiles(kind: string): Array<{ file: string; imports: string[] }> {
  return readdirSync(join(ROOT, 'test', kind))
    .filter(file => file.endsWith('.test.ts'))
    .map(file => ({
      file,
      imports: [
        ...readFileSync(join(ROOT, 'test', kind, file), 'utf8').matchAll(
          /^import '\.\/([^/']+)\/([^/']+)\.js'$/gm
        )
      ].map(match => `${match[1]}/${match[2]}.ts`)
    }))
}

test.each(['unit', 'flows', 'fakes'])(
  'each file of a folder of test/%s is imported by the one jest file that runs its folder, and none is a jest file',
  kind => {
    const folders = groups(kind)
    const entries = jestFiles(kind)
    expect(folders.length).toBeGreaterThan(1)
    for (const group of folders) {
      const runners = entries.filter(entry => entry.imports.some(file => file.startsWith(`${group}/`)))
      const runBy = runners.map(runner => runner.file).join(' and ') || 'no jest file'
      expect(runners.length === 1 ? group : `${group}: run by ${runBy}`).toBe(group)
      const imported = (runners[0]?.imports ?? []).filter(file => file.startsWith(`${group}/`))
      const files = readdirSync(join(ROOT, 'test', kind, group))
        .filter(file => file.endsWith('.ts'))
        .map(file => `${group}/${file}`)
      expect(files.filter(file => file.endsWith('.test.ts'))).toEqual([])
      expect([...imported].sort()).toEqual([...files].sort())
    }
  }
)

test.each(['docs', 'scripts'])(
  'each file of test/%s is imported by its one jest file, which is the only jest file there',
  kind => {
    const entry = join(ROOT, 'test', kind, `${kind}.test.ts`)
    const imported = [...readFileSync(entry, 'utf8').matchAll(/^import '\.\/([^/']+)\.js'$/gm)].map(
      match => `${match[1]}.ts`
    )
    const files = readdirSync(join(ROOT, 'test', kind)).filter(file => file.endsWith('.ts'))
    expect(files.filter(file => file.endsWith('.test.ts'))).toEqual([`${kind}.test.ts`])
    expect([...imported].sort()).toEqual(files.filter(file => !file.endsWith('.test.ts')).sort())
  }
)
