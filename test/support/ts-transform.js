import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/**
 * jest's transform of our TypeScript: ts-jest's output, with a cache key of our own. ts-jest's key
 * needs ts-jest and TypeScript loaded and the tsconfig parsed (about 0.65 s of CPU in every worker),
 * though a warm cache (test/support/warm-transforms.js) leaves them nothing to compile. This key
 * hashes what decides the output without loading either: the file and its path, jest's config (the
 * transform's options in it), the tsconfig files the tests' tsconfig extends, and the versions of
 * ts-jest and TypeScript. ts-jest loads on the first file that is not in the cache.
 */

const require = createRequire(import.meta.url)

/** The text of a tsconfig and of each it extends (relative paths only: ours). */
function tsconfigChain(path) {
  const text = readFileSync(path, 'utf8')
  const parent = /"extends"\s*:\s*"(\.[^"]+)"/.exec(text)?.[1]
  return parent ? [text, ...tsconfigChain(join(dirname(path), parent))] : [text]
}

function createTransformer(options = {}) {
  let tsJest
  const compiler = () => {
    if (!tsJest) {
      const module = require('ts-jest')
      tsJest = (module.default ?? module).createTransformer(options)
    }
    return tsJest
  }
  let setup
  const setupOf = rootDir => {
    setup ??= [
      require('ts-jest/package.json').version,
      require('typescript/package.json').version,
      ...tsconfigChain(join(rootDir, options.tsconfig ?? 'tsconfig.json'))
    ].join('\0')
    return setup
  }
  return {
    canInstrument: false,
    getCacheKey(source, path, { config, configString, instrument, supportsStaticESM }) {
      return createHash('sha1')
        .update(setupOf(config.rootDir))
        .update('\0')
        .update(configString)
        .update(`\0${instrument ? 'instrument' : ''}\0${supportsStaticESM ? 'esm' : ''}\0${path}\0`)
        .update(source)
        .digest('hex')
    },
    process: (source, path, transformOptions) => compiler().process(source, path, transformOptions),
    processAsync: (source, path, transformOptions) => compiler().processAsync(source, path, transformOptions)
  }
}

export default { createTransformer }
