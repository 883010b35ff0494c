import type { AgentRunApi } from '../api/client.js'
import { CancelledError, DeadlineError, ServiceError } from '../api/errors.js'
import type { Clock } from '../clock.js'
import { followRun, watchedFields } from '../agent-run/follow.js'
import { LOG_PAGE_LIMIT } from '../agent-run/log-reader.js'
import { failedBeforeRun, startRun, type StartedRun } from '../agent-run/start.js'
import type { ServiceClients } from '../org/clients.js'
import { FINAL_READ_MS } from '../agent-run/watcher.js'
import {
  advance,
  initialState,
  isEnded,
  settle,
  type Read,
  type WatchEnding,
  type WatchState
} from '../agent-run/watch-step.js'
import { reportOf, type ItemReport, type RunEvents, type RunPlan, type RunReport } from '../model.js'
import { discoverOrganization } from '../org/organizations.js'
import type { ItemState } from './outcome.js'
import { needsAnotherPage, nextFollowStep, startable, type FollowedRun } from './schedule.js'
import { reportOfSlot, stateOf, type FanOutItem, type Slot } from './slot.js'

/**
 * Many runs from one step: each item started through the one start unit (startRun), at most
 * `maxParallel` at once, and all of them followed on one budget (schedule.ts): every status from one
 * read of the organization's runs a poll-interval, each run's log a page at a time, and each run's
 * state stepped by the watcher's pure step, as a single run's is.
 */

export type { FanOutItem } from './slot.js'

export interface FanOutDeps {
  apis: ServiceClients
  clock: Clock
  signal?: AbortSignal
  /** Epoch ms at which the step stops waiting (timeout-minutes after it started). */
  deadline: number
  maxParallel: number
  /** Whether each working run's log is read as it goes (a console mirror), or only at its end. */
  liveLog: boolean
  /** The step's own notices (the organization chosen). */
  notice(message: string): void
  /** The line of every run's state, once a minute. */
  states(states: ItemState[], elapsedMs: number): void
  /**
   * What follows a run's end before its report is final (verdict, output-schema: its answer read,
   * repairs asked by resuming it); the run keeps its place among max-parallel meanwhile.
   */
  settle?(report: RunReport, plan: RunPlan, events: RunEvents): Promise<RunReport>
}

const STATES_EVERY_MS = 60_000

/** Starts and follows every item; returns their reports in the list's order. */
export async function runFanOut(items: FanOutItem[], deps: FanOutDeps): Promise<ItemReport[]> {
  const startedAt = deps.clock.now()
  const slots: Slot[] = items.map(item => ({ item, phase: 'queued' }))
  const orgId = await oneOrganization(items, deps)
  if (typeof orgId === 'object') {
    for (const slot of slots)
      slot.report = reportOf({ outcome: 'error', ...orgId }, startedAt, deps.clock.now())
    return slots.map(reportOfSlot)
  }
  const follower = new Follower(slots, deps, deps.apis(orgId), startedAt)
  const plans = slots.map(slot => ({ ...slot.item.plan, orgId }))
  await follower.run(plans)
  return slots.map(reportOfSlot)
}

/** The organization every item acts on: org-id, else the token's only one, found once for all. */
async function oneOrganization(
  items: FanOutItem[],
  deps: FanOutDeps
): Promise<number | { error: string; httpStatus?: number }> {
  const given = items[0]?.plan.orgId
  if (given !== undefined) return given
  const found = await discoverOrganization(deps.apis, { deadline: deps.deadline }, deps.notice)
  return 'error' in found ? found : found.orgId
}

class Follower {
  private listAt?: number
  private logAt?: number
  private statesAt: number
  private readonly starts = new Set<Promise<void>>()

  constructor(
    private readonly slots: Slot[],
    private readonly deps: FanOutDeps,
    private readonly api: AgentRunApi,
    private readonly startedAt: number
  ) {
    this.statesAt = startedAt
  }

  async run(plans: RunPlan[]): Promise<void> {
    let ending: WatchEnding = 'ended'
    try {
      for (;;) {
        this.startWhatMay(plans)
        const step = nextFollowStep(this.view())
        const waiting = this.slots.some(slot => ['queued', 'starting', 'settling'].includes(slot.phase))
        if (step.kind === 'done' && !waiting) break
        this.sayStates()
        if (step.kind === 'list') await this.readList()
        else if (step.kind === 'log') await this.readLog(this.slotOf(step.runId), step.end)
        else await this.wait(step.kind === 'wait' ? step.ms : Infinity, waiting)
      }
    } catch (error) {
      if (error instanceof DeadlineError) ending = 'timeout'
      else if (error instanceof CancelledError) ending = 'cancelled'
      else throw error
    }
    // The starts and settles under way end at once now (the same deadline and signal), as reports;
    // then every run still followed ends so, and what that starts settling is waited for too.
    await this.drain()
    if (ending !== 'ended') {
      this.endAll(ending)
      await this.drain()
    }
  }

