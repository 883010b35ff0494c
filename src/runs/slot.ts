import type { AgentRun } from '../api/types.js'
import type { StartedRun } from '../agent-run/start.js'
import type { WatchState } from '../agent-run/watch-step.js'
import type { ItemReport, RunEvents, RunPlan, RunReport } from '../model.js'
import type { ItemState } from './outcome.js'
import type { FollowedRun } from './schedule.js'

/** An item of a fan-out on its way (fan-out.ts), and what the step's reporters see of it. */

export interface FanOutItem {
  name: string
  plan: RunPlan
  /** The item's reporters (its console lines named), redacting on the way in. */
  events: RunEvents
}

/** One item on its way: queued, starting, followed, settling (its answer read), then its report. */
export interface Slot {
  item: FanOutItem
  phase: 'queued' | 'starting' | 'following' | 'settling' | 'done'
  plan?: RunPlan
  started?: StartedRun
  watch?: WatchState
  follow?: FollowedRun
  lastRun?: AgentRun
  report?: RunReport
}

export function reportOfSlot(slot: Slot): ItemReport {
  return { name: slot.item.name, ...(slot.report ? { report: slot.report } : {}) }
}

/** The item as the line of every run's state shows it. */
export function stateOf(slot: Slot): ItemState {
  const name = slot.item.name
  if (slot.phase === 'queued' || slot.phase === 'starting') return { name, phase: 'queued', status: null }
  if (slot.phase === 'done')
    return { name, phase: 'ended', status: slot.report?.status ?? null, outcome: slot.report?.outcome }
  return { name, phase: 'working', status: slot.watch?.status ?? null }
}
