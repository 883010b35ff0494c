import type { LogEntry } from '../../src/api/types.js'
import { followRun } from '../../src/agent-run/follow.js'
import { startRun, type StartedRun } from '../../src/agent-run/start.js'
import type { ServiceClients } from '../../src/org/clients.js'
import { ServiceError } from '../../src/api/errors.js'
import { LogReader } from '../../src/agent-run/log-reader.js'
import {
  advance,
  decide,
  heartbeatDue,
  initialState,
  sees,
  endWatch,
  type ResumeGuard,
  type WatchPlan,
  type WatchState
} from '../../src/agent-run/watch-step.js'
import { RunWatcher } from '../../src/agent-run/watcher.js'
import type { RunEvents, RunPlan, RunReport } from '../../src/model.js'
import { FakeApi, type Moment } from '../support/fake-api.js'
import { FakeClock } from '../support/fake-clock.js'

class Recorder implements Omit<RunEvents, 'started'> {
  readonly lines: string[] = []
  readonly entries: LogEntry[] = []
  newEntries(entries: LogEntry[], firstIndex: number): void {
    this.entries.push(...entries)
    this.lines.push(`entries ${firstIndex}+${entries.length}`)
  }
  statusChanged(from: string | null, to: string | null): void {
    this.lines.push(`status ${from} -> ${to}`)
  }
  heartbeat(elapsedMs: number, status: string | null, seen: number): void {
    this.lines.push(`heartbeat ${elapsedMs} ${status} ${seen}`)
  }
  warning(message: string): void {
    this.lines.push(`warning ${message}`)
  }
  repairAsked(reason: string): void {
    this.lines.push(`repair ${reason}`)
  }
}

/** A plan's fields for a run resumed just now (not yet seen restarted). */
interface Resumed {
  earlierEntries?: number
  initialStatus?: string | null
  resumedAt?: number
  earlierResult?: string | null
  deadline?: number
  pollIntervalMs?: number
}

function setUp(moments: Moment[], given: Resumed = {}) {
  const { resumedAt, earlierResult, ...plan } = given
  const guard: ResumeGuard =
    resumedAt === undefined
      ? { restarted: true }
      : { restarted: false, resumedAt, ...('earlierResult' in given ? { earlierResult } : {}) }
  const clock = new FakeClock()
  const api = new FakeApi(clock, moments)
  const events = new Recorder()
  const logs = new LogReader(api, api.runId, message => events.warning(message))
  const watcher = new RunWatcher(clock)
  const fullPlan: WatchPlan = {
    runId: api.runId,
    deadline: clock.now() + 60 * 60_000,
    pollIntervalMs: 5_000,
    earlierEntries: 0,
    initialStatus: 'ACTIVE',
    guard,
    ...plan
  }
  return { clock, api, events, watch: () => watcher.watch(fullPlan, { api, logs }, events) }
}

