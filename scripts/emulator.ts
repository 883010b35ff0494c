/**
 * `npm run emulator`: the Agent Run service emulator on its own, for pointing a workflow, the
 * action or a script at it. Runs until SIGINT or SIGTERM.
 *
 *   node build/scripts/emulator.js [--port N] [--host H] [--scenario NAME] [--speed X] [--account NAME]
 *
 * Token `emulator-token`, organization 1 (--account: one-org, several-orgs, inactive-integration, no-org). A prompt containing `[emulator:NAME]` picks the scenario
 * of that run; --scenario sets the one used otherwise.
 */
import { parseArgs } from 'node:util'
import { account, ACCOUNT_NAMES, AgentRunEmulator, SCENARIO_NAMES } from '../emulator/index.js'

function fail(message: string): never {
  console.error(message)
  process.exit(2)
}

let values: { port: string; host: string; scenario: string; speed: string; account: string }
try {
  values = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      scenario: { type: 'string', default: 'success' },
      speed: { type: 'string', default: '1' },
      account: { type: 'string', default: 'one-org' }
    }
  }).values
} catch (error) {
  fail(
    `${(error as Error).message}\nUsage: emulator [--port N] [--host H] [--scenario NAME] [--speed X] [--account NAME]`
  )
}

const port = Number(values.port)
const speed = Number(values.speed)
if (!Number.isInteger(port) || port < 0 || port > 65_535)
  fail(`--port: expected 0..65535, got "${values.port}"`)
if (!(speed > 0) || !Number.isFinite(speed))
  fail(`--speed: expected a positive number, got "${values.speed}"`)
if (!SCENARIO_NAMES.includes(values.scenario)) {
  fail(`--scenario: unknown "${values.scenario}", one of ${SCENARIO_NAMES.join(', ')}`)
}

if (!ACCOUNT_NAMES.includes(values.account)) {
  fail(`--account: unknown "${values.account}", one of ${ACCOUNT_NAMES.join(', ')}`)
}

const emulator = new AgentRunEmulator({ defaultScenario: values.scenario, speed, ...account(values.account) })
const baseUrl = await emulator.start(port, values.host)
console.log(`Agent Run emulator listening on ${baseUrl} (token: emulator-token, account: ${values.account})`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void emulator.stop().then(() => process.exit(0))
  })
}
