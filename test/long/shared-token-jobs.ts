import { AgentRunEmulator, type EmulatorOptions } from '../../emulator/index.js'
import { runBundle } from '../support/bundle-world.js'
import type { JobEnd } from '../support/shared-token-checks.js'

/**
 * The world of the long shared-token suites (shared-token-windows and shared-token-documented
 * .test.ts): several jobs of a matrix on one token, each the bundle as the runner runs it, side by
 * side in real time, against an emulator that enforces the limits across all of them. The runs and
 * the checks: test/support/shared-token-checks.ts (the same jobs in process: shared-token-flow.ts).
 */

export let emulator: AgentRunEmulator
afterEach(async () => {
  await emulator.stop()
})

/** Starts the emulator the next jobs share. */
export async function startEmulator(options: EmulatorOptions): Promise<void> {
  emulator = new AgentRunEmulator(options)
  await emulator.start()
}

/** `jobs` bundles started together, job i asking `job i`; a job failed unless it exited 0. */
export async function matrix(jobs: number, pollInterval: string): Promise<JobEnd[]> {
  const results = await Promise.all(
    Array.from({ length: jobs }, (_, i) =>
      runBundle({
        inputs: {
          'api-token': 'emulator-token',
          'org-id': '1',
          'base-url': emulator.baseUrl,
          'repo-id': '101',
          prompt: `job ${i}`,
          'poll-interval': pollInterval,
          'timeout-minutes': '3',
          'fail-on': 'timeout'
        },
        killAfterMs: 200_000
      })
    )
  )
  return results.map(({ outputs, exitCode, killed, stderr, durationMs }) => ({
    outputs,
    failure:
      exitCode === 0 ? undefined : `exit code ${exitCode}${killed ? ' (killed)' : ''}; stderr: ${stderr}`,
    durationMs
  }))
}
