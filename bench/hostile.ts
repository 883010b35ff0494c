/**
 * Hostile service: what the step costs when the service keeps sending. An endless, lying log of
 * 100 KB entries until the step's deadline, and one 300 MB answer. Peak RSS of the action's process
 * (getrusage at exit), its step time, and whether it still wrote its outputs and summary.
 */

import { statSync } from 'node:fs'
import { AgentRunEmulator, endlessLog, systemServerClock } from '../emulator/index.js'
import { cleanUp, preciseNow, spawnAction } from './action-process.js'

export const ENDLESS_TIMEOUT_MINUTES = 0.75
export const ENDLESS_ENTRY_BYTES = 100 * 1024
export const HUGE_RESPONSE_BYTES = 300 * 1024 * 1024

export interface HostileSample {
  maxRssBytes: number
  stepMs: number
  exitCode: number | null
  outcome: string
  summaryBytes: number
  logFileBytes: number
  /** Outputs and summary written: the step ended on its own terms. */
  reported: boolean
}

async function hostileRun(
  setUp: (emulator: AgentRunEmulator) => void,
  extraInputs: Record<string, string>
): Promise<HostileSample> {
  const emulator = new AgentRunEmulator({
    tokens: { 'bench-token': [1] },
    clock: systemServerClock(preciseNow)
  })
  await emulator.start()
  try {
    emulator.queueScript({ steps: [{ at: 0, status: 'ACTIVE' }] })
    setUp(emulator)
    const run = await spawnAction({
      inputs: {
        'api-token': 'bench-token',
        'org-id': '1',
        'base-url': emulator.baseUrl,
        'repo-id': '101',
        prompt: 'Fix the failing test',
        ...extraInputs
      },
      measureUsage: true,
      killAfterMs: 10 * 60_000
    })
    const logFile = run.outputs['log-file']
    let logFileBytes = 0
    try {
      if (logFile) logFileBytes = statSync(logFile).size
    } catch {
      // no file
    }
    const sample: HostileSample = {
      maxRssBytes: run.usage?.maxRssBytes ?? Number.NaN,
      stepMs: run.exitedAt - run.spawnedAt,
      exitCode: run.exitCode,
      outcome: run.outputs['outcome'] ?? '',
      summaryBytes: run.summaryBytes,
      logFileBytes,
      reported: run.outputs['outcome'] !== undefined && run.summaryBytes > 0
    }
    cleanUp(run)
    return sample
  } finally {
    await emulator.stop()
  }
}

/** A run that never ends while its log keeps growing by pages of 100 KB entries. */
export function endlessLogRun(): Promise<HostileSample> {
  return hostileRun(emulator => emulator.injectFaults(endlessLog(ENDLESS_ENTRY_BYTES)), {
    'timeout-minutes': String(ENDLESS_TIMEOUT_MINUTES),
    'poll-interval': '1'
  })
}

/** The first read of the run answers 300 MB. */
export function hugeResponseRun(): Promise<HostileSample> {
  return hostileRun(
    emulator =>
      emulator.injectFaults({
        route: 'get',
        times: 1_000,
        fault: { kind: 'huge', bytes: HUGE_RESPONSE_BYTES }
      }),
    { 'timeout-minutes': '0.5', 'poll-interval': '1' }
  )
}
