import { API_RUNS, type AgentRunApi } from '../api/client.js'
import { DeadlineError, ServiceError } from '../api/errors.js'
import type { AgentRun } from '../api/types.js'
import type { Clock } from '../clock.js'
import { LOG_PAGE_SIZE } from '../agent-run/log-reader.js'
import { isEnded, type Read, type WatchEnding, type WatchResult } from '../agent-run/watch-state.js'
import { endingOf, isCutShort, WatchedRun, type Watch } from '../agent-run/watcher.js'
import { needsAnotherPage, nextFollowMove, type FollowedRun, type FollowView } from './schedule.js'
import { least } from '../numbers.js'

/**
 * Many runs followed on one budget: the Watch every item of `runs` is followed by. Each run's watch
 * is the one a run alone has (WatchedRun: the pure advance, the resume guard, the read at its end);
 * what differs is what is read and when (schedule.ts): every status from one read of the
 * organization's runs a poll-interval, each run's log a page at a time. The loop runs while some
 * run is followed: a run that starts meanwhile joins the next read of the list.
 */

export interface ListWatcherDeps {
  /** The organization's client: its runs are listed. */
  api: AgentRunApi
  clock: Clock
  signal?: AbortSignal
  /** Epoch ms at which the step stops waiting (timeout-minutes after it started). */
  deadline: number
  /** Whether each working run's log is read as it goes (a console mirror), or only at its end. */
  liveLog: boolean
  /** Told once a minute while runs are followed (the line of every run's state). */
  everyMinute(now: number): void
}

const MINUTE_MS = 60_000

/** A run being followed: its watch, the schedule's view of it, and the run as last listed. */
interface Followed {
  watched: WatchedRun
  follow: FollowedRun
  lastRun?: AgentRun
  resolve(result: WatchResult): void
  reject(error: unknown): void
}

export class ListWatcher {
  private readonly followed = new Map<number, Followed>()
  private looping = false
  private listAt?: number
  private logAt?: number
  private minuteAt: number

  constructor(private readonly deps: ListWatcherDeps) {
    this.minuteAt = deps.clock.now()
  }

  readonly watch: Watch = (brief, reads, events) =>
    new Promise((resolve, reject) => {
      const watched = new WatchedRun(brief, reads, events, this.deps.clock.now())
      const follow: FollowedRun = { id: brief.runId, phase: 'working', logBacklog: false }
      this.followed.set(brief.runId, { watched, follow, resolve, reject })
      if (!this.looping) void this.loop()
    })

  private async loop(): Promise<void> {
    this.looping = true
    try {
      while (this.followed.size > 0) {
        this.sayMinute()
        const move = nextFollowMove(this.view())
        if (move.kind === 'list') await this.readList()
        else if (move.kind === 'log') await this.readLog(this.followed.get(move.runId) as Followed, move.end)
        else if (move.kind === 'wait') await this.wait(move.ms)
        else await Promise.all([...this.followed.values()].map(run => this.end(run, 'ended')))
      }
    } catch (error) {
      // The deadline or the cancellation ends every run followed so; any other error is each one's.
      const runs = [...this.followed.values()]
      if (!isCutShort(error)) runs.forEach(run => this.endWithError(run, error))
      else await Promise.all(runs.map(run => this.end(run, endingOf(error))))
    } finally {
      this.looping = false
      // A run that started while the others ended is followed still.
      if (this.followed.size > 0) void this.loop()
    }
  }

  private view(): FollowView {
    const runs = [...this.followed.values()]
    return {
      runs: runs.map(run => ({ ...run.follow, logsAvailable: run.watched.reads.logs.available })),
      now: this.deps.clock.now(),
      pollIntervalMs: least(runs.map(run => run.watched.brief.pollIntervalMs)),
      listAt: this.listAt,
      logAt: this.logAt,
      logGapMs: this.deps.api.lookPace?.('logs')?.gapMs ?? 0,
      liveLog: this.deps.liveLog
    }
  }