  /** Waits until no start or settle is under way (one may begin another: a start's error settles). */
  private async drain(): Promise<void> {
    while (this.starts.size > 0) await Promise.all(this.starts)
  }

  private view(): Parameters<typeof nextFollowStep>[0] {
    const followed = this.slots.filter(slot => slot.follow).map(slot => slot.follow as FollowedRun)
    return {
      runs: followed,
      now: this.deps.clock.now(),
      pollIntervalMs: this.slots[0]?.item.plan.pollIntervalMs ?? 5_000,
      listAt: this.listAt,
      logAt: this.logAt,
      logGapMs: this.api.lookPace?.('logs')?.gapMs ?? 0,
      liveLog: this.deps.liveLog,
      logsAvailable: true
    }
  }

  private slotOf(runId: number): Slot {
    return this.slots.find(slot => slot.started?.run.id === runId) as Slot
  }

  /** Starts the next queued items while fewer than max-parallel work. */
  private startWhatMay(plans: RunPlan[]): void {
    const working = this.slots.filter(slot =>
      ['starting', 'following', 'settling'].includes(slot.phase)
    ).length
    const queued = this.slots.filter(slot => slot.phase === 'queued')
    for (const slot of queued.slice(0, startable(working, queued.length, this.deps.maxParallel))) {
      slot.phase = 'starting'
      slot.plan = plans[this.slots.indexOf(slot)]
      const start = this.start(slot, plans[this.slots.indexOf(slot)] as RunPlan).finally(() =>
        this.starts.delete(start)
      )
      this.starts.add(start)
    }
  }

  /** Starts one item; whatever goes wrong ends as its report, never as the step's. */
  private async start(slot: Slot, plan: RunPlan): Promise<void> {
    try {
      await this.startAndWatch(slot, plan)
    } catch (error) {
      const fields = startFailure(error)
      if (slot.started) this.finish(slot, { ...fields, run: slot.lastRun })
      else {
        slot.report = reportOf(fields, this.deps.clock.now())
        slot.phase = 'done'
      }
    }
  }

  private async startAndWatch(slot: Slot, plan: RunPlan): Promise<void> {
    const { deps } = this
    const events = slot.item.events
    const started = await startRun(plan, {
      apis: deps.apis,
      clock: deps.clock,
      signal: deps.signal,
      deadline: deps.deadline,
      warning: message => events.warning(message),
      notice: message => events.warning(message)
    })
    if (started.kind === 'not-started') {
      slot.report = started.report
      slot.phase = 'done'
      return
    }
    if (!plan.wait) {
      slot.report = await followRun(started, plan, { clock: deps.clock, deadline: deps.deadline, events })
      slot.phase = 'done'
      return
    }
    events.started(started.run, started.base.mode)
    const now = deps.clock.now()
    const watch = initialState(
      {
        runId: started.run.id,
        deadline: deps.deadline,
        pollIntervalMs: plan.pollIntervalMs,
        earlierEntries: started.earlierEntries,
        initialStatus: started.run.status ?? null,
        guard: started.guard
      },
      now
    )
    Object.assign(slot, {
      started,
      watch,
      lastRun: started.run,
      phase: 'following',
      follow: { id: started.run.id, phase: 'working', logBacklog: false }
    })
  }

  /** One read of the organization's runs (page after page until every working run was seen). */
  private async readList(): Promise<void> {
    this.listAt = this.deps.clock.now()
    const working = this.slots.filter(slot => slot.follow?.phase === 'working')
    const unseen = new Set(working.map(slot => slot.started?.run.id as number))
    for (let page = 0; ; page++) {
      const answer = await this.api.listRuns(page * LOG_PAGE_LIMIT, LOG_PAGE_LIMIT, {
        deadline: this.deps.deadline
      })
      for (const run of answer.items) {
        if (!unseen.delete(run.id)) continue
        await this.step(this.slotOf(run.id), { kind: 'run', run })
      }
      const ids = answer.items.map(run => run.id)
      if (!needsAnotherPage(ids, answer.items.length >= LOG_PAGE_LIMIT, unseen, page + 1)) break
    }
    // Past MAX_LIST_PAGES of newer runs (a busy organization), or not listed at all: read them one by one.
    for (const runId of unseen)
      await this.step(this.slotOf(runId), {
        kind: 'run',
        run: await this.api.getRun(runId, { deadline: this.deps.deadline })
      })
  }

  private async readLog(slot: Slot, end: boolean): Promise<void> {
    const { started, watch } = slot as Required<Pick<Slot, 'started' | 'watch'>>
    this.logAt = this.deps.clock.now()
    try {
      const page = await started.logs.read(watch.cursor, LOG_PAGE_LIMIT, {
        deadline: this.deps.deadline,
        end
      })
      ;(slot.follow as FollowedRun).logReadAt = this.logAt
      await this.step(slot, { kind: 'page', page })
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error
      // This run's log could not be read: it ends as an error; the others go on.
      this.finish(slot, {
        ...watchedFields(started.run, settle(watch, 'ended', slot.lastRun, started.earlierEntries)),
        outcome: 'error',
        error: error.message
      })
    }
  }

