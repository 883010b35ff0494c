import type { AgentRunApi, CallOptions } from '../api/client.js'
import { CancelledError, DeadlineError } from '../api/errors.js'
import type { Pace } from '../api/rate-budget.js'
import type { AgentRun, LogEntry, LogPage } from '../api/types.js'
import type { Clock } from '../clock.js'
import { LOG_PAGE_LIMIT, type LogReader } from './log-reader.js'
import { nextLook, paceNotice } from './pacing.js'
import { classifyStatus, isKnownStatus } from './status.js'

export interface WatchPlan {
  runId: number
  /** Epoch ms at which waiting stops (timeout-minutes after the step started). */
  deadline: number
  pollIntervalMs: number
  /** Entries already in the log that this step does not mirror (a resumed run's earlier work). */
  skipEntries: number
  /** The status the create or resume answer carried. */
  initialStatus: string | null
  /**
   * Set when the run was just resumed and not yet seen restarted: its earlier terminal status may
   * linger for a while, and only a sign of a restart makes an ending its own.
   */
  resumedAt?: number
  resumeGraceMs?: number
  /** A resumed run's result before the resume (read from the run), when known: a new one proves a restart. */
  earlierResult?: string | null
  heartbeatMs?: number
}

/** What the watcher reports as it goes; the console mirror and the log file listen. */
export interface WatchEvents {
  newEntries(entries: LogEntry[], firstIndex: number): void
  statusChanged(from: string | null, to: string | null): void
  heartbeat(elapsedMs: number, status: string | null, entriesSeen: number): void
  notice(message: string): void
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
  /**
   * False when a resumed run never showed a sign of restarting (a working status, new entries, a
   * new result or another ending): its status and result are then still those of its earlier ending.
   */
  restarted: boolean
}

export const DEFAULT_HEARTBEAT_MS = 60_000
/** How long a resumed run may keep showing its earlier ending before we report what we see. */
export function resumeGraceMs(pollIntervalMs: number): number {
  return Math.min(120_000, Math.max(30_000, 6 * pollIntervalMs))
}

/** Bounds the last read after a timeout or cancellation, so the step still ends within seconds. */
const FINAL_READ_MS = 3_000

// ---------------------------------------------------------------------------------------------
// The state of a watch, and the pure decisions taken on it

/** What the last read was, as far as the next decision cares. */
export type LastRead =
  /** A log page: `more` when a full page or a total beyond it says more is waiting right now. */
  | { kind: 'page'; more: boolean; hadStatus: boolean }
  /** The run itself. */
  | { kind: 'run' }

export interface WatchState {
  status: string | null
  /** Index of the next log entry to read. */
  cursor: number
  /**
   * The one name for "this status is the run's own": always true for a new run; for a resumed one,
   * true once it is seen working, writes new entries, shows a new result or another ending.
   */
  restarted: boolean
  /**
   * How far the run's own end is known: not yet; from a read of the run (the log may still hold
   * entries written before it); or with the log read after it (all there is to read).
   */
  endSeen: 'no' | 'by-run' | 'with-log'
  lastRead: LastRead
  /** The run as the last read returned it, when the last read was of the run: it may stand for the final one. */
  lastRun?: AgentRun
  /** When the last look (a read after a wait, or the first) started. */
  lookAt: number
  finalAnswerAt?: number
  lastProgressAt: number
  lastHeartbeatAt: number
  unknownStatuses: Set<string>
  /** The budget's pace was said once. */
  paceNoticed: boolean
}

export type Step =
  /** Read the next log page now: a backlog, or what the run wrote before its end. */
  | { kind: 'read-page' }
  /** Read the run itself now: the page said nothing of its status, or the grace period is over. */
  | { kind: 'read-run' }
  /** Wait, then look again. */
  | { kind: 'wait' }
  /** The run ended (or, resumed, never restarted: `restarted` false in the state). */
  | { kind: 'stop' }

export const isEnded = (status: string | null): boolean => classifyStatus(status) !== 'working'

/** A status seen on a page or the run: whether it proves a resumed run restarted. */
export function provesRestart(before: string | null, after: string | null): boolean {
  if (after === null) return false
  if (!isEnded(after)) return true
  // One kind of ending giving way to another (COMPLETE to FAILED) is a restart seen from its end.
  const from = classifyStatus(before)
  return before !== null && from !== 'working' && from !== classifyStatus(after)
}