  /** One read of the organization's runs (page after page until every working run was seen). */
  private async readList(): Promise<void> {
    const { api, deadline } = this.deps
    this.listAt = this.deps.clock.now()
    const working = [...this.followed.values()].filter(run => run.follow.phase === 'working')
    const unseen = new Set(working.map(run => run.follow.id))
    for (let page = 0; ; page++) {
      const answer = await api.listRuns(page * LOG_PAGE_SIZE, LOG_PAGE_SIZE, API_RUNS, { deadline })
      for (const run of answer.items) {
        const followed = this.followed.get(run.id)
        if (followed && unseen.delete(run.id)) await this.advance(followed, { kind: 'run', run })
      }
      const ids = answer.items.map(run => run.id)
      if (!needsAnotherPage(ids, (answer.sent ?? answer.items.length) >= LOG_PAGE_SIZE, unseen, page + 1))
        break
    }
    // Past MAX_LIST_PAGES of newer runs (a busy organization), or not listed at all: read them one by one.
    for (const runId of unseen) {
      const followed = this.followed.get(runId)
      if (followed)
        await this.ownRead(followed, () => followed.watched.read({ kind: 'read-run' }, { deadline }))
    }
  }

  private async readLog(followed: Followed, end: boolean): Promise<void> {
    this.logAt = this.deps.clock.now()
    followed.follow.logReadAt = this.logAt
    const options = { deadline: this.deps.deadline, end }
    await this.ownRead(followed, () => followed.watched.read({ kind: 'read-page' }, options))
  }

  /** A read of one run: the service refusing it ends that run alone, as an error; the others go on. */
  private async ownRead(followed: Followed, read: () => Promise<Read>): Promise<void> {
    let answer: Read
    try {
      answer = await read()
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error
      return this.endWithError(followed, error)
    }
    await this.advance(followed, answer)
  }

  /** The run's watch advanced on what was read; the schedule's view of it updated. */
  private async advance(followed: Followed, read: Read): Promise<void> {
    const { watched, follow } = followed
    const move = watched.advance(read, this.deps.clock.now())
    if (read.kind === 'run') followed.lastRun = read.run
    follow.finalAnswerAt = watched.state.finalAnswerAt
    if (move.kind === 'end') await this.end(followed, 'ended')
    else if (move.kind === 'read-page') {
      const { status, guard } = watched.state
      follow.phase = isEnded(status) && guard.restarted ? 'ended' : 'working'
      follow.logBacklog = true
    } else follow.logBacklog = false
  }

  /**
   * The run's ending, read at its end as a run alone's is: an end seen on a log page comes before
   * the list shows it (the run as last listed still working: no result, no pull requests yet).
   */
  private async end(followed: Followed, ending: WatchEnding): Promise<void> {
    this.followed.delete(followed.follow.id)
    try {
      followed.resolve(await followed.watched.end(ending, followed.lastRun, this.deps.clock.now()))
    } catch (error) {
      followed.reject(error)
    }
  }

  /** The run's watch ends in `error` (its report becomes an error), the others go on. */
  private endWithError(followed: Followed, error: unknown): void {
    this.followed.delete(followed.follow.id)
    followed.reject(error)
  }

  /** Waits for the next move, within the deadline and the minute's line. */
  private async wait(ms: number): Promise<void> {
    const now = this.deps.clock.now()
    const left = this.deps.deadline - now
    if (left <= 0) throw new DeadlineError()
    const untilMinute = this.minuteAt + MINUTE_MS - now
    await this.deps.clock.sleep(Math.max(1, Math.min(ms, untilMinute, left)), this.deps.signal)
  }

  private sayMinute(): void {
    const now = this.deps.clock.now()
    if (now - this.minuteAt < MINUTE_MS) return
    this.minuteAt = now
    this.deps.everyMinute(now)
  }
}
