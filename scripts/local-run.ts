/**
 * `npm start`: runs the bundled action exactly as the GitHub runner does, against the embedded
 * emulator of the Agent Run service (no token needed), or against the real service when
 * CODEGEN_API_TOKEN and CODEGEN_ORG_ID are set. Prints the console mirror live, then the outputs
 * and where the job summary is.
 *
 *   npm start                                  emulator, the 'success' scenario
 *   npm start -- --scenario failure "Fix it"   another scenario, another prompt
 *   CODEGEN_API_TOKEN=... CODEGEN_ORG_ID=... npm start -- "Fix the flaky test"
 *     (CODEGEN_REPO_ID, or GITHUB_REPOSITORY=owner/name to look it up, picks the repository)
 */
import { parseArgs } from 'node:util'
import { AgentRunEmulator, SCENARIO_NAMES } from '../test/emulator/index.js'
import { runAction } from '../test/harness/runner-process.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    scenario: { type: 'string', default: 'success' },
    speed: { type: 'string', default: '1' },
    'poll-interval': { type: 'string', default: '1' }
  }
})

const prompt = positionals.join(' ') || 'Fix the failing test in src/parser.ts'
const realToken = process.env.CODEGEN_API_TOKEN
let emulator: AgentRunEmulator | undefined
let inputs: Record<string, string>
/** The harness stands in a sample repository and workflow run; a real run records only what is true. */
let env: Record<string, string> = {}

if (realToken) {
  if (!process.env.CODEGEN_ORG_ID) {
    console.error('CODEGEN_ORG_ID must be set along with CODEGEN_API_TOKEN.')
    process.exit(2)
  }
  console.log('Running the action against the real Agent Run service (CODEGEN_API_TOKEN is set).\n')
  inputs = {
    'api-token': realToken,
    'org-id': process.env.CODEGEN_ORG_ID,
    'base-url': process.env.CODEGEN_BASE_URL ?? 'https://api.codegen.com',
    'repo-id': process.env.CODEGEN_REPO_ID ?? '',
    prompt
  }
  env = {
    GITHUB_REPOSITORY: process.env.GITHUB_REPOSITORY ?? '',
    GITHUB_RUN_ID: '',
    GITHUB_WORKFLOW: 'npm start',
    GITHUB_EVENT_NAME: 'local',
    GITHUB_ACTOR: process.env.USER ?? '',
    GITHUB_SHA: ''
  }
} else {
  if (!SCENARIO_NAMES.includes(values.scenario)) {
    console.error(`Unknown scenario "${values.scenario}": one of ${SCENARIO_NAMES.join(', ')}.`)
    process.exit(2)
  }
  emulator = new AgentRunEmulator({ defaultScenario: values.scenario, speed: Number(values.speed) })
  const baseUrl = await emulator.start()
  console.log(`Agent Run emulator on ${baseUrl}, scenario "${values.scenario}" (no CODEGEN_API_TOKEN set).\n`)
  inputs = {
    'api-token': 'emulator-token',
    'org-id': '1',
    'base-url': baseUrl,
    prompt,
    'poll-interval': values['poll-interval'],
    'timeout-minutes': '5'
  }
}

const result = await runAction({ inputs, env, inheritOutput: true, killAfterMs: 60 * 60_000 })
await emulator?.stop()

console.log('\nOutputs:')
for (const [name, value] of Object.entries(result.outputs)) {
  const shown = value.length > 200 ? `${value.slice(0, 200).replace(/\n/g, ' ')}…` : value.replace(/\n/g, ' ')
  console.log(`  ${name.padEnd(22)} ${shown}`)
}
console.log(`\nJob summary (Markdown): ${result.summaryPath}`)
console.log(`Exit code: ${result.exitCode}`)
process.exit(result.exitCode ?? 1)
