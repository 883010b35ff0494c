import type { AgentRunApi, CallOptions } from '../api/client.js'
import { CancelledError, DeadlineError } from '../api/errors.js'
import type { AgentRun } from '../api/types.js'
import type { Clock } from '../clock.js'
import type { RunEvents } from '../model.js'
import { LOG_PAGE_SIZE, type LogReader } from './log-reader.js'
import { nextLook, paceNotice } from './pacing.js'
import { shouldStopRun, stopOutcome, stopWarning } from './stop.js'
import {
  advance,
  heartbeatDue,
  initialState,
  isEnded,
  resumeGraceMs,
  endWatch,
  type Read,
  type Said,
  type WatchMove,
  type WatchEnding,
  type WatchBrief,
  type WatchResult,
  type WatchState
} from './watch-state.js'

/**
 * Following a started run to its end. One run's watch (`WatchedRun`: its state advanced on each read
 * by the pure `advance`, what that says told, its ending and the read at its end) is driven by a
 * loop that decides what to read and when: a run alone by `RunWatcher` (a look each poll-interval:
 * its log, or the run itself), many runs by the fan-out's `ListWatcher` (runs/list-watcher.ts: one
 * read of the organization's runs a poll-interval, the logs on one budget). A look is the reads
 * after one wait; a read is one request.
 */

/** Bounds the last read after a timeout or cancellation, so the step still ends within seconds. */
const FINAL_READ_MS = 3_000
/** Of that, what the stop may take (stop-run-on): the read after it keeps at least a second. */
const STOP_MS = 2_000
/** What the read after a stop keeps at least when the service's last calls end sooner (a run found late). */
const LAST_READ_KEPT_MS = 500

/** What a watch tells the reporters as the run goes. */
export type WatchEvents = Omit<RunEvents, 'started'>

/** A started run as a watch reads it: its client and its log. */
export interface WatchedApi {
  api: AgentRunApi
  logs: LogReader
}

/** How a started run is followed to its end: alone (RunWatcher), or among many (the fan-out's). */
export type Watch = (brief: WatchBrief, run: WatchedApi, events: WatchEvents) => Promise<WatchResult>

/** Whether a throw is the step's deadline or the job's cancellation: the two cut a watch short. */
export function isCutShort(error: unknown): error is DeadlineError | CancelledError {
  return error instanceof DeadlineError || error instanceof CancelledError
}

/** How waiting ended when it threw: the deadline or the job's cancellation; any other error is thrown on. */
export function endingOf(error: unknown): Exclude<WatchEnding, 'ended'> {
  if (!isCutShort(error)) throw error
  return error instanceof DeadlineError ? 'timeout' : 'cancelled'
}

/** One run's watch, whoever drives it: its state, advanced on each read, and its ending. */
export class WatchedRun {
  state: WatchState
  /** When a resumed run still showing its earlier ending is given up on. */
  private readonly graceEndsAt: number

  constructor(
    readonly brief: WatchBrief,
    readonly reads: WatchedApi,
    private readonly events: WatchEvents,
    now: number
  ) {
    this.state = initialState(brief, now)
    this.graceEndsAt = (brief.guard.resumedAt ?? now) + resumeGraceMs(brief.pollIntervalMs)
  }

  /** Reads what the last move asks: the next log page, or the run itself. */
  async read(move: WatchMove, options: CallOptions): Promise<Read> {
    if (move.kind === 'read-page')
      return { kind: 'page', page: await this.reads.logs.read(this.state.cursor, LOG_PAGE_SIZE, options) }
    return { kind: 'run', run: await this.reads.api.getRun(this.brief.runId, options) }
  }

  /** The pure advance on what was read, what it says told: returns what to do next. */
  advance(read: Read, now: number): WatchMove {
    const next = advance(this.state, read, {
      now,
      graceEndsAt: this.graceEndsAt,
      logsAvailable: this.reads.logs.available
    })
    next.said.forEach(said => tell(this.events, said))
    this.state = next.state
    return next.move
  }

  /**
   * How the watch ended, with the run as read at its end: `lastRun` when the last read of the run
   * showed it ended, else read once more (a page may show the end before the run has its result
   * and pull requests). After a timeout or a cancellation: one quick attempt, for the outputs' sake,
   * the run as last read when it fails.
   */
  async end(ending: WatchEnding, lastRun: AgentRun | undefined, now: number): Promise<WatchResult> {
    const { runId, deadline, earlierEntries } = this.brief
    if (ending !== 'ended') return this.cutShort(ending, lastRun, now)
    let run = lastRun
    if (!lastRun || !isEnded(lastRun.status ?? null))
      run = await this.reads.api
        .getRun(runId, { deadline: deadline + FINAL_READ_MS, end: true })
        .catch((error: unknown) => {
          if (isCutShort(error)) return undefined
          throw error
        })
    return endWatch(this.state, ending, run, earlierEntries)
  }

