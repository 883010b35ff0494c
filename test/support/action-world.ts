import { AgentRunEmulator, scenario, type EmulatorOptions, type RunScript } from '../../emulator/index.js'
import { runBundledAction, type RunnerResult } from '../../scripts/runner-process.js'

/**
 * The world of the bundled action's end-to-end tests of one step against the service (action,
 * action-errors and run-edges .test.ts, split so that jest runs them side by side; fan-out, stop-run,
 * daily-limits-and-usage, hostile and the answer suites with their own inputs and pace): the bundle
 * against the emulator over real HTTP on loopback, as the runner runs it. Importing it registers the
 * hook that stops the emulator.
 */

export const TOKEN = 'emulator-token'
export let emulator: AgentRunEmulator

/** An emulator whose new runs start PENDING and go RUNNING and EVALUATION, as the live service's may. */
export function startEmulator(options: EmulatorOptions = {}): Promise<string> {
  return startEmulatorAsIs({ modes: ['pending-start', 'extra-statuses'], pendingMs: 300, ...options })
}

/** An emulator as `options` make it, nothing added. */
export async function startEmulatorAsIs(options: EmulatorOptions = {}): Promise<string> {
  emulator = new AgentRunEmulator(options)
  return emulator.start()
}

afterEach(async () => {
  await emulator?.stop()
})

export async function action(
  inputs: Record<string, string>,
  extra: Partial<Parameters<typeof runBundledAction>[0]> = {}
): Promise<RunnerResult> {
  return runBundledAction({
    inputs: {
      'api-token': TOKEN,
      'org-id': '1',
      'base-url': emulator.baseUrl,
      prompt: 'Fix the failing test',
      'poll-interval': '0.1',
      'timeout-minutes': '1',
      ...inputs
    },
    killAfterMs: 60_000,
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
