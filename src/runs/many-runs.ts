import { aggregateOutcome, reportOf, type RunBrief, type RunReport } from '../model.js'
import type { LogMirror } from '../report/log-mirror.js'
import { Reporters, type Redact } from '../report/reporters.js'
import { namedConsole, runsStateLine } from '../report/runs-report.js'
import { totalUsage } from '../report/usage.js'
import { UsageCount } from '../report/usage-count.js'
import type { Console } from '../runner/runner.js'
import { runFanOut, type FanOutDeps } from './fan-out.js'

/**
 * The `runs` input, as the step does it: every item run on one budget (runFanOut), each with
 * reporters of its own (its console lines named, its log mirror and file, its usage counted), then
 * one report of them all: the most severe outcome, the usage totalled.
 */

/** A fan-out keeps fewer entries of each run for its timeline: a hundred runs share one summary. */
export const ITEM_KEPT = { first: 25, last: 25 }

export interface ManyRunsDeps extends Omit<FanOutDeps, 'states'> {
  console: Console
  /** Each run's entries kept for the summary's timeline (mirror-to-summary). */
  keepEntries: boolean
  /** An item's console mirror and log file, keeping `ITEM_KEPT` of its entries. */
  mirror: (console: Console) => LogMirror
  redact: Redact
  /** Resolves a while after the job is cancelled: the items' reporters' last writes are cut short then. */
  afterCancelled: () => Promise<void>
}

export async function runMany(
  items: Array<{ name: string; brief: RunBrief }>,
  deps: ManyRunsDeps
): Promise<RunReport> {
  const { console, clock, redact } = deps
  const startedAt = clock.now()
  const perItem = items.map(({ name, brief }) => {
    const named = namedConsole(console, name)
    const mirror = deps.mirror(named)
    const usage = new UsageCount()
    const events = new Reporters([mirror, usage], redact, deps.afterCancelled)
    const notice = (message: string): void => named.notice(redact(message))
    return { name, brief, mirror, usage, events, notice }
  })
  const reports = await runFanOut(perItem, {
    ...deps,
    states: (states, elapsedMs) => console.info(redact(runsStateLine(states, elapsedMs)))
  })
  const runs = await Promise.all(
    reports.map(async (item, i) => {
      const { mirror, usage, events } = perItem[i] as (typeof perItem)[number]
      const report = item.report && (await events.finish(usage.counted(item.report)))
      const entries = deps.keepEntries
        ? { entries: mirror.entries, entriesLeftOut: mirror.entriesLeftOut }
        : {}
      return { ...item, ...(report ? { report } : {}), ...entries }
    })
  )
  const orgId = runs.map(run => run.report?.orgId).find(id => id !== undefined)
  const usages = runs.flatMap(run => (run.report?.usage ? [run.report.usage] : []))
  const fields = {
    outcome: aggregateOutcome(runs),
    runs,
    ...(orgId !== undefined ? { orgId } : {}),
    ...(usages.length > 0 ? { usage: totalUsage(usages) } : {})
  }
  return reportOf(fields, startedAt, clock.now())
}
