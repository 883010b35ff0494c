/**
 * `npm run emulator`: the Agent Run service emulator on its own, for pointing a workflow, the
 * action or a script at it. Runs until SIGINT or SIGTERM.
 *
 *   node build/scripts/emulator.js [--port N] [--host H] [--scenario NAME] [--speed X] [--account NAME]
 *     [--mode NAME,...] [--rate-limits general=20/20,logs=20/20]
 *
 * Token `emulator-token`, organization 1 (--account: one-org, several-orgs, inactive-integration,
 * member, no-org). A prompt containing `[emulator:NAME]` picks the scenario of that run; --scenario
 * sets the one used otherwise. --mode turns on where the live service may answer otherwise
 * (emulator/modes.ts); --rate-limits replaces documented windows (requests/seconds), or is off.
 */
import { parseArgs } from 'node:util'
import {
  account,
  ACCOUNT_NAMES,
  AgentRunEmulator,
  describeModes,
  parseModes,
  parseRateLimits,
  SCENARIO_NAMES
} from '../emulator/index.js'

function fail(message: string): never {
  console.error(message)
  process.exit(2)
}

const USAGE =
  'Usage: emulator [--port N] [--host H] [--scenario NAME] [--speed X] [--account NAME] [--mode NAME,...] ' +
  `[--rate-limits NAME=REQUESTS/SECONDS,...|off]\nModes:\n${describeModes()}`

let values: {
  port: string
  host: string
  scenario: string
  speed: string
  account: string
  mode: string[]
  'rate-limits': string
}
try {
  values = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      scenario: { type: 'string', default: 'success' },
      speed: { type: 'string', default: '1' },
      account: { type: 'string', default: 'one-org' },
      mode: { type: 'string', multiple: true, default: [] },
      'rate-limits': { type: 'string', default: '' }
    }
  }).values
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`)
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

let modes: ReturnType<typeof parseModes> = []
let rateLimits: ReturnType<typeof parseRateLimits> | undefined
try {
  modes = parseModes(values.mode)
  rateLimits = values['rate-limits'] ? parseRateLimits(values['rate-limits']) : undefined
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`)
}

const emulator = new AgentRunEmulator({
  defaultScenario: values.scenario,
  speed,
  modes,
  rateLimits,
  ...account(values.account)
})
const baseUrl = await emulator.start(port, values.host)
const shownModes = modes.length ? `, modes: ${modes.join(', ')}` : ''
console.log(
  `Agent Run emulator listening on ${baseUrl} (token: emulator-token, account: ${values.account}${shownModes})`
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void emulator.stop().then(() => process.exit(0))
  })
}
