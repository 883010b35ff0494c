import bundleIfStale from './bundle-if-stale.js'
import warmTransforms from './warm-transforms.js'

/** jest's global setup: a current bundle, then jest's cache of compiled TypeScript filled once. */
export default async function globalSetup(globalConfig, projectConfig) {
  bundleIfStale()
  await warmTransforms(globalConfig, projectConfig)
}