  /** The watcher's pure step on what was read, its events said, the schedule's view of the run updated. */
  private async step(slot: Slot, read: Read): Promise<void> {
    const { started } = slot as Required<Pick<Slot, 'started'>>
    const now = this.deps.clock.now()
    const next = advance(slot.watch as WatchState, read, {
      now,
      graceEndsAt: Infinity,
      logsAvailable: started.logs.available
    })
    const events = slot.item.events
    for (const said of next.said) {
      if (said.kind === 'entries') events.newEntries(said.entries, said.firstIndex)
      else if (said.kind === 'status') events.statusChanged(said.from, said.to)
      else events.warning(said.message)
    }
    slot.watch = next.state
    if (read.kind === 'run') slot.lastRun = read.run
    const follow = slot.follow as FollowedRun
    follow.finalAnswerAt = next.state.finalAnswerAt
    if (next.step.kind === 'stop') await this.ended(slot, next.state)
    else if (next.step.kind === 'read-page') {
      follow.phase = isEnded(next.state.status) && next.state.guard.restarted ? 'ended' : 'working'
      follow.logBacklog = true
    } else follow.logBacklog = false
  }

  /**
   * A run seen ended: its report from the run as read at its end. An end seen on a log page comes
   * before the list shows it: the run as last listed was still working (no result, no pull
   * requests yet), so it is read once more, as the watcher's final read does.
   */
  private async ended(slot: Slot, state: WatchState): Promise<void> {
    const started = slot.started as StartedRun
    if (!slot.lastRun || !isEnded(slot.lastRun.status ?? null)) {
      const options = { deadline: this.deps.deadline + FINAL_READ_MS, end: true }
      slot.lastRun = await this.api.getRun(started.run.id, options)
    }
    const watched = settle(state, 'ended', slot.lastRun, started.earlierEntries)
    this.finish(slot, watchedFields(started.run, watched))
  }

  private finish(slot: Slot, fields: Partial<RunReport> & Pick<RunReport, 'outcome'>): void {
    const started = slot.started as StartedRun
    const report: RunReport = {
      ...started.base,
      status: fields.run?.status ?? '',
      endedAt: this.deps.clock.now(),
      entriesSeen: 0,
      ...fields
    }
    ;(slot.follow as FollowedRun).phase = 'done'
    const settle = this.deps.settle
    if (!settle || slot.phase !== 'following') {
      slot.report = report
      slot.phase = 'done'
      return
    }
    slot.phase = 'settling'
    const settling = settle(report, slot.plan as RunPlan, slot.item.events)
      .catch((error: unknown) => ({ ...report, ...startFailure(error) }))
      .then(settled => {
        slot.report = settled
        slot.phase = 'done'
      })
      .finally(() => this.starts.delete(settling))
    this.starts.add(settling)
  }

  /** After a timeout or a cancellation: every run still followed ends so, as last seen; the queued never started. */
  private endAll(ending: 'timeout' | 'cancelled'): void {
    for (const slot of this.slots) {
      if (slot.phase === 'following') {
        const started = slot.started as StartedRun
        const watched = settle(slot.watch as WatchState, ending, slot.lastRun, started.earlierEntries)
        this.finish(slot, watchedFields(started.run, watched))
      } else if (slot.phase === 'queued') {
        const why = ending === 'cancelled' ? 'The job was cancelled' : 'timeout-minutes was reached'
        slot.report = reportOf(
          { outcome: ending, error: `${why} before this run's turn came: it was not started.` },
          this.deps.clock.now()
        )
        slot.phase = 'done'
      }
    }
  }

  /**
   * Waits for the next step, or, when no run is followed yet, for a start to settle: nothing is
   * polled while a create is on its way (a run that starts meanwhile joins the next list read).
   */
  private async wait(ms: number, starting: boolean): Promise<void> {
    const now = this.deps.clock.now()
    const left = this.deps.deadline - now
    if (left <= 0) throw new DeadlineError()
    if (ms === Infinity && starting) {
      await Promise.race(this.starts)
      return
    }
    const untilStates = this.statesAt + STATES_EVERY_MS - now
    await this.deps.clock.sleep(Math.max(1, Math.min(ms, untilStates, left)), this.deps.signal)
  }

  /** The line of every run's state, once a minute. */
  private sayStates(): void {
    const now = this.deps.clock.now()
    if (now - this.statesAt < STATES_EVERY_MS) return
    this.statesAt = now
    this.deps.states(this.slots.map(stateOf), now - this.startedAt)
  }
}

/** Why an item could not be started: the start unit's reasons, or the error's own message. */
function startFailure(error: unknown): Pick<RunReport, 'outcome' | 'error'> {
  try {
    const { outcome, error: message } = failedBeforeRun(error)
    return { outcome, error: message }
  } catch {
    return { outcome: 'error', error: `Unexpected error while starting the run: ${(error as Error).message}` }
  }
}