describe('RunWatcher', () => {
  test('mirrors each entry once, in order, and ends on the terminal status', async () => {
    const { api, events, watch } = setUp([
      { at: 0, status: 'ACTIVE', entries: 2 },
      { at: 12_000, entries: 3 },
      { at: 30_000, finalAnswer: true },
      { at: 31_000, status: 'COMPLETE' }
    ])
    const result = await watch()
    expect(result).toMatchObject({ ending: 'ended', status: 'COMPLETE', entriesSeen: 6 })
    expect(events.entries.map(e => e.thought ?? e.message_type)).toEqual([
      'entry 0',
      'entry 1',
      'entry 2',
      'entry 3',
      'entry 4',
      'FINAL_ANSWER'
    ])
    expect(events.lines).toContain('status ACTIVE -> COMPLETE')
    // Never re-read from the start: each log read asks for what follows the last entry seen.
    const skips = api.calls.filter(call => call.startsWith('logs')).map(call => Number(call.split(':')[2]))
    expect(skips).toEqual([...skips].sort((a, b) => a - b))
    // A quiet poll costs one request; the run is read once, at the end.
    expect(api.calls.filter(call => call === 'get')).toHaveLength(1)
  })

  test('looks every poll-interval while entries flow, then every second once a FINAL_ANSWER is seen', async () => {
    const { clock, watch } = setUp([
      { at: 0, status: 'ACTIVE', entries: 1 },
      { at: 4_000, entries: 2 },
      { at: 9_000, finalAnswer: true },
      { at: 15_500, status: 'COMPLETE' }
    ])
    await watch()
    expect(clock.sleeps).toEqual([5_000, 5_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000])
  })

  test('starts gently below a base of 4 s: the first look 4 s in, then 2 s, then every base', async () => {
    const { api, clock, watch } = setUp(
      [
        { at: 0, status: 'ACTIVE', entries: 1 },
        { at: 9_500, status: 'COMPLETE' }
      ],
      { pollIntervalMs: 1_000 }
    )
    await watch()
    expect(clock.sleeps).toEqual([4_000, 2_000, 1_000, 1_000, 1_000, 1_000])
    // Looks at 4, 6, 7, 8, 9 and 10 s, and the final read: the end, 9.5 s in, is seen within a base.
    expect(api.calls).toHaveLength(7)
  })

  test('looks every poll-interval while the run is quiet: a quiet end is seen within one base', async () => {
    const { api, clock, watch } = setUp([
      { at: 0, status: 'ACTIVE', entries: 1 },
      { at: 50_000, entries: 1 },
      { at: 61_000, status: 'ERROR' }
    ])
    const start = clock.now()
    await watch()
    expect(clock.sleeps).toEqual(Array(13).fill(5_000))
    expect(clock.now() - start - 61_000).toBeLessThanOrEqual(5_000)
    // One request per look (13 looks, at 5 s to 65 s: the first waits a base too), and the final read.
    expect(api.calls).toHaveLength(14)
  })

  test('the budget holds the looks back past poll-interval only with one notice saying so', async () => {
    const { api, clock, events, watch } = setUp(
      [
        { at: 0, status: 'ACTIVE', entries: 1 },
        { at: 4_000, status: 'COMPLETE' }
      ],
      { pollIntervalMs: 50 }
    )
    api.pace = { gapMs: 1_026, congested: false }
    await watch()
    expect(clock.sleeps).toEqual([1_026, 1_026, 1_026, 1_026])
    expect(events.lines.filter(line => line.startsWith('warning'))).toEqual([
      "warning poll-interval 0.05 s is faster than the service's rate limits allow one job (60 log reads per minute per token): looking at the run about every 1.0 s."
    ])
  })

  test('pages through a backlog without sleeping', async () => {
    const { api, clock, events, watch } = setUp([{ at: 0, status: 'COMPLETE', entries: 250 }])
    const result = await watch()
    expect(result.entriesSeen).toBe(250)
    expect(events.entries).toHaveLength(250)
    expect(api.calls.filter(call => call.startsWith('logs'))).toEqual([
      'logs:interface:0',
      'logs:interface:100',
      'logs:interface:200'
    ])
    // The first look waits a base (the gentle start); the backlog is then read without a sleep.
    expect(clock.sleeps).toEqual([5_000])
  })

  test('a total_logs running ahead of the entries does not make it spin', async () => {
    const { api, watch } = setUp([
      { at: 0, status: 'ACTIVE', entries: 1 },
      { at: 20_000, status: 'COMPLETE' }
    ])
    api.totalSkew = 5
    const result = await watch()
    expect(result.entriesSeen).toBe(1)
    expect(api.calls.length).toBeLessThan(10)
  })

  test('pages without a status: the run itself tells the ending', async () => {
    const { api, watch } = setUp([
      { at: 0, status: 'ACTIVE', entries: 2 },
      { at: 12_000, status: 'COMPLETE' }
    ])
    api.pageDrift = { noStatus: true }
    expect(await watch()).toMatchObject({ ending: 'ended', status: 'COMPLETE', entriesSeen: 2 })
  })

  test('falls back to the alpha log path, then to the status alone', async () => {
    const alpha = setUp([
      { at: 0, status: 'ACTIVE', entries: 1 },
      { at: 6_000, status: 'COMPLETE' }
    ])
    alpha.api.logPaths = ['alpha']
    expect((await alpha.watch()).entriesSeen).toBe(1)
    expect(alpha.api.calls.slice(0, 3)).toEqual(['logs:interface:0', 'get', 'logs:alpha:0'])

    const none = setUp([
      { at: 0, status: 'ACTIVE', entries: 1 },
      { at: 6_000, status: 'FAILED' }
    ])
    none.api.logPaths = []
    const result = await none.watch()
    expect(result).toMatchObject({ ending: 'ended', status: 'FAILED', entriesSeen: 0 })
    expect(none.events.lines.some(line => line.startsWith('warning The run log is unavailable'))).toBe(true)
  })

  test('times out at the deadline, never past it', async () => {
    const { clock, watch } = setUp([{ at: 0, status: 'ACTIVE' }], {
      deadline: new FakeClock().now() + 62_000
    })
    const start = clock.now()
    const result = await watch()
    expect(result.ending).toBe('timeout')
    expect(clock.now() - start).toBeLessThanOrEqual(62_000)
  })

  test('says an unknown status once and a heartbeat while quiet', async () => {
    const { events, watch } = setUp([
      { at: 0, status: 'WARMING_UP' },
      { at: 130_000, status: 'COMPLETE' }
    ])
    await watch()
    expect(events.lines.filter(line => line.includes('Unknown run status "WARMING_UP"'))).toHaveLength(1)
    expect(events.lines.filter(line => line.startsWith('heartbeat'))).toEqual([
      // A look every 5 s: the heartbeat comes with the look a minute after the last progress (the
      // first look, 5 s in, saw the status).
      'heartbeat 65000 WARMING_UP 0',
      'heartbeat 125000 WARMING_UP 0'
    ])
  })

  describe('after a resume', () => {
    /** A run resumed just now that still shows its earlier ending, COMPLETE with result 'result'. */
    const afterResume: Resumed = {
      earlierEntries: 3,
      initialStatus: 'COMPLETE',
      resumedAt: new FakeClock().now(),
      earlierResult: 'result'
    }
    test('the earlier ending is not taken for the new one', async () => {
      const { events, watch, clock } = setUp(
        [
          { at: 0, status: 'COMPLETE', entries: 3 },
          { at: 15_000, status: 'ACTIVE' },
          { at: 25_000, entries: 2 },
          { at: 40_000, status: 'COMPLETE' }
        ],
        { earlierEntries: 3, initialStatus: 'COMPLETE', resumedAt: new FakeClock().now() }
      )
      const start = clock.now()
      const result = await watch()
      expect(result.entriesSeen).toBe(2)
      expect(clock.now() - start).toBeGreaterThanOrEqual(40_000)
      expect(events.lines).toContain('status COMPLETE -> ACTIVE')
    })

    test('new entries also prove the run restarted', async () => {
      const { watch, clock } = setUp(
        [
          { at: 0, status: 'COMPLETE', entries: 3 },
          { at: 11_000, entries: 1 }
        ],
        { earlierEntries: 3, initialStatus: 'COMPLETE', resumedAt: new FakeClock().now() }
      )
      const start = clock.now()
      expect((await watch()).entriesSeen).toBe(1)
      expect(clock.now() - start).toBeLessThan(20_000)
    })

    test('an earlier ending that lasts past the grace period ends the wait, flagged as no restart', async () => {
      const { watch, clock } = setUp([{ at: 0, status: 'COMPLETE', entries: 3 }], {
        earlierEntries: 3,
        initialStatus: 'COMPLETE',
        resumedAt: new FakeClock().now(),
        earlierResult: 'result'
      })
      const start = clock.now()
      const result = await watch()
      expect(result).toMatchObject({ ending: 'ended', status: 'COMPLETE', entriesSeen: 0, restarted: false })
      expect(clock.now() - start).toBe(30_000)
    })

    test('a new result proves a restart that ended between two polls', async () => {
      const { watch } = setUp(
        [
          { at: 0, status: 'COMPLETE', entries: 3 },
          { at: 7_000, result: 'the follow-up is done' }
        ],
        afterResume
      )
      const result = await watch()
      expect(result).toMatchObject({ restarted: true, ending: 'ended' })
      expect(result.run?.result).toBe('the follow-up is done')
    })

    test('another ending proves a restart too', async () => {
      const { watch } = setUp(
        [
          { at: 0, status: 'COMPLETE', entries: 3 },
          { at: 7_000, status: 'FAILED' }
        ],
        afterResume
      )
      expect(await watch()).toMatchObject({ restarted: true, status: 'FAILED' })
    })

    test('a restart the run shows before its log does is seen at the end of the grace period', async () => {
      const { api, watch } = setUp(
        [
          { at: 0, status: 'COMPLETE', entries: 3 },
          { at: 30_500, status: 'ACTIVE' },
          { at: 45_000, status: 'COMPLETE', result: 'the follow-up is done' }
        ],
        afterResume
      )
      api.runAheadMs = 1_000
      const result = await watch()
      expect(result).toMatchObject({ restarted: true, status: 'COMPLETE' })
      expect(result.run?.result).toBe('the follow-up is done')
    })

    test('the same ending spelled otherwise is no restart', async () => {
      const { watch } = setUp(
        [
          { at: 0, status: 'COMPLETE', entries: 3 },
          { at: 7_000, status: 'complete' },
          { at: 9_000, status: 'COMPLETED' }
        ],
        afterResume
      )
      expect(await watch()).toMatchObject({ restarted: false })
    })

    test('an unknown earlier result proves nothing', async () => {
      const { watch } = setUp([{ at: 0, status: 'COMPLETE', entries: 3 }], {
        ...afterResume,
        earlierResult: undefined
      })
      expect(await watch()).toMatchObject({ restarted: false })
    })
  })
})