  /**
   * A watch cut short by the deadline or the cancellation: the run stopped first when stop-run-on
   * asks it (the stop and the read together within FINAL_READ_MS, and by the end of the service's
   * last calls), then read once.
   */
  private async cutShort(
    ending: WatchEnding,
    lastRun: AgentRun | undefined,
    now: number
  ): Promise<WatchResult> {
    const by = Math.min(now + FINAL_READ_MS, this.brief.lastCallsBy?.() ?? Infinity)
    const stopBy = Math.min(now + STOP_MS, by - LAST_READ_KEPT_MS)
    const stop = this.stopWanted(ending) ? await this.stop(stopBy) : undefined
    const options = { deadline: by, maxAttempts: 1, lastRead: true, end: true }
    const read = await this.reads.api.getRun(this.brief.runId, options).catch(() => undefined)
    const result = endWatch(this.state, ending, read ?? stop?.answer ?? lastRun, this.brief.earlierEntries)
    // What the service showed after the stop: never the run as read before it.
    return stop ? this.stopped(result, stop.error, (read ?? stop.answer)?.status) : result
  }

  private stopWanted(ending: WatchEnding): boolean {
    const { stop } = this.brief
    const question = {
      ending,
      stopRunOn: stop?.on ?? new Set(),
      status: this.state.status,
      wait: !!stop?.wait
    }
    return !!stop && shouldStopRun({ ...question, resumedUnseen: !this.state.guard.restarted })
  }

  /** Asks the service to stop the run, by `deadline`: not aborted by the cancellation. */
  private async stop(deadline: number): Promise<{ answer?: AgentRun; error?: unknown }> {
    const options = { deadline, lastRead: true, end: true }
    try {
      return { answer: await this.reads.api.stopRun(this.brief.runId, options) }
    } catch (error) {
      return { error }
    }
  }

  /** The result with what became of the stop; a stop that failed is said once, with where the run goes on. */
  private stopped(result: WatchResult, error: unknown, statusAfter: string | null | undefined): WatchResult {
    const stop = stopOutcome(error === undefined ? {} : { error }, statusAfter)
    if (!stop.stopped) {
      const webUrl = result.run?.web_url ?? this.brief.stop?.webUrl
      this.events.warning(stopWarning(this.brief.runId, webUrl, stop))
    }
    return { ...result, stop }
  }
}

function tell(events: WatchEvents, said: Said): void {
  if (said.kind === 'entries') events.newEntries(said.entries, said.firstIndex)
  else if (said.kind === 'status') events.statusChanged(said.from, said.to)
  else events.warning(said.message)
}

/** One run alone: read (a log page or the run), advance, then read again, wait for the next look, or stop. */
export class RunWatcher {
  constructor(
    private readonly clock: Clock,
    private readonly signal?: AbortSignal
  ) {}

  /** The Watch of a run alone. */
  readonly watch: Watch = async (brief, reads, events) => {
    const watched = new WatchedRun(brief, reads, events, this.clock.now())
    let ending: WatchEnding = 'ended'
    try {
      // The first look waits too: the gentle start (pacing.ts).
      let move: WatchMove = { kind: 'wait' }
      while (move.kind !== 'end') {
        if (move.kind === 'wait') {
          await this.wait(watched, events)
          move = { kind: reads.logs.available ? 'read-page' : 'read-run' }
        }
        // Reads once the end is known see the end: they may use the budget's reserve.
        const { status, guard } = watched.state
        const options = { deadline: brief.deadline, end: isEnded(status) && guard.restarted }
        move = watched.advance(await watched.read(move, options), this.clock.now())
      }
    } catch (error) {
      ending = endingOf(error)
    }
    // After a timeout the run as last read stands, if the quick read fails; an ended watch reads it
    // again unless its last read was of the run.
    return watched.end(ending, watched.state.lastRun, this.clock.now())
  }

  /** Sleeps until the next look (heartbeat and the budget's notice first), within the deadline. */
  private async wait(watched: WatchedRun, events: WatchEvents): Promise<void> {
    const { brief, state, reads } = watched
    const now = this.clock.now()
    const next = { ...state }
    if (heartbeatDue(state, now)) {
      events.heartbeat(now - state.startedAt, state.status, state.cursor - brief.earlierEntries)
      next.lastHeartbeatAt = now
    }
    const pace = reads.api.lookPace?.(reads.logs.available ? 'logs' : 'run')
    const sinceFinalAnswerMs = state.finalAnswerAt === undefined ? undefined : now - state.finalAnswerAt
    const look = nextLook(
      {
        pollIntervalMs: brief.pollIntervalMs,
        sinceLookMs: now - state.lookAt,
        sinceFinalAnswerMs,
        looksDone: state.looksDone
      },
      pace
    )
    if (look.lateBy && !state.paceNoticed) {
      next.paceNoticed = true
      events.warning(paceNotice(brief.pollIntervalMs, look.lateBy))
    }
    watched.state = next
    const left = brief.deadline - now
    if (left <= 0) throw new DeadlineError()
    await this.clock.sleep(Math.min(look.waitMs, left), this.signal)
    // Every wait is followed by one look.
    watched.state = { ...watched.state, lookAt: this.clock.now(), looksDone: state.looksDone + 1 }
  }
}
