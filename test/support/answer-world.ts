import { AgentRunEmulator } from '../../emulator/index.js'
import { runBundledAction, type RunnerOptions, type RunnerResult } from '../../scripts/runner-process.js'

/**
 * The world of the answer suites (structured-answers, answer-repairs, answer-bounds): a fresh
 * emulator for each test, and the bundle run against it as the runner runs it.
 */

/** Starts an emulator before each test and stops it after; `use` receives each one. */
export function emulatorPerTest(use: (emulator: AgentRunEmulator) => void): void {
  let current: AgentRunEmulator | undefined
  beforeEach(async () => {
    current = new AgentRunEmulator()
    await current.start()
    use(current)
  })
  afterEach(async () => {
    await current?.stop()
  })
}

/** The bundled action against the test's emulator: the suite's own inputs under each test's. */
export function bundledAction(
  emulator: () => AgentRunEmulator,
  defaults: Record<string, string>,
  killAfterMs: number
): (inputs: Record<string, string>, extra?: Partial<RunnerOptions>) => Promise<RunnerResult> {
  return (inputs, extra = {}) =>
    runBundledAction({
      inputs: {
        'api-token': 'emulator-token',
        'org-id': '1',
        'base-url': emulator().baseUrl,
        'poll-interval': '0.1',
        ...defaults,
        ...inputs
      },
      killAfterMs,
      ...extra
    })
}