describe('startRun and followRun after a resume', () => {
  const plan = (overrides: Partial<RunPlan> = {}): RunPlan => ({
    prompt: 'And the changelog',
    images: [],
    resumeRunId: 7,
    orgId: 1,
    metadata: {},
    origin: {},
    wait: true,
    pollIntervalMs: 5_000,
    ...overrides
  })
  const events: RunEvents = Object.assign(new Recorder(), { started: () => undefined })
  /** Run 7 as it ended before the resume. */
  const ENDED: Moment = { at: 0, status: 'COMPLETE', entries: 3, result: 'OLD RESULT' }

  /** Resumes run 7 of a fake service playing `moments`, and follows it to its report. */
  async function resume(
    moments: Moment[],
    overrides: Partial<RunPlan> = {},
    pageDrift: FakeApi['pageDrift'] = {},
    timeoutMs = 10 * 60_000
  ): Promise<RunReport> {
    const clock = new FakeClock()
    const api = new FakeApi(clock, moments)
    api.pageDrift = pageDrift
    const deadline = clock.now() + timeoutMs
    const apis = (() => api) as unknown as ServiceClients
    const warning = (message: string): void => events.warning(message)
    const started = await startRun(plan(overrides), {
      apis,
      clock,
      deadline,
      random: () => 0,
      warning,
      notice: warning
    })
    if (started.kind === 'not-started') return started.report
    return followRun(started, plan(overrides), { clock, deadline, events })
  }

  test('never reports the earlier result as the follow-up: no restart is an error', async () => {
    const report = await resume([ENDED])
    expect(report.outcome).toBe('error')
    expect(report.error).toMatch(/did not restart after the resume/)
    expect(report.run).toMatchObject({ id: 7, result: null, summary: null, github_pull_requests: [] })
    expect(report.status).toBe('COMPLETE')
  })

  test('a log endpoint that drops the result cannot pass the earlier one off as new', async () => {
    const report = await resume([ENDED], {}, { nullResult: true })
    expect(report.outcome).toBe('error')
    expect(report.run?.result).toBeNull()
  })

  test('pages without a status: new entries do not end a resumed run that still shows its earlier ending', async () => {
    const report = await resume(
      [
        ENDED,
        { at: 5_000, status: 'ACTIVE', entries: 1 },
        { at: 20_000, entries: 1 },
        { at: 21_000, status: 'COMPLETE', result: 'NEW RESULT' }
      ],
      {},
      { noStatus: true }
    )
    expect(report).toMatchObject({ outcome: 'success', entriesSeen: 2 })
    expect(report.run?.result).toBe('NEW RESULT')
    expect(report.endedAt - report.startedAt).toBeGreaterThanOrEqual(21_000)
  })

  test('a resume that is not waited for reports no earlier result', async () => {
    const report = await resume([ENDED], { wait: false })
    expect(report.outcome).toBe('started')
    expect(report.run).toMatchObject({ id: 7, result: null, summary: null })
  })

  test('a timeout before the run restarts reports no result either', async () => {
    const report = await resume([{ ...ENDED, status: 'FAILED' }], {}, {}, 12_000)
    expect(report.outcome).toBe('timeout')
    expect(report.run?.result).toBeNull()
  })

  test('a run that restarts and ends is reported with its new result', async () => {
    const report = await resume([
      ENDED,
      { at: 10_000, status: 'ACTIVE', entries: 1 },
      { at: 20_000, status: 'COMPLETE', result: 'NEW RESULT' }
    ])
    expect(report).toMatchObject({ outcome: 'success', entriesSeen: 1 })
    expect(report.run?.result).toBe('NEW RESULT')
  })
})

