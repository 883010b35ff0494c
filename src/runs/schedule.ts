import { lookIntervalMs } from '../agent-run/pacing.js'
import { least } from '../numbers.js'

/**
 * How many runs of a fan-out follow one budget: pure, so the policy is unit-tested without a clock
 * (test/unit/agent-run/schedule.ts measures it against the rate budget, beside per-run looks).
 *
 * - Starting: at most `max-parallel` runs work at once; the next starts when one ends. Creates go
 *   through the client's rate budget (10 a minute), which holds a create back rather than draw a 429.
 * - Seeing ends: one read of the organization's runs (`GET …/agent/runs`, newest first, a standard
 *   endpoint: 60 per 30 s) shows every run's status at once, so it is read once per poll-interval
 *   whatever the number of runs, and each run's end is seen within one poll-interval. Looking at each
 *   run on its own would cost one request per run per poll-interval: twenty runs at 5 s want 240 a
 *   minute against the 60 log reads (or 120 standard requests) the token has, so each run could be
 *   looked at only every 20 s (10 s), four (two) poll-intervals.
 * - The live log: one log page at a time, for the run whose log was read longest ago, no sooner
 *   than the log budget's pace allows and never twice in a poll-interval for the same run; a run
 *   whose end the list showed has its log read to the end first and at once, so its report is
 *   complete and the step ends soon after the last run.
 */

/** A started run as the list watcher knows it. */
export interface FollowedRun {
  id: number
  /** working; its end seen by the list (its log still to finish); or done. */
  phase: 'working' | 'ended' | 'done'
  /** When its log was last read; undefined before the first read. */
  logReadAt?: number
  /** The last page was full: more entries wait now. */
  logBacklog: boolean
  /** When a FINAL_ANSWER entry of this run was read: its end is seconds away. */
  finalAnswerAt?: number
  /** False once its log endpoint answered on neither path: its end is taken from the list alone. */
  logsAvailable?: boolean
}

export interface FollowView {
  runs: readonly FollowedRun[]
  now: number
  pollIntervalMs: number
  /** When the last read of the organization's runs started; undefined before the first. */
  listAt?: number
  /** When the last log page was read, of any run. */
  logAt?: number
  /** The log budget's pace (milliseconds between two log reads), from the rate budget. */
  logGapMs: number
  /** Whether the log is read while runs work (a console mirror); else only once a run has ended. */
  liveLog: boolean
}

export type FollowMove =
  /** Read the organization's runs (page after page until every working run was seen). */
  | { kind: 'list' }
  /** Read one page of this run's log; `end` when the run has ended (the read may use the reserve). */
  | { kind: 'log'; runId: number; end: boolean }
  /** Nothing is due: wait this long (or until a run starts). */
  | { kind: 'wait'; ms: number }
  /** Every started run is done. */
  | { kind: 'done' }

/** How many of the queued runs may start now. */
export function startable(working: number, queued: number, maxParallel: number): number {
  return Math.max(0, Math.min(queued, maxParallel - working))
}

/** The list's next read: every poll-interval, sooner for 30 s after a run's FINAL_ANSWER (pacing's rule). */
export function listIntervalMs(view: FollowView): number {
  const answers = view.runs
    .filter(run => run.phase === 'working' && run.finalAnswerAt !== undefined)
    .map(run => view.now - (run.finalAnswerAt as number))
  const since = answers.length > 0 ? least(answers) : undefined
  return lookIntervalMs(view.pollIntervalMs, since)
}

/**
 * The next thing to do. In order: a run whose end the list showed has its log finished (so a
 * report is never held back by the live log of others); the list when its interval is up; a log
 * page of the working run read longest ago when the log budget's pace allows; else wait for the
 * first of these to come due.
 */
export function nextFollowMove(view: FollowView): FollowMove {
  // Without a log to finish, a run whose end the list showed is done.
  const open = view.runs.filter(
    run => run.phase === 'working' || (run.phase === 'ended' && run.logsAvailable !== false)
  )
  if (open.length === 0) return { kind: 'done' }
  const logGap = view.logAt === undefined ? 0 : Math.max(0, view.logAt + view.logGapMs - view.now)
  // The end of a run is not held back by the pace that spreads the live log: only the budget's
  // hard rule (which the client keeps, with the reserve kept for ends) comes before it.
  const ended = open.find(run => run.phase === 'ended')
  if (ended) return { kind: 'log', runId: ended.id, end: true }

  const working = open.filter(run => run.phase === 'working')
  const listDue =
    working.length === 0
      ? Infinity
      : view.listAt === undefined
        ? 0
        : Math.max(0, view.listAt + listIntervalMs(view) - view.now)
  if (listDue === 0) return { kind: 'list' }

  const readable = working.filter(run => run.logsAvailable !== false)
  const live = view.liveLog ? stalestLog(readable, view) : undefined
  if (live && Math.max(live.dueIn, logGap) === 0) return { kind: 'log', runId: live.run.id, end: false }
  const logDue = live ? Math.max(live.dueIn, logGap) : Infinity
  return { kind: 'wait', ms: Math.min(listDue, logDue) }
}

/** The working run whose log waits longest, and how soon it is due (a backlog at once, else a poll-interval on). */
function stalestLog(
  working: readonly FollowedRun[],
  view: FollowView
): { run: FollowedRun; dueIn: number } | undefined {
  let best: { run: FollowedRun; dueIn: number } | undefined
  for (const run of working) {
    const dueIn =
      run.logReadAt === undefined || run.logBacklog
        ? 0
        : Math.max(0, run.logReadAt + view.pollIntervalMs - view.now)
    const older = best && (run.logReadAt ?? -Infinity) < (best.run.logReadAt ?? -Infinity)
    if (!best || dueIn < best.dueIn || (dueIn === best.dueIn && older)) best = { run, dueIn }
  }
  return best
}

/** The list's answers are newest first: pages past this many are not read; those runs are read one by one. */
export const MAX_LIST_PAGES = 5

/**
 * Whether the list needs another page: some working run was not on the pages read yet, this page was
 * full, and its last (oldest) run is still newer than that run (ids grow with creation).
 */
export function needsAnotherPage(
  pageIds: readonly number[],
  full: boolean,
  unseen: ReadonlySet<number>,
  pagesRead: number
): boolean {
  if (unseen.size === 0 || !full || pagesRead >= MAX_LIST_PAGES) return false
  const oldestOnPage = least(pageIds)
  return [...unseen].some(id => id < oldestOnPage)
}
