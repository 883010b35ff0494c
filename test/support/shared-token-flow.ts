import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { runAction } from '../../src/action.js'
import type { FakeRunner } from './fake-runner.js'
import { InProcessWorld } from './in-process-world.js'
import type { JobEnd } from './shared-token-checks.js'

/**
 * Several jobs of a matrix on one token, at once, against one emulator that enforces the limits
 * across all of them: in process, each job a runAction of its own (its own rate budget, as each
 * job's process has) with a FakeRunner, all on one virtual clock the emulator shares. The runs and
 * the checks (shared-token-checks.ts) are those of the same jobs as bundles in real time
 * (test/long/shared-token-jobs.ts); here every wait is exact, for the clock is one.
 */

/** One job of the matrix: its runner, its outputs, what failed it and its virtual duration. */
export interface Job extends JobEnd {
  runner: FakeRunner
}

/** The world of a test file: InProcessWorld's (a clock and folder a test, the emulator stopped after it). */
export class SharedTokenFlow extends InProcessWorld {
  /** `jobs` jobs started together, job i asking `job i`, each in a folder of its own. */
  async matrix(jobs: number, pollInterval: string): Promise<Job[]> {
    const steps = Array.from({ length: jobs }, (_, i) =>
      this.prepare(
        {
          'org-id': '1',
          'repo-id': '101',
          prompt: `job ${i}`,
          'poll-interval': pollInterval,
          'timeout-minutes': '3',
          'fail-on': 'timeout'
        },
        { temp: mkdtempSync(join(this.temp, `job-${i}-`)) }
      )
    )
    const started = this.clock.now()
    return this.clock.run(() =>
      Promise.all(
        steps.map(async ({ runner, environment }) => {
          const failure = await runAction(environment)
          return { runner, outputs: runner.outputs, failure, durationMs: this.clock.now() - started }
        })
      )
    )
  }
}
