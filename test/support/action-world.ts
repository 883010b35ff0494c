import {
  scenario,
  type AgentRunEmulator,
  type EmulatorOptions,
  type RunScript
} from '../../emulator/index.js'
import type { RunnerResult } from '../../scripts/runner-process.js'
import type { FlowOptions, FlowResult } from './flow-step.js'
import { FlowWorld } from './flow-world.js'

/**
 * The world of the flows of one step against the service (action, action-errors, run-edges, fan-out,
 * stop-run, daily limits, hostile and the answer suites): the action in process on the virtual clock,
 * against the emulator over real HTTP on loopback, as the runner runs it (flow-step.ts). Importing it
 * registers the hooks.
 */

export const TOKEN = 'emulator-token'
const world = new FlowWorld()
/** The test's emulator: the one `startEmulator` started last. */
export let emulator: AgentRunEmulator

beforeEach(() => {
  emulator = world.emulator
})

/** The test's virtual clock. */
export const clock = () => world.clock

/** An emulator whose new runs start PENDING and go RUNNING and EVALUATION, as the live service's may. */
export function startEmulator(options: EmulatorOptions = {}): Promise<string> {
  return startEmulatorAsIs({ modes: ['pending-start', 'extra-statuses'], pendingMs: 300, ...options })
}

/** An emulator as `options` make it, nothing added. */
export async function startEmulatorAsIs(options: EmulatorOptions = {}): Promise<string> {
  emulator = await world.useEmulator(options)
  return emulator.baseUrl
}

export async function action(
  inputs: Record<string, string>,
  extra: Omit<FlowOptions, 'inputs'> = {}
): Promise<FlowResult> {
  return world.step({
    inputs: {
      'api-token': TOKEN,
      'org-id': '1',
      'base-url': emulator.baseUrl,
      prompt: 'Fix the failing test',
      'poll-interval': '0.1',
      'timeout-minutes': '1',
      ...inputs
    },
    ...extra
  })
}

export const fast = (name: string): RunScript => scenario(name, 20)
export const routes = (route: string) => emulator.requests.filter(request => request.route === route)
/** The job log as a reader sees it: group titles shown, other workflow commands hidden. */
export const consoleLines = (result: RunnerResult) =>
  result.stdout
    .split('\n')
    .map(line => line.replace(/^::group::/, ''))
    .filter(line => !line.startsWith('::'))
