import type { AgentRunApi, CallOptions } from '../api/client.js'
import { CancelledError, DeadlineError } from '../api/errors.js'
import type { AgentRun } from '../api/types.js'
import type { Clock } from '../clock.js'
import type { RunEvents } from '../model.js'
import { LOG_PAGE_LIMIT, type LogReader } from './log-reader.js'
import { nextLook, paceNotice } from './pacing.js'
import {
  advance,
  heartbeatDue,
  initialState,
  isEnded,
  resumeGraceMs,
  settle,
  type Read,
  type Said,
  type Step,
  type WatchEnding,
  type WatchPlan,
  type WatchResult,
  type WatchState
} from './watch-step.js'

/**
 * The poll loop: read (a log page or the run), step the state (pure), do what the step says (read
 * again, wait for the next look, or stop). A look is the reads after one wait; a read is one request.
 */

/** Bounds the last read after a timeout or cancellation, so the step still ends within seconds. */
export const FINAL_READ_MS = 3_000

export class RunWatcher {
  constructor(
    private readonly api: AgentRunApi,
    private readonly logs: LogReader,
    private readonly clock: Clock,
    private readonly events: Omit<RunEvents, 'started'>,
    private readonly signal?: AbortSignal
  ) {}

  async watch(plan: WatchPlan): Promise<WatchResult> {
    const started = this.clock.now()
    const grace = plan.resumeGraceMs ?? resumeGraceMs(plan.pollIntervalMs)
    const graceEndsAt = (plan.guard.resumedAt ?? started) + grace
    let state = initialState(plan, started)
    let ending: WatchEnding = 'ended'
    try {
      // The first look waits too: the gentle start (pacing.ts).
      let step: Step = { kind: 'wait' }
      for (;;) {
        if (step.kind === 'wait') {
          state = await this.wait(state, plan, started)
          step = { kind: this.logs.available ? 'read-page' : 'read-run' }
        }
        // Reads once the end is known see the end: they may use the budget's reserve.
        const options = { deadline: plan.deadline, end: isEnded(state.status) && state.guard.restarted }
        const read = await this.read(step, state, plan.runId, options)
        const next = advance(state, read, {
          now: this.clock.now(),
          graceEndsAt,
          logsAvailable: this.logs.available
        })
        next.said.forEach(said => this.say(said))
        state = next.state
        step = next.step
        if (step.kind === 'stop') break
      }
    } catch (error) {
      if (error instanceof DeadlineError) ending = 'timeout'
      else if (error instanceof CancelledError) ending = 'cancelled'
      else throw error
    }
    const run = await this.finalRead(plan, ending, state.lastRun)
    return settle(state, ending, run, plan.earlierEntries)
  }

  private async read(step: Step, state: WatchState, runId: number, options: CallOptions): Promise<Read> {
    if (step.kind === 'read-page')
      return { kind: 'page', page: await this.logs.read(state.cursor, LOG_PAGE_LIMIT, options) }
    return { kind: 'run', run: await this.api.getRun(runId, options) }
  }

  private say(said: Said): void {
    if (said.kind === 'entries') this.events.newEntries(said.entries, said.firstIndex)
    else if (said.kind === 'status') this.events.statusChanged(said.from, said.to)
    else this.events.warning(said.message)
  }

  /** Sleeps until the next look (heartbeat and the budget's notice first), within the deadline. */
  private async wait(state: WatchState, plan: WatchPlan, started: number): Promise<WatchState> {
    const now = this.clock.now()
    const next = { ...state }
    if (heartbeatDue(state, now)) {
      this.events.heartbeat(now - started, state.status, state.cursor - plan.earlierEntries)
      next.lastHeartbeatAt = now
    }
    const pace = this.api.lookPace?.(this.logs.available ? 'logs' : 'run')
    const sinceFinalAnswerMs = state.finalAnswerAt === undefined ? undefined : now - state.finalAnswerAt
    const look = nextLook(
      {
        baseMs: plan.pollIntervalMs,
        sinceLookMs: now - state.lookAt,
        sinceFinalAnswerMs,
        looksDone: state.looksDone
      },
      pace
    )
    if (look.lateBy && !state.paceNoticed) {
      next.paceNoticed = true
      this.events.warning(paceNotice(plan.pollIntervalMs, look.lateBy))
    }
    const left = plan.deadline - now
    if (left <= 0) throw new DeadlineError()
    await this.clock.sleep(Math.min(look.waitMs, left), this.signal)
    // Every wait is followed by one look.
    return { ...next, lookAt: this.clock.now(), looksDone: state.looksDone + 1 }
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
