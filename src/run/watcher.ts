import type { AgentRunApi, CallOptions } from '../api/client.js'
import { CancelledError, DeadlineError } from '../api/errors.js'
import type { AgentRun, LogEntry, LogPage } from '../api/types.js'
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
  /** A resumed run's result before the resume, when known: a different one proves it restarted. */
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
    const newResult = (result: string | null | undefined): boolean =>
      plan.earlierResult !== undefined && !!result && result !== plan.earlierResult

    const observe = (next: string | null): void => {
      // One ending giving way to another (COMPLETE to FAILED) is a restart seen from its end.
      if (next !== status && next !== null && status !== null) {
        if (classifyStatus(next) !== 'working' && classifyStatus(status) !== 'working') fresh = true
      }
      if (next !== status) {
        this.events.statusChanged(status, next)
        status = next
        lastProgress = this.clock.now()
      }
      if (next !== null && !isKnownStatus(next) && !unknownStatuses.has(next)) {
        unknownStatuses.add(next)
        this.events.notice(`Unknown run status "${next}": treating it as still working.`)
      }
      // A page without a status says nothing of a restart: only a working status does.
      if (next !== null && classifyStatus(next) === 'working') fresh = true
    }

    let ending: WatchEnding = 'ended'
    try {
      const options = { deadline: plan.deadline }
      let prefetched: Promise<LogPage | undefined> | undefined
      for (;;) {
        let more = false
        let progressed = false
        const statusBefore = status
        const page =
          (await prefetched) ??
          (this.logs.available ? await this.logs.read(cursor, LOG_PAGE_LIMIT, options) : undefined)
        prefetched = undefined
        if (page) {
          const first = cursor
          cursor += page.logs.length
          // A full page, or a total beyond what we have, means more is waiting right now.
          more =
            page.logs.length >= LOG_PAGE_LIMIT ||
            (page.logs.length > 0 && page.totalLogs !== null && page.totalLogs > cursor)
          // A backlog: ask for the next page before mirroring this one, so that the two overlap.
          if (more) prefetched = this.readAhead(cursor, options)
          if (page.logs.length > 0) {
            this.events.newEntries(page.logs, first)
            progressed = true
            lastProgress = this.clock.now()
            if (page.logs.some(entry => entry.message_type?.toUpperCase() === 'FINAL_ANSWER'))
              finalAnswerAt = this.clock.now()
            fresh = true
          }
          observe(page.status)
          if (newResult(page.result)) fresh = true
        } else {
          lastRun = await this.api.getRun(plan.runId, options)
          observe(lastRun.status ?? null)
          if (newResult(lastRun.result)) fresh = true
        }

        if (classifyStatus(status) !== 'working') {
          if (fresh && !more) break
          // Past the grace period the earlier ending is all there is: the caller reports it as such.
          if (!fresh && this.clock.now() - (plan.resumedAt ?? started) >= grace) break
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
    const restarted = fresh || newResult(run?.result)
    return { ending, status, run, entriesSeen: cursor - plan.skipEntries, restarted }
  }

  private readAhead(skip: number, options: CallOptions): Promise<LogPage | undefined> {
    const next = this.logs.read(skip, LOG_PAGE_LIMIT, options)
    // Awaited on the next turn of the loop; this only keeps one that the loop left behind quiet.
    next.catch(() => undefined)
    return next
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
        afterCancel: ending === 'cancelled'
      })
    } catch (error) {
      if (ending === 'ended' && !(error instanceof DeadlineError) && !(error instanceof CancelledError))
        throw error
      return undefined
    }
  }
}
