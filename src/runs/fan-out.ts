import type { Clock } from '../clock.js'
import { runBrief, type RunDeps } from '../agent-run/run-brief.js'
import type { ServiceClients } from '../org/clients.js'
import {
  reportOf,
  type ItemReport,
  type ItemState,
  type RunEvents,
  type RunBrief,
  type RunReport
} from '../model.js'
import { discoverOrganization } from '../org/organizations.js'
import { ListWatcher } from './list-watcher.js'
import { startable } from './schedule.js'

/**
 * Many runs from one step: each item is one run from its brief to its report (runBrief, as a run
 * alone: started, followed, its answer settled), at most `maxParallel` at once, all followed by one
 * ListWatcher: every status from one read of the organization's runs a poll-interval, each run's
 * log a page at a time, on one budget.
 */

export interface FanOutItem {
  name: string
  brief: RunBrief
  /** The item's reporters (its console lines named), redacting on the way in. */
  events: RunEvents
  /** The item's notices (a daily limit reached), named; else they are its warnings. */
  notice?: (message: string) => void
}

export interface FanOutDeps {
  apis: ServiceClients
  clock: Clock
  signal?: AbortSignal
  /** Epoch ms at which the step stops waiting (timeout-minutes after it started). */
  deadline: number
  /** When the service's last calls must end once the step is cut short (Deadlines.lastCallsBy). */
  lastCallsBy?: () => number
  maxParallel: number
  /** Whether each working run's log is read as it goes (a console mirror), or only at its end. */
  liveLog: boolean
  /** The step's own notices (the organization chosen). */
  notice(message: string): void
  /** The line of every run's state, once a minute. */
  states(states: ItemState[], elapsedMs: number): void
  /** verdict or output-schema: each run's answer read as it ends, repaired by resuming it; it keeps its place meanwhile. */
  answer?: RunDeps['answer']
  /** The daily limits, asked before each item's create: the step's one read, its own starts counted. */
  dailyLimit?: RunDeps['start']['dailyLimit']
}

/** Starts and follows every item; returns their reports in the list's order. */
export async function runFanOut(items: FanOutItem[], deps: FanOutDeps): Promise<ItemReport[]> {
  const { clock, signal, deadline } = deps
  const lastCallsBy = deps.lastCallsBy ? { lastCallsBy: deps.lastCallsBy } : {}
  const startedAt = clock.now()
  const orgId = await oneOrganization(items, deps)
  if (typeof orgId === 'object')
    return items.map(({ name }) => ({
      name,
      report: reportOf({ outcome: 'error', ...orgId }, startedAt, clock.now())
    }))
  const states: ItemState[] = items.map(({ name }) => ({ name, phase: 'queued', status: null }))
  const watcher = new ListWatcher({
    api: deps.apis(orgId),
    clock,
    signal,
    deadline,
    liveLog: deps.liveLog,
    everyMinute: now => deps.states(states, now - startedAt)
  })
  const reports = await inTurn(items.length, deps.maxParallel, async i => {
    const { brief, events, notice } = items[i] as FanOutItem
    const state = states[i] as ItemState
    const report =
      turnMissed(deps) ??
      (await runBrief(
        { ...brief, orgId },
        {
          start: {
            apis: deps.apis,
            clock,
            signal,
            deadline,
            ...lastCallsBy,
            warning: say(events),
            notice: notice ?? say(events),
            ...(deps.dailyLimit ? { dailyLimit: deps.dailyLimit } : {})
          },
          follow: {
            clock,
            signal,
            deadline,
            ...lastCallsBy,
            events: tracked(events, state),
            watch: watcher.watch
          },
          ...(deps.answer ? { answer: deps.answer } : {})
        }
      ))
    Object.assign(state, { phase: 'ended', status: report.status, outcome: report.outcome })
    return report
  })
  return items.map(({ name }, i) => ({ name, report: reports[i] as RunReport }))
}

/** The organization every item acts on: org-id, else the token's only one, found once for all. */
async function oneOrganization(
  items: FanOutItem[],
  deps: FanOutDeps
): Promise<number | { error: string; httpStatus?: number }> {
  const given = items[0]?.brief.orgId
  if (given !== undefined) return given
  const found = await discoverOrganization(deps.apis, { deadline: deps.deadline }, deps.notice)
  return 'error' in found ? found : found.orgId
}

/** Runs `count` tasks in the list's order, at most `parallel` at once: the next starts as one ends. */
async function inTurn<T>(count: number, parallel: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = []
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++
      results[i] = await task(i)
    }
  }
  await Promise.all(Array.from({ length: startable(0, count, parallel) }, worker))
  return results
}

/** An item whose turn came after the step was cut short: it is not started. */
function turnMissed({ clock, signal, deadline }: FanOutDeps): RunReport | undefined {
  const ending = signal?.aborted ? 'cancelled' : clock.now() >= deadline ? 'timeout' : undefined
  if (!ending) return undefined
  const why = ending === 'cancelled' ? 'The job was cancelled' : 'timeout-minutes was reached'
  return reportOf(
    { outcome: ending, error: `${why} before this run's turn came: it was not started.` },
    clock.now()
  )
}

/** An item's notices are its warnings: the step's own notices name no run. */
function say(events: RunEvents): (message: string) => void {
  return message => events.warning(message)
}

/** The item's events passed on, its state kept for the line of every run's state. */
function tracked(events: RunEvents, state: ItemState): RunEvents {
  return {
    started(run, mode, carriedFrom, fixAttempt) {
      Object.assign(state, { phase: 'working', status: run.status ?? null })
      events.started(run, mode, carriedFrom, fixAttempt)
    },
    statusChanged(from, to) {
      state.status = to
      events.statusChanged(from, to)
    },
    newEntries: (entries, firstIndex) => events.newEntries(entries, firstIndex),
    heartbeat: (elapsedMs, status, entriesSeen) => events.heartbeat(elapsedMs, status, entriesSeen),
    warning: message => events.warning(message),
    repairAsked: (reason, attempt, retries) => events.repairAsked(reason, attempt, retries)
  }
}
