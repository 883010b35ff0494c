/**
 * `npm start`: runs the bundled action exactly as the GitHub runner does, against the embedded
 * emulator of the Agent Run service (no token needed), or against the real service when
 * CODEGEN_API_TOKEN and CODEGEN_ORG_ID are set. Prints the console mirror live, then the outputs
 * and where the job summary is.
 *
 *   npm start                                  emulator, the 'success' scenario
 *   npm start -- --scenario failure "Fix it"   another scenario, another prompt
 *   npm start -- --scenario verdict-fail       a review asked for a verdict (verdict-pass, -fail, -repaired,
 *                                              -never set verdict: true; --verdict, --output-schema and
 *                                              --output-retries ask any run)
 *   npm start -- --task check                  the set-up check (token, organization, integration, repository)
 *   npm start -- --task setup-commands         generate octo-org/octo-repo's setup commands and follow that run
 *   npm start -- --account several-orgs        an account of the emulator: one-org, several-orgs,
 *                                              inactive-integration, no-org (with --org-id N to pick one)
 *   CODEGEN_API_TOKEN=... npm start -- "Fix the flaky test"
 *     (CODEGEN_ORG_ID, else the token's only organization; CODEGEN_REPO_ID, or GITHUB_REPOSITORY=owner/name
 *     to look it up, picks the repository)
 */
import { parseArgs } from 'node:util'
import { account, ACCOUNT_NAMES, AgentRunEmulator, SCENARIO_NAMES } from '../emulator/index.js'
import { runBundledAction } from './runner-process.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    scenario: { type: 'string', default: 'success' },
    task: { type: 'string', default: 'run' },
    account: { type: 'string', default: 'one-org' },
    'org-id': { type: 'string', default: '' },
    repository: { type: 'string', default: '' },
    speed: { type: 'string', default: '1' },
    'poll-interval': { type: 'string', default: '1' },
    verdict: { type: 'boolean', default: false },
    'output-schema': { type: 'string', default: '' },
    'output-retries': { type: 'string', default: '1' }
  }
})

/** The verdict scenarios answer a step that asks for a verdict; any run may ask with --verdict. */
const answerInputs = {
  verdict: String(values.verdict || values.scenario.startsWith('verdict-')),
  'output-schema': values['output-schema'],
  'output-retries': values['output-retries']
}

// Only a run needs a prompt; setup commands take one as extra guidance.
const prompt =
  positionals.join(' ') ||
  (values.task !== 'run'
    ? ''
    : values.scenario.startsWith('verdict-')
      ? 'Review the change; fail it if it breaks the public API.'
      : 'Fix the failing test in src/parser.ts')
const realToken = process.env.CODEGEN_API_TOKEN
let emulator: AgentRunEmulator | undefined
let inputs: Record<string, string>
/** The harness stands in a sample repository and workflow run; a real run records only what is true. */
let env: Record<string, string> = {}

if (realToken) {
  console.log('Running the action against the real Agent Run service (CODEGEN_API_TOKEN is set).\n')
  inputs = {
    'api-token': realToken,
    task: values.task,
    'org-id': values['org-id'] || (process.env.CODEGEN_ORG_ID ?? ''),
    repository: values.repository,
    'base-url': process.env.CODEGEN_BASE_URL ?? 'https://api.codegen.com',
    'repo-id': process.env.CODEGEN_REPO_ID ?? '',
    prompt,
    ...answerInputs
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
  if (!ACCOUNT_NAMES.includes(values.account)) {
    console.error(`Unknown account "${values.account}": one of ${ACCOUNT_NAMES.join(', ')}.`)
    process.exit(2)
  }
  emulator = new AgentRunEmulator({
    defaultScenario: values.scenario,
    speed: Number(values.speed),
    ...account(values.account)
  })
  const baseUrl = await emulator.start()
  console.log(
    `Agent Run emulator on ${baseUrl}, account "${values.account}", scenario "${values.scenario}" (no CODEGEN_API_TOKEN set).\n`
  )
  inputs = {
    task: values.task,
    'api-token': 'emulator-token',
    // Empty: the action finds the token's only organization (or says which to choose).
    'org-id': values['org-id'],
    repository: values.repository,
    'base-url': baseUrl,
    prompt,
    'poll-interval': values['poll-interval'],
    'timeout-minutes': '5',
    ...answerInputs
  }
}

const result = await runBundledAction({ inputs, env, inheritOutput: true, killAfterMs: 60 * 60_000 })
await emulator?.stop()

console.log('\nOutputs:')
for (const [name, value] of Object.entries(result.outputs)) {
  const shown = value.length > 200 ? `${value.slice(0, 200).replace(/\n/g, ' ')}…` : value.replace(/\n/g, ' ')
  console.log(`  ${name.padEnd(22)} ${shown}`)
}
console.log(`\nJob summary (Markdown): ${result.summaryPath}`)
console.log(`Exit code: ${result.exitCode}`)
process.exit(result.exitCode ?? 1)
