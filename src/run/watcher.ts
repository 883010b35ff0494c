import type { AgentRunApi, CallOptions } from '../api/client.js'
import { CancelledError, DeadlineError } from '../api/errors.js'
import type { AgentRun, LogEntry } from '../api/types.js'
import type { Clock } from '../runner/clock.js'
import { LOG_PAGE_LIMIT, type LogReader } from './log-reader.js'
import { nextPollDelay } from './pacing.js'
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
  /** Set when the run was just resumed: its earlier terminal status may linger for a while. */
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
   * False when a resumed run never showed a sign of restarting (a working status, new entries or a
   * new result): its status and result are then still those of its earlier ending.
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
    const unknownStatuses = new Set<string>()
    let status = plan.initialStatus
    let cursor = plan.skipEntries
    let lastRun: AgentRun | undefined
    let lastProgress = started
    let lastHeartbeat = started
    let quietPolls = 0
    let finalAnswerAt: number | undefined
    // A resumed run counts as fresh once it is seen working, writes new entries or has a new result.
    let fresh = plan.resumedAt === undefined
    // Results compared come from one endpoint, the run's (the ALPHA log endpoint's may drift).
    const newResult = (run: AgentRun): boolean =>
      plan.earlierResult !== undefined && !!run.result && run.result !== plan.earlierResult

    const observe = (next: string | null): void => {
      // One kind of ending giving way to another (COMPLETE to FAILED) is a restart seen from its end.
      const before = classifyStatus(status)
      const after = classifyStatus(next)
      if (status !== null && next !== null && before !== 'working' && after !== 'working' && before !== after)
        fresh = true
      if (next !== status) {
        this.events.statusChanged(status, next)
        status = next
        lastProgress = this.clock.now()
      }
      if (next !== null && !isKnownStatus(next) && !unknownStatuses.has(next)) {
        unknownStatuses.add(next)
        this.events.notice(`Unknown run status "${next}": treating it as still working.`)
      }
      if (next !== null && after === 'working') fresh = true
    }
    const readRun = async (options: CallOptions): Promise<void> => {
      lastRun = await this.api.getRun(plan.runId, options)
      observe(lastRun.status ?? null)
      if (newResult(lastRun)) fresh = true
    }

    let ending: WatchEnding = 'ended'
    try {
      const options = { deadline: plan.deadline }
      let collectNext = false
      for (;;) {
        let more = false
        let progressed = false
        const statusBefore = status
        // Only a run read in this very turn may stand for the final one.
        lastRun = undefined
        const collecting = collectNext
        collectNext = false
        const page = this.logs.available ? await this.logs.read(cursor, LOG_PAGE_LIMIT, options) : undefined
        if (page) {
          if (page.logs.length > 0) {
            this.events.newEntries(page.logs, cursor)
            cursor += page.logs.length
            progressed = true
            lastProgress = this.clock.now()
            if (page.logs.some(entry => entry.message_type?.toUpperCase() === 'FINAL_ANSWER'))
              finalAnswerAt = this.clock.now()
            fresh = true
          }
          // A full page, or a total beyond what we have, means more is waiting right now.
          more =
            page.logs.length >= LOG_PAGE_LIMIT ||
            page.full === true ||
            (page.logs.length > 0 && page.totalLogs !== null && page.totalLogs > cursor)
          // A page without a status (the ALPHA endpoint drifts) says nothing: ask the run itself,
          // unless it was just seen ended and this read only collected what it wrote before.
          if (page.status !== null) observe(page.status)
          else if (!more && !collecting) {
            await readRun(options)
            // It ended after this page was read: one more read collects what it wrote before.
            if (fresh && classifyStatus(status) !== 'working') more = collectNext = true
          }
        } else await readRun(options)

        if (classifyStatus(status) !== 'working') {
          // Past the grace period, one last look at the run itself before calling it stale.
          if (!fresh && this.clock.now() - (plan.resumedAt ?? started) >= grace) {
            if (page) await readRun(options)
            if (!fresh) break
          }
          if (fresh && !more && classifyStatus(status) !== 'working') break
        }
        if (more) continue

        // New entries or a new status: the run is moving, and its end may be near.
        quietPolls = progressed || status !== statusBefore ? 0 : quietPolls + 1
        const now = this.clock.now()
        if (now - lastProgress >= heartbeatMs && now - lastHeartbeat >= heartbeatMs) {
          this.events.heartbeat(now - started, status, cursor - plan.skipEntries)
          lastHeartbeat = now
        }
        const delay = nextPollDelay({
          baseMs: plan.pollIntervalMs,
          quietPolls,
          sinceFinalAnswerMs: finalAnswerAt === undefined ? undefined : now - finalAnswerAt,
          awaitingRestart: !fresh
        })
        const left = plan.deadline - now
        if (left <= 0) throw new DeadlineError()
        await this.clock.sleep(Math.min(delay, left), this.signal)
      }
    } catch (error) {
      if (error instanceof DeadlineError) ending = 'timeout'
      else if (error instanceof CancelledError) ending = 'cancelled'
      else throw error
    }

    const run = await this.finalRead(plan, ending, lastRun)
    // The log page and the run may disagree for a moment: keep the ending we saw.
    if (run && ending === 'ended' && classifyStatus(run.status) === 'working') run.status = status
    if (run && ending !== 'ended') status = run.status ?? status
    const restarted = fresh || (run !== undefined && newResult(run))
    return { ending, status, run, entriesSeen: cursor - plan.skipEntries, restarted }
  }

  private async finalRead(
    plan: WatchPlan,
    ending: WatchEnding,
    lastRun?: AgentRun
  ): Promise<AgentRun | undefined> {
    if (ending === 'ended' && lastRun && classifyStatus(lastRun.status) !== 'working') return lastRun
    try {
      if (ending === 'ended')
        return await this.api.getRun(plan.runId, { deadline: plan.deadline + FINAL_READ_MS })
      // After a timeout or a cancellation: one quick attempt, for the outputs' sake.
      return await this.api.getRun(plan.runId, {
        deadline: this.clock.now() + FINAL_READ_MS,
        maxAttempts: 1,
        lastRead: true
      })
    } catch (error) {
      if (ending === 'ended' && !(error instanceof DeadlineError) && !(error instanceof CancelledError))
        throw error
      return undefined
    }
  }
}
