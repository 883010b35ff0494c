import type { AgentRun, LogEntry, LogPage } from '../api/types.js'
import type { RunStop } from '../model.js'
import type { StopTrigger } from '../settings/settings.js'
import { LOG_PAGE_SIZE } from './log-reader.js'
import { classifyStatus, isKnownStatus } from './status.js'

/**
 * The watcher's state and the pure advance from (state, what was read) to the next state, what to say
 * and what to do next; the resume guard owns whether an ending is the resumed run's own.
 */

/**
 * "Restarted": what the run shows is its own doing since this step. Always so for a new run; for a
 * resumed one, once it is seen working, writing new entries, showing a new result or another kind
 * of ending. Until then its earlier ending may linger, and is not taken for the follow-up's.
 */
export interface ResumeGuard {
  restarted: boolean
  /** When the resume was answered (a resume not yet seen restarted). */
  resumedAt?: number
  /** The result before the resume (read from the run), when known: a new one proves a restart. */
  earlierResult?: string | null
}

/** What was seen in one read, as far as a restart goes. */
export interface Seen {
  /** The status before this read, and the one it showed (undefined: it showed none). */
  before: string | null
  status?: string | null
  entries?: number
  /** The run's result: compared from the run's endpoint only (the ALPHA log endpoint's may drift). */
  result?: string | null
}

/** The guard after a read: restarted when the read proves it. */
export function sees(guard: ResumeGuard, seen: Seen): ResumeGuard {
  return !guard.restarted && provesRestart(guard, seen) ? { ...guard, restarted: true } : guard
}

function provesRestart(guard: ResumeGuard, seen: Seen): boolean {
  if ((seen.entries ?? 0) > 0) return true
  if (guard.earlierResult !== undefined && !!seen.result && seen.result !== guard.earlierResult) return true
  const { before, status: after } = seen
  if (after === undefined || after === null) return false
  if (!isEnded(after)) return true
  // One kind of ending giving way to another (COMPLETE to FAILED) is a restart seen from its end.
  const from = classifyStatus(before)
  return before !== null && from !== 'working' && from !== classifyStatus(after)
}

/** A watch's brief, drawn from the run's when it started (followRun): the run, its deadline and pace. */
export interface WatchBrief {
  runId: number
  /** Epoch ms at which waiting stops (timeout-minutes after the step started). */
  deadline: number
  pollIntervalMs: number
  /** Entries already in the log that this step does not mirror (a resumed run's earlier work). */
  earlierEntries: number
  /** The status the create or resume answer carried. */
  initialStatus: string | null
  guard: ResumeGuard
  /**
   * When the service's last calls must end once the watch is cut short (Deadlines.lastCallsBy): a
   * run found late keeps its stop and last read inside the cancellation's budget.
   */
  lastCallsBy?: () => number
  /** stop-run-on, and whether the step waits: when the watch is cut short, the run may be stopped (stop.ts). */
  stop?: { on: ReadonlySet<StopTrigger>; wait: boolean; webUrl?: string | null }
}

export type WatchEnding = 'ended' | 'timeout' | 'cancelled'

export interface WatchResult {
  ending: WatchEnding
  /** The last status seen. */
  status: string | null
  /** The full run, read once at the end (undefined when that read failed). */
  run?: AgentRun
  /** Entries mirrored by this step. */
  entriesSeen: number
  /** False when a resumed run never restarted: its status and result are its earlier ending's. */
  restarted: boolean
  /** The stop sent when the watch was cut short (stop-run-on), if one was. */
  stop?: RunStop
}

/** How long a resumed run may keep showing its earlier ending before we report what we see. */
export function resumeGraceMs(pollIntervalMs: number): number {
  return Math.min(120_000, Math.max(30_000, 6 * pollIntervalMs))
}

/** A heartbeat after a minute without progress, and each minute after it. */
export const HEARTBEAT_MS = 60_000

// ---------------------------------------------------------------------------------------------
// The state of a watch, and the pure advance from (state, what was read) to the next state and move

/** What the last read was, as far as the next decision cares. */
export type LastRead =
  /** A log page: `more` when a full page or a total beyond it says more is waiting right now. */
  | { kind: 'page'; more: boolean; hadStatus: boolean }
  /** The run itself. */
  | { kind: 'run' }

