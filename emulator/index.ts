/** The embedded emulator of the Agent Run service: `new AgentRunEmulator().start()`. */
export { AgentRunEmulator } from './server.js'
export { endlessLog } from './faults.js'
export { DOCUMENTED_RATE_LIMITS } from './rate-limits.js'
export { SCENARIO_NAMES, scenario, scenarioDirective } from './scenarios.js'
export { defaultRepos, OCTO_REPO } from './repos.js'
export type * from './types.js'
export { ACCOUNT_NAMES, account } from './accounts.js'
