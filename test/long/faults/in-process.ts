import type { RunnerResult } from '../../../scripts/runner-process.js'
import { runFlowStep } from '../../support/flow-step.js'
import type { VirtualClock } from '../../support/virtual-clock.js'

/**
 * A fault schedule's step in process on the virtual clock instead of through the bundle: the step as
 * the runner runs it (flow-step.ts: the runner's folders, @actions/core writing outputs, summary and
 * console), so that the suite judges it exactly as it judges the bundle's. For the schedules whose
 * answers outlive the client's request time limit (30 s): waited out on the virtual clock, each costs
 * no real time. Steps in process run one at a time (they own process.env and stdout while they run).
 */

export interface VirtualStepOptions {
  inputs: Record<string, string>
  /** Past this (virtual ms) the job is cancelled, and the step counts as killed (a hang). */
  killAfterMs: number
}

let lane: Promise<unknown> = Promise.resolve()

/** Runs `work` once every earlier work of the lane has ended: one step in process at a time. */
export function inTurn<T>(work: () => Promise<T>): Promise<T> {
  const turn = lane.then(work, work)
  lane = turn.catch(() => undefined)
  return turn
}

/** One step on `clock`; a step cancelled at killAfterMs reads as killed (exit code null). */
export async function runOnVirtualClock(
  clock: VirtualClock,
  options: VirtualStepOptions
): Promise<RunnerResult> {
  const result = await runFlowStep(clock, { inputs: options.inputs, terminateAfterMs: options.killAfterMs })
  return result.terminatedAtMs === undefined ? result : { ...result, exitCode: null }
}