/**
 * What to do after a read. In order: a page without a status sends us to the run; an end learnt
 * from the run (not from a page) sends us to the log once more for what was written before it; a
 * resumed run that still shows its earlier ending past the grace period is looked at once more,
 * then given up on; an end of the run's own stops the watch once the backlog is read; otherwise a
 * backlog is read at once, and a quiet log waits for the next look.
 */
export function decide(state: WatchState, pastGrace: boolean, logsAvailable: boolean): Step {
  const read = state.lastRead
  const more = read.kind === 'page' && read.more
  if (read.kind === 'page' && !read.hadStatus && !more && state.endSeen !== 'with-log')
    return { kind: 'read-run' }
  if (!isEnded(state.status)) return more ? { kind: 'read-page' } : { kind: 'wait' }
  if (!state.restarted) {
    if (!pastGrace) return more ? { kind: 'read-page' } : { kind: 'wait' }
    // Past the grace period, one last look at the run itself before calling it stale.
    return read.kind === 'page' ? { kind: 'read-run' } : { kind: 'stop' }
  }
  if (more || (logsAvailable && state.endSeen !== 'with-log')) return { kind: 'read-page' }
  return { kind: 'stop' }
}

/** A heartbeat is due after a minute without progress, and a minute after the last one. */
export function heartbeatDue(state: WatchState, now: number, heartbeatMs: number): boolean {
  return now - state.lastProgressAt >= heartbeatMs && now - state.lastHeartbeatAt >= heartbeatMs
}

// ---------------------------------------------------------------------------------------------
// The loop: read, observe, decide

export class RunWatcher {
  constructor(
    private readonly api: AgentRunApi,
    private readonly logs: LogReader,
    private readonly clock: Clock,
    private readonly events: WatchEvents,
    private readonly signal?: AbortSignal
  ) {}

  async watch(plan: WatchPlan): Promise<WatchResult> {
    const started = this.clock.now()
    const heartbeatMs = plan.heartbeatMs ?? DEFAULT_HEARTBEAT_MS
    const grace = plan.resumeGraceMs ?? resumeGraceMs(plan.pollIntervalMs)
    const state: WatchState = {
      status: plan.initialStatus,
      cursor: plan.skipEntries,
      restarted: plan.resumedAt === undefined,
      endSeen: 'no',
      lastRead: { kind: 'run' },
      lookAt: started,
      lastProgressAt: started,
      lastHeartbeatAt: started,
      unknownStatuses: new Set(),
      paceNoticed: false
    }
    const pastGrace = (): boolean => this.clock.now() - (plan.resumedAt ?? started) >= grace

    let ending: WatchEnding = 'ended'
    try {
      const options: CallOptions = { deadline: plan.deadline }
      let step: Step = { kind: this.logs.available ? 'read-page' : 'read-run' }
      for (;;) {
        // Reads once the end is known see the end: they may use the budget's reserve.
        const readOptions = { ...options, end: isEnded(state.status) && state.restarted }
        if (step.kind === 'read-page') await this.readPage(state, readOptions)
        else await this.readRun(state, plan, readOptions)
        step = decide(state, pastGrace(), this.logs.available)
        if (step.kind === 'stop') break
        if (step.kind === 'wait') {
          await this.wait(state, plan, heartbeatMs, started)
          step = { kind: this.logs.available ? 'read-page' : 'read-run' }
        }
      }
    } catch (error) {
      if (error instanceof DeadlineError) ending = 'timeout'
      else if (error instanceof CancelledError) ending = 'cancelled'
      else throw error
    }

    const run = await this.finalRead(plan, ending, state.lastRun)
    let status = state.status
    // The log page and the run may disagree for a moment: keep the ending we saw.
    if (run && ending === 'ended' && !isEnded(run.status ?? null)) run.status = status
    if (run && ending !== 'ended') status = run.status ?? status
    const restarted = state.restarted || (run !== undefined && this.newResult(plan, run))
    return { ending, status, run, entriesSeen: state.cursor - plan.skipEntries, restarted }
  }

  private async readPage(state: WatchState, options: CallOptions): Promise<void> {
    const page = await this.logs.read(state.cursor, LOG_PAGE_LIMIT, options)
    state.lastRun = undefined
    // The log is unavailable (404 on both paths): a page that says nothing sends us to the run.
    if (!page) {
      state.lastRead = { kind: 'page', more: false, hadStatus: false }
      return
    }
    this.observePage(state, page)
    if (page.status !== null) this.observeStatus(state, page.status)
    // The page showed the end itself, or was read after the run did: it holds what came before the end.
    if (isEnded(state.status) && state.restarted && (page.status !== null || state.endSeen === 'by-run'))
      state.endSeen = 'with-log'
    state.lastRead = {
      kind: 'page',
      // A full page, or a total beyond what we have, means more is waiting right now.
      more:
        page.logs.length >= LOG_PAGE_LIMIT ||
        page.full === true ||
        (page.logs.length > 0 && page.totalLogs !== null && page.totalLogs > state.cursor),
      hadStatus: page.status !== null
    }
  }