describe('decide: what the watcher does after each read (pure)', () => {
  const state = (fields: Partial<WatchState>): WatchState => ({
    startedAt: 0,
    status: 'ACTIVE',
    cursor: 0,
    guard: { restarted: true },
    endSeen: 'no',
    lastRead: { kind: 'page', more: false, hadStatus: true },
    lookAt: 0,
    looksDone: 9,
    lastProgressAt: 0,
    lastHeartbeatAt: 0,
    unknownStatuses: new Set(),
    paceNoticed: false,
    ...fields
  })
  const page = (more: boolean, hadStatus = true): WatchState['lastRead'] => ({
    kind: 'page',
    more,
    hadStatus
  })

  test('a working run: a backlog is read at once, a quiet log waits', () => {
    expect(decide(state({ lastRead: page(true) }), false, true)).toEqual({ kind: 'read-page' })
    expect(decide(state({ lastRead: page(false) }), false, true)).toEqual({ kind: 'wait' })
    expect(decide(state({ lastRead: { kind: 'run' } }), false, false)).toEqual({ kind: 'wait' })
  })

  test('a page without a status sends us to the run, unless more pages wait', () => {
    expect(decide(state({ lastRead: page(false, false) }), false, true)).toEqual({ kind: 'read-run' })
    expect(decide(state({ lastRead: page(true, false) }), false, true)).toEqual({ kind: 'read-page' })
  })

  test('an end seen on a page stops once the backlog is read', () => {
    const ended = { status: 'COMPLETE', endSeen: 'with-log' as const }
    expect(decide(state({ ...ended, lastRead: page(true) }), false, true)).toEqual({ kind: 'read-page' })
    expect(decide(state({ ...ended, lastRead: page(false) }), false, true)).toEqual({ kind: 'stop' })
    // A status-less page read after the end is known needs no further run read.
    expect(decide(state({ ...ended, lastRead: page(false, false) }), false, true)).toEqual({ kind: 'stop' })
  })

  test('an end learnt from the run sends us to the log once more, for what it wrote before', () => {
    const byRun = state({ status: 'FAILED', endSeen: 'by-run', lastRead: { kind: 'run' } })
    expect(decide(byRun, false, true)).toEqual({ kind: 'read-page' })
    // Without a log there is nothing more to read.
    expect(decide({ ...byRun, endSeen: 'with-log' }, false, false)).toEqual({ kind: 'stop' })
  })

  test('a resumed run still showing its earlier ending: waits out the grace, looks at the run once, gives up', () => {
    const stale = state({ status: 'COMPLETE', guard: { restarted: false } })
    expect(decide(stale, false, true)).toEqual({ kind: 'wait' })
    expect(decide(stale, true, true)).toEqual({ kind: 'read-run' })
    expect(decide({ ...stale, lastRead: { kind: 'run' } }, true, true)).toEqual({ kind: 'stop' })
  })

  test('what proves a restart: a working status, another kind of ending, new entries, a new result', () => {
    const waiting: ResumeGuard = { restarted: false, resumedAt: 0, earlierResult: 'old' }
    const restarted = (seen: Parameters<typeof sees>[1]): boolean => sees(waiting, seen).restarted
    expect(restarted({ before: 'COMPLETE', status: 'ACTIVE' })).toBe(true)
    expect(restarted({ before: 'COMPLETE', status: 'FAILED' })).toBe(true)
    expect(restarted({ before: 'COMPLETE', status: 'completed' })).toBe(false)
    expect(restarted({ before: 'COMPLETE', status: null })).toBe(false)
    expect(restarted({ before: null, status: 'COMPLETE' })).toBe(false)
    expect(restarted({ before: 'COMPLETE', entries: 1 })).toBe(true)
    expect(restarted({ before: 'COMPLETE', result: 'new' })).toBe(true)
    expect(restarted({ before: 'COMPLETE', result: 'old' })).toBe(false)
    // An unknown earlier result proves nothing; a restart once seen stays seen.
    expect(sees({ restarted: false }, { before: 'COMPLETE', result: 'new' }).restarted).toBe(false)
    expect(sees({ restarted: true }, { before: 'COMPLETE', status: 'COMPLETE' }).restarted).toBe(true)
  })

  test('advance: a page of entries moves the cursor, says them, and proves a restart', () => {
    const plan: WatchPlan = {
      runId: 7,
      deadline: 0,
      pollIntervalMs: 5_000,
      earlierEntries: 3,
      initialStatus: 'COMPLETE',
      guard: { restarted: false, resumedAt: 0 }
    }
    const before = initialState(plan, 0)
    const entry = { agent_run_id: 7, message_type: 'FINAL_ANSWER' }
    const page = { logs: [entry], status: 'COMPLETE', totalLogs: 4, result: null, full: false }
    const next = advance(before, { kind: 'page', page }, { now: 9, graceEndsAt: 30_000, logsAvailable: true })
    expect(next.said).toEqual([{ kind: 'entries', entries: [entry], firstIndex: 3 }])
    expect(next.state).toMatchObject({
      cursor: 4,
      guard: { restarted: true },
      finalAnswerAt: 9,
      endSeen: 'with-log'
    })
    expect(next.step).toEqual({ kind: 'stop' })
    // The state it came from is left as it was.
    expect(before).toMatchObject({ cursor: 3, guard: { restarted: false }, endSeen: 'no' })
  })

  test('advance: an unknown status is said once, as a warning', () => {
    const plan: WatchPlan = {
      runId: 7,
      deadline: 0,
      pollIntervalMs: 5_000,
      earlierEntries: 0,
      initialStatus: 'ACTIVE',
      guard: { restarted: true }
    }
    const context = { now: 0, graceEndsAt: 0, logsAvailable: false }
    const run = { id: 7, organization_id: 1, status: 'WARMING_UP' }
    const first = advance(initialState(plan, 0), { kind: 'run', run }, context)
    expect(first.said).toEqual([
      { kind: 'status', from: 'ACTIVE', to: 'WARMING_UP' },
      { kind: 'warning', message: 'Unknown run status "WARMING_UP": treating it as still working.' }
    ])
    expect(advance(first.state, { kind: 'run', run }, context).said).toEqual([])
  })

  test('endWatch: an ended watch keeps the ending it saw, on a copy of the run', () => {
    const plan: WatchPlan = {
      runId: 7,
      deadline: 0,
      pollIntervalMs: 5_000,
      earlierEntries: 0,
      initialStatus: 'COMPLETE',
      guard: { restarted: true }
    }
    const run = { id: 7, organization_id: 1, status: 'ACTIVE' }
    const result = endWatch(initialState(plan, 0), 'ended', run, 0)
    expect(result.run?.status).toBe('COMPLETE')
    expect(run.status).toBe('ACTIVE')
    expect(endWatch(initialState(plan, 0), 'timeout', run, 0).status).toBe('ACTIVE')
  })

  test('a heartbeat a minute after the last progress, then each minute', () => {
    const quiet = state({ lastProgressAt: 0, lastHeartbeatAt: 0 })
    expect(heartbeatDue(quiet, 59_999)).toBe(false)
    expect(heartbeatDue(quiet, 60_000)).toBe(true)
    expect(heartbeatDue({ ...quiet, lastHeartbeatAt: 60_000 }, 100_000)).toBe(false)
  })
})