export interface WatchState {
  /** When the watch started: the heartbeat counts from it. */
  startedAt: number
  status: string | null
  /** Index of the next log entry to read. */
  cursor: number
  guard: ResumeGuard
  /**
   * How far the run's own end is known: not yet; from a read of the run (the log may still hold
   * entries written before it); or with the log read after it (all there is to read).
   */
  endSeen: 'no' | 'by-run' | 'with-log'
  lastRead: LastRead
  /** The run as the last read returned it, when the last read was of the run: it may stand for the final one. */
  lastRun?: AgentRun
  /** When the last look started (the watch's start before the first). */
  lookAt: number
  /** Looks done: the gentle start's pace (pacing.ts) follows them. */
  looksDone: number
  /** When the latest FINAL_ANSWER entry was read: the end is seconds away. */
  finalAnswerAt?: number
  lastProgressAt: number
  lastHeartbeatAt: number
  unknownStatuses: ReadonlySet<string>
  /** The budget's pace was said once. */
  paceNoticed: boolean
}

export function initialState(brief: WatchBrief, now: number): WatchState {
  return {
    startedAt: now,
    status: brief.initialStatus,
    cursor: brief.earlierEntries,
    guard: brief.guard,
    endSeen: 'no',
    lastRead: { kind: 'run' },
    lookAt: now,
    looksDone: 0,
    lastProgressAt: now,
    lastHeartbeatAt: now,
    unknownStatuses: new Set(),
    paceNoticed: false
  }
}

/** One read's answer: a log page (undefined when the log is unavailable), or the run. */
export type Read = { kind: 'page'; page: LogPage | undefined } | { kind: 'run'; run: AgentRun }

/** What a read makes the watcher say to the reporters. */
export type Said =
  | { kind: 'entries'; entries: LogEntry[]; firstIndex: number }
  | { kind: 'status'; from: string | null; to: string | null }
  | { kind: 'warning'; message: string }

/** What the watcher does after a read. */
export type WatchMove =
  /** Read the next log page now: a backlog, or what the run wrote before its end. */
  | { kind: 'read-page' }
  /** Read the run itself now: the page said nothing of its status, or the grace period is over. */
  | { kind: 'read-run' }
  /** Wait, then look again. */
  | { kind: 'wait' }
  /** The watch ends: the run ended (or, resumed, never restarted). */
  | { kind: 'end' }

export interface AdvanceContext {
  now: number
  /** When a resumed run still showing its earlier ending is given up on. */
  graceEndsAt: number
  logsAvailable: boolean
}

export const isEnded = (status: string | null): boolean => classifyStatus(status) !== 'working'

/** The pure advance: the state after `read`, what to say, and the next move. */
export function advance(
  state: WatchState,
  read: Read,
  context: AdvanceContext
): { state: WatchState; said: Said[]; move: WatchMove } {
  const said: Said[] = []
  const next =
    read.kind === 'page'
      ? afterPage(state, read.page, context, said)
      : afterRun(state, read.run, context, said)
  return {
    state: next,
    said,
    move: nextMove(next, context.now >= context.graceEndsAt, context.logsAvailable)
  }
}

function afterPage(
  state: WatchState,
  page: LogPage | undefined,
  context: AdvanceContext,
  said: Said[]
): WatchState {
  // The log is unavailable (404 on both paths): a page that says nothing sends us to the run.
  if (!page)
    return { ...state, lastRun: undefined, lastRead: { kind: 'page', more: false, hadStatus: false } }
  let next: WatchState = { ...state, lastRun: undefined }
  if (page.logs.length > 0) {
    said.push({ kind: 'entries', entries: page.logs, firstIndex: state.cursor })
    const finalAnswer = page.logs.some(entry => entry.message_type?.toUpperCase() === 'FINAL_ANSWER')
    next = {
      ...next,
      cursor: state.cursor + page.logs.length,
      lastProgressAt: context.now,
      guard: sees(state.guard, { before: state.status, entries: page.logs.length }),
      ...(finalAnswer ? { finalAnswerAt: context.now } : {})
    }
  }
  if (page.status !== null) next = afterStatus(next, page.status, context.now, said)
  // The page showed the end itself, or was read after the run did: it holds what came before the end.
  if (isEnded(next.status) && next.guard.restarted && (page.status !== null || next.endSeen === 'by-run'))
    next.endSeen = 'with-log'
  next.lastRead = {
    kind: 'page',
    // A full page, or a total beyond what we have, means more is waiting right now.
    more:
      page.logs.length >= LOG_PAGE_SIZE ||
      page.full === true ||
      (page.logs.length > 0 && page.totalLogs !== null && page.totalLogs > next.cursor),
    hadStatus: page.status !== null
  }
  return next
}

