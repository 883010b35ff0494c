import type { AgentRun } from '../api/types.js'
import type { Clock } from '../clock.js'
import type { Outcome, ReportFields, RunEvents, RunBrief, RunReport } from '../model.js'
import { errorBeforeRun, type StartedRun } from './start.js'
import { classifyStatus } from './status.js'
import type { WatchResult } from './watch-state.js'
import { RunWatcher, type Watch, type WatchEvents } from './watcher.js'

export interface FollowDeps {
  clock: Clock
  signal?: AbortSignal
  /** Epoch ms at which the step stops waiting (timeout-minutes after it started). */
  deadline: number
  /** Every reporter, as one listener. */
  events: RunEvents
  /** How the run is followed: alone (the default, RunWatcher), or among many (the fan-out's). */
  watch?: Watch
  /** When the service's last calls must end once the step is cut short (Deadlines.lastCallsBy). */
  lastCallsBy?: () => number
}

/** Follows a started run to its end (or, with `wait: false`, only says it started): its report. */
export async function followRun(started: StartedRun, brief: RunBrief, deps: FollowDeps): Promise<RunReport> {
  const { run, base } = started
  const report = (fields: ReportFields): RunReport => ({
    ...base,
    status: fields.run?.status ?? '',
    endedAt: deps.clock.now(),
    entriesSeen: 0,
    ...fields
  })
  // What the step has shown so far: a failure after the run started still reports it.
  const seen = { status: run.status ?? null, entries: 0 }
  try {
    deps.events.started(run, base.mode, base.carriedFrom, base.fixAttempt)
    // A resume's answer may still carry the earlier ending: not the follow-up's.
    if (!brief.wait)
      return report({ outcome: 'started', run: base.mode === 'resume' ? withoutEnding(run) : run })
    const watch = deps.watch ?? new RunWatcher(deps.clock, deps.signal).watch
    const watched = await watch(
      {
        runId: run.id,
        deadline: deps.deadline,
        pollIntervalMs: brief.pollIntervalMs,
        earlierEntries: started.earlierEntries,
        initialStatus: run.status ?? null,
        guard: started.guard,
        ...(deps.lastCallsBy ? { lastCallsBy: deps.lastCallsBy } : {}),
        ...(brief.stopRunOn ? { stop: { on: brief.stopRunOn, wait: brief.wait, webUrl: run.web_url } } : {})
      },
      started,
      noting(deps.events, seen)
    )
    return report(watchedFields(run, watched))
  } catch (error) {
    return report({
      ...errorAfterStart(error),
      run: { ...run, status: seen.status },
      status: seen.status ?? '',
      entriesSeen: seen.entries
    })
  }
}

/** What a watch found, as a report's fields: how the run ended, or that a resumed one never restarted. */
export function watchedFields(run: AgentRun, watched: WatchResult): ReportFields {
  const fields = watched.restarted ? howItEnded(run, watched) : notRestarted(run, watched)
  return watched.stop ? { ...fields, stop: watched.stop } : fields
}

function howItEnded(run: AgentRun, watched: WatchResult): ReportFields {
  const status = watched.status ?? ''
  const finalRun = watched.run ?? { ...run, status: watched.status }
  const statusClass = classifyStatus(status)
  // A run seen ended in the last read counts as ended, whatever stopped the wait; unless the step
  // stopped it (stop-run-on): that ending is the step's.
  const outcome: Outcome =
    watched.ending === 'cancelled'
      ? 'cancelled'
      : statusClass === 'working' || watched.stop
        ? 'timeout'
        : statusClass
  return { outcome, run: finalRun, status, entriesSeen: watched.entriesSeen }
}

/**
 * A resumed run that never restarted still carries its earlier ending: that is reported as what it
 * is, never as the follow-up's result.
 */
function notRestarted(run: AgentRun, watched: WatchResult): ReportFields {
  const earlier = withoutEnding(watched.run ?? run)
  const status = watched.status ?? ''
  const common = { run: earlier, status, entriesSeen: watched.entriesSeen }
  if (watched.ending !== 'ended') return { outcome: watched.ending, ...common }
  return {
    outcome: 'error',
    ...common,
    error: `Agent run ${run.id} did not restart after the resume: it still shows its earlier status ${(status || 'none').slice(0, 100)}, with no new log entries or result. Its earlier result is not reported as the follow-up's; look at the run${run.web_url ? ` (${run.web_url.slice(0, 500)})` : ''} or resume it again.`
  }
}

/** The run without what its earlier ending left: result, summary, pull requests. */
function withoutEnding(run: AgentRun): AgentRun {
  return { ...run, result: null, summary: null, github_pull_requests: [] }
}

/** Passes the watcher's events on, noting the last status and how many entries were mirrored. */
function noting(events: RunEvents, seen: { status: string | null; entries: number }): WatchEvents {
  return {
    newEntries(entries, firstIndex) {
      seen.entries += entries.length
      events.newEntries(entries, firstIndex)
    },
    statusChanged(from, to) {
      seen.status = to
      events.statusChanged(from, to)
    },
    heartbeat: (elapsedMs, status, entriesSeen) => events.heartbeat(elapsedMs, status, entriesSeen),
    warning: message => events.warning(message),
    repairAsked: (reason, attempt, retries) => events.repairAsked(reason, attempt, retries)
  }
}

/** Once a run exists its outputs are owed whatever went wrong: even an unexpected error ends as a report. */
function errorAfterStart(error: unknown): Pick<RunReport, 'outcome' | 'error'> {
  try {
    const { outcome, error: message } = errorBeforeRun(error)
    return { outcome, error: message }
  } catch {
    // The message only: the summary and the tracking comment are public.
    const detail = error instanceof Error ? error.message : String(error)
    return { outcome: 'error', error: `Unexpected error while following the run: ${detail}` }
  }
}