describe('followRun when following fails', () => {
  /** A new run 7 that writes two entries, then a log read that fails with `error`. */
  async function failing(error: Error): Promise<RunReport> {
    const clock = new FakeClock()
    const api = new FakeApi(clock, [{ at: 0, status: 'ACTIVE', entries: 2 }])
    const read = api.getLogs.bind(api)
    let reads = 0
    api.getLogs = async (...args) => {
      if (++reads > 1) throw error
      return read(...args)
    }
    const events = new Recorder()
    const run = await api.getRun(api.runId)
    const started: StartedRun = {
      kind: 'started',
      run,
      api,
      logs: new LogReader(api, run.id, message => events.warning(message)),
      earlierEntries: 0,
      guard: { restarted: true },
      base: { mode: 'create', startedAt: clock.now() }
    }
    const plan: RunPlan = {
      prompt: 'go',
      images: [],
      metadata: {},
      origin: {},
      wait: true,
      pollIntervalMs: 5_000
    }
    const listener = Object.assign(events, { started: () => undefined })
    return followRun(started, plan, { clock, deadline: clock.now() + 60_000, events: listener })
  }

  test('a service error still reports the run as last seen, with the entries mirrored', async () => {
    const report = await failing(new ServiceError('service error 500', 500))
    expect(report).toMatchObject({
      outcome: 'error',
      error: 'service error 500',
      status: 'ACTIVE',
      entriesSeen: 2
    })
    expect(report.run).toMatchObject({ id: 7, status: 'ACTIVE' })
  })

  test('an unexpected error ends as a report too, its message only', async () => {
    const report = await failing(new TypeError('boom'))
    expect(report).toMatchObject({
      outcome: 'error',
      error: 'Unexpected error while following the run: boom'
    })
  })
})