function afterRun(state: WatchState, run: AgentRun, context: AdvanceContext, said: Said[]): WatchState {
  const next = afterStatus(state, run.status ?? null, context.now, said)
  next.guard = sees(next.guard, { before: next.status, result: run.result })
  next.lastRun = run
  // Without a log, the run read is all there is to read after the end.
  if (isEnded(next.status) && next.guard.restarted && next.endSeen === 'no')
    next.endSeen = context.logsAvailable ? 'by-run' : 'with-log'
  next.lastRead = { kind: 'run' }
  return next
}

/** A copy of the state after a status was seen on a page or the run. */
function afterStatus(state: WatchState, status: string | null, now: number, said: Said[]): WatchState {
  const next: WatchState = { ...state, guard: sees(state.guard, { before: state.status, status }) }
  // Working again (a page and the run disagreeing for a moment): the end is not known after all.
  if (!isEnded(status)) next.endSeen = 'no'
  if (status !== state.status) {
    said.push({ kind: 'status', from: state.status, to: status })
    next.status = status
    next.lastProgressAt = now
  }
  if (status !== null && !isKnownStatus(status) && !state.unknownStatuses.has(status)) {
    next.unknownStatuses = new Set([...state.unknownStatuses, status])
    said.push({ kind: 'warning', message: `Unknown run status "${status}": treating it as still working.` })
  }
  return next
}

/**
 * What to do after a read. In order: a page without a status sends us to the run; an end learnt
 * from the run (not from a page) sends us to the log once more for what was written before it; a
 * resumed run that still shows its earlier ending past the grace period is looked at once more,
 * then given up on; an end of the run's own ends the watch once the backlog is read; otherwise a
 * backlog is read at once, and a quiet log waits for the next look.
 */
export function nextMove(state: WatchState, pastGrace: boolean, logsAvailable: boolean): WatchMove {
  const read = state.lastRead
  const more = read.kind === 'page' && read.more
  if (read.kind === 'page' && !read.hadStatus && !more && state.endSeen !== 'with-log')
    return { kind: 'read-run' }
  if (!isEnded(state.status)) return more ? { kind: 'read-page' } : { kind: 'wait' }
  if (!state.guard.restarted) {
    if (!pastGrace) return more ? { kind: 'read-page' } : { kind: 'wait' }
    // Past the grace period, one last look at the run itself before calling it stale.
    return read.kind === 'page' ? { kind: 'read-run' } : { kind: 'end' }
  }
  if (more || (logsAvailable && state.endSeen !== 'with-log')) return { kind: 'read-page' }
  return { kind: 'end' }
}

/** A heartbeat is due after a minute without progress, and a minute after the last one. */
export function heartbeatDue(state: WatchState, now: number): boolean {
  return now - state.lastProgressAt >= HEARTBEAT_MS && now - state.lastHeartbeatAt >= HEARTBEAT_MS
}

/**
 * How the watch ended, from its last state and the run read at the end. The log page and the run
 * may disagree for a moment: an ended watch keeps the ending it saw.
 */
export function endWatch(
  state: WatchState,
  ending: WatchEnding,
  run: AgentRun | undefined,
  earlierEntries: number
): WatchResult {
  const finalRun =
    run && ending === 'ended' && !isEnded(run.status ?? null) ? { ...run, status: state.status } : run
  const status = run && ending !== 'ended' ? (run.status ?? state.status) : state.status
  const guard = finalRun ? sees(state.guard, { before: status, result: finalRun.result }) : state.guard
  return {
    ending,
    status,
    run: finalRun,
    entriesSeen: state.cursor - earlierEntries,
    restarted: guard.restarted
  }
}