  private async readRun(state: WatchState, plan: WatchPlan, options: CallOptions): Promise<void> {
    const run = await this.api.getRun(plan.runId, options)
    this.observeStatus(state, run.status ?? null)
    // Results compared come from one endpoint, the run's (the ALPHA log endpoint's may drift).
    if (this.newResult(plan, run)) state.restarted = true
    state.lastRun = run
    // Without a log, the run read is all there is to read after the end.
    if (isEnded(state.status) && state.restarted && state.endSeen === 'no')
      state.endSeen = this.logs.available ? 'by-run' : 'with-log'
    state.lastRead = { kind: 'run' }
  }

  private observePage(state: WatchState, page: LogPage): void {
    if (page.logs.length === 0) return
    this.events.newEntries(page.logs, state.cursor)
    state.cursor += page.logs.length
    state.lastProgressAt = this.clock.now()
    if (page.logs.some(entry => entry.message_type?.toUpperCase() === 'FINAL_ANSWER'))
      state.finalAnswerAt = this.clock.now()
    state.restarted = true
  }

  private observeStatus(state: WatchState, next: string | null): void {
    if (provesRestart(state.status, next)) state.restarted = true
    // Working again (a page and the run disagreeing for a moment): the end is not known after all.
    if (!isEnded(next)) state.endSeen = 'no'
    if (next !== state.status) {
      this.events.statusChanged(state.status, next)
      state.status = next
      state.lastProgressAt = this.clock.now()
    }
    if (next !== null && !isKnownStatus(next) && !state.unknownStatuses.has(next)) {
      state.unknownStatuses.add(next)
      this.events.notice(`Unknown run status "${next}": treating it as still working.`)
    }
  }

  /** Sleeps until the next look (heartbeat and the budget's notice first), within the deadline. */
  private async wait(
    state: WatchState,
    plan: WatchPlan,
    heartbeatMs: number,
    started: number
  ): Promise<void> {
    const now = this.clock.now()
    if (heartbeatDue(state, now, heartbeatMs)) {
      this.events.heartbeat(now - started, state.status, state.cursor - plan.skipEntries)
      state.lastHeartbeatAt = now
    }
    const pace: Pace | undefined = this.api.lookPace?.(this.logs.available ? 'logs' : 'run')
    const next = nextLook(
      {
        baseMs: plan.pollIntervalMs,
        sinceLookMs: now - state.lookAt,
        sinceFinalAnswerMs: state.finalAnswerAt === undefined ? undefined : now - state.finalAnswerAt
      },
      pace
    )
    if (next.lateBy && !state.paceNoticed) {
      state.paceNoticed = true
      this.events.notice(paceNotice(plan.pollIntervalMs, next.lateBy))
    }
    const left = plan.deadline - now
    if (left <= 0) throw new DeadlineError()
    await this.clock.sleep(Math.min(next.waitMs, left), this.signal)
    state.lookAt = this.clock.now()
  }

  private newResult(plan: WatchPlan, run: AgentRun): boolean {
    return plan.earlierResult !== undefined && !!run.result && run.result !== plan.earlierResult
  }

  private async finalRead(
    plan: WatchPlan,
    ending: WatchEnding,
    lastRun?: AgentRun
  ): Promise<AgentRun | undefined> {
    if (ending === 'ended' && lastRun && isEnded(lastRun.status ?? null)) return lastRun
    try {
      if (ending === 'ended')
        return await this.api.getRun(plan.runId, { deadline: plan.deadline + FINAL_READ_MS, end: true })
      // After a timeout or a cancellation: one quick attempt, for the outputs' sake.
      return await this.api.getRun(plan.runId, {
        deadline: this.clock.now() + FINAL_READ_MS,
        maxAttempts: 1,
        lastRead: true,
        end: true
      })
    } catch (error) {
      if (ending === 'ended' && !(error instanceof DeadlineError) && !(error instanceof CancelledError))
        throw error
      return undefined
    }
  }
}
