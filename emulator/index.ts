/** The embedded emulator of the Agent Run service: `new AgentRunEmulator().start()`. */
export { AgentRunEmulator } from './server.js'
export { endlessLog } from './faults.js'
export { DOCUMENTED_RATE_LIMITS, parseRateLimits } from './rate-limits.js'
export { MODE_NAMES, parseModes, describeModes, type ModeName } from './modes.js'
export { SCENARIO_NAMES, scenario, scenarioDirective } from './scenarios.js'
export { defaultRepos, OCTO_REPO } from './repos.js'
export type * from './types.js'
export { ACCOUNT_NAMES, account } from './accounts.js'
