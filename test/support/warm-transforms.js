import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { createScriptTransformer } from '@jest/transform'

/**
 * jest's global setup, second part: every TypeScript file the tests load is compiled once, here, into
 * jest's cache. On a fresh clone the cache is empty, and the workers starting at once would each
 * compile the same files. The options are the ones jest's runtime asks for an ES module with, so
 * that the workers find what is written here.
 */

const FOLDERS = ['src', 'test', 'emulator', 'scripts']

function typeScriptFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap(entry => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return typeScriptFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

export default async function warmTransforms(globalConfig, projectConfig) {
  const transformer = await createScriptTransformer(projectConfig)
  const options = {
    isInternalModule: false,
    supportsDynamicImport: true,
    supportsExportNamespaceFrom: true,
    supportsStaticESM: true,
    supportsTopLevelAwait: true,
    changedFiles: undefined,
    collectCoverage: globalConfig.collectCoverage,
    collectCoverageFrom: globalConfig.collectCoverageFrom,
    coverageProvider: globalConfig.coverageProvider,
    globalRootDir: globalConfig.rootDir,
    sourcesRelatedToTestsInChangedFiles: undefined
  }
  for (const folder of FOLDERS)
    for (const file of typeScriptFiles(join(projectConfig.rootDir, folder)))
      transformer.transform(file, options)
}
