import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * jest's global setup: the end-to-end tests spawn dist/index.js, so a bundle older than the source
 * it is built from is rebuilt first (`npm run bundle`). A change under src/ is tested by the next
 * `npm test`, never an old bundle.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** The newest modification time of the files the bundle is built from. */
function newestSource() {
  let newest = statSync(join(root, 'package-lock.json')).mtimeMs
  const walk = folder => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else newest = Math.max(newest, statSync(path).mtimeMs)
    }
  }
  walk(join(root, 'src'))
  return newest
}

const git = args =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()

/**
 * True when the committed bundle stands as it was committed, for the source as it was committed, and
 * was committed no earlier than that source: CI checks that a committed dist/ is the build of the
 * committed src/. A fresh clone's file times say nothing (git writes dist/ before src/).
 */
function committedBundleIsCurrent() {
  try {
    if (git(['status', '--porcelain', '--', 'src', 'dist', 'package-lock.json']) !== '') return false
    const lastChange = paths => Number(git(['log', '-1', '--format=%ct', '--', ...paths]) || 0)
    return lastChange(['dist']) >= lastChange(['src', 'package-lock.json'])
  } catch {
    return false // not a git checkout: the file times decide
  }
}

export default function bundleIfStale() {
  const bundle = join(root, 'dist', 'index.js')
  if (existsSync(bundle) && (committedBundleIsCurrent() || statSync(bundle).mtimeMs >= newestSource())) return
  process.stderr.write('\ndist/index.js is older than src/: rebuilding it (npm run bundle)\n')
  execFileSync('npm', ['run', '--silent', 'bundle'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
}
