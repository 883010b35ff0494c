import {
  advance,
  nextMove,
  heartbeatDue,
  initialState,
  sees,
  endWatch,
  type ResumeGuard,
  type WatchBrief,
  type WatchState
} from '../../../src/agent-run/watch-state.js'

/** A brief for run 7, new and working unless `fields` say otherwise. */
const watchBrief = (fields: Partial<WatchBrief> = {}): WatchBrief => ({
  runId: 7,
  deadline: 0,
  pollIntervalMs: 5_000,
  earlierEntries: 0,
  initialStatus: 'ACTIVE',
  guard: { restarted: true },
  ...fields
})

/** What the watcher does after each read, decided without I/O (its loop: flows/deadlines/watcher.ts). */

describe('nextMove: what the watcher does after each read (pure)', () => {
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
    expect(nextMove(state({ lastRead: page(true) }), false, true)).toEqual({ kind: 'read-page' })
    expect(nextMove(state({ lastRead: page(false) }), false, true)).toEqual({ kind: 'wait' })
    expect(nextMove(state({ lastRead: { kind: 'run' } }), false, false)).toEqual({ kind: 'wait' })
  })

  test('a page without a status sends us to the run, unless more pages wait', () => {
    expect(nextMove(state({ lastRead: page(false, false) }), false, true)).toEqual({ kind: 'read-run' })
    expect(nextMove(state({ lastRead: page(true, false) }), false, true)).toEqual({ kind: 'read-page' })
  })

  test('an end seen on a page stops once the backlog is read', () => {
    const ended = { status: 'COMPLETE', endSeen: 'with-log' as const }
    expect(nextMove(state({ ...ended, lastRead: page(true) }), false, true)).toEqual({ kind: 'read-page' })
    expect(nextMove(state({ ...ended, lastRead: page(false) }), false, true)).toEqual({ kind: 'end' })
    // A status-less page read after the end is known needs no further run read.
    expect(nextMove(state({ ...ended, lastRead: page(false, false) }), false, true)).toEqual({ kind: 'end' })
  })

  test('an end learnt from the run sends us to the log once more, for what it wrote before', () => {
    const byRun = state({ status: 'FAILED', endSeen: 'by-run', lastRead: { kind: 'run' } })
    expect(nextMove(byRun, false, true)).toEqual({ kind: 'read-page' })
    // Without a log there is nothing more to read.
    expect(nextMove({ ...byRun, endSeen: 'with-log' }, false, false)).toEqual({ kind: 'end' })
  })

  test('a resumed run still showing its earlier ending: waits out the grace, looks at the run once, gives up', () => {
    const stale = state({ status: 'COMPLETE', guard: { restarted: false } })
    expect(nextMove(stale, false, true)).toEqual({ kind: 'wait' })
    expect(nextMove(stale, true, true)).toEqual({ kind: 'read-run' })
    expect(nextMove({ ...stale, lastRead: { kind: 'run' } }, true, true)).toEqual({ kind: 'end' })
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
    const brief = watchBrief({
      earlierEntries: 3,
      initialStatus: 'COMPLETE',
      guard: { restarted: false, resumedAt: 0 }
    })
    const before = initialState(brief, 0)
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
    expect(next.move).toEqual({ kind: 'end' })
    // The state it came from is left as it was.
    expect(before).toMatchObject({ cursor: 3, guard: { restarted: false }, endSeen: 'no' })
  })

  test('advance: an unknown status is said once, as a warning', () => {
    const brief = watchBrief()
    const context = { now: 0, graceEndsAt: 0, logsAvailable: false }
    const run = { id: 7, organization_id: 1, status: 'WARMING_UP' }
    const first = advance(initialState(brief, 0), { kind: 'run', run }, context)
    expect(first.said).toEqual([
      { kind: 'status', from: 'ACTIVE', to: 'WARMING_UP' },
      { kind: 'warning', message: 'Unknown run status "WARMING_UP": treating it as still working.' }
    ])
    expect(advance(first.state, { kind: 'run', run }, context).said).toEqual([])
  })

  test('endWatch: an ended watch keeps the ending it saw, on a copy of the run', () => {
    const brief = watchBrief({ initialStatus: 'COMPLETE' })
    const run = { id: 7, organization_id: 1, status: 'ACTIVE' }
    const result = endWatch(initialState(brief, 0), 'ended', run, 0)
    expect(result.run?.status).toBe('COMPLETE')
    expect(run.status).toBe('ACTIVE')
    expect(endWatch(initialState(brief, 0), 'timeout', run, 0).status).toBe('ACTIVE')
  })

  test('a heartbeat a minute after the last progress, then each minute', () => {
    const quiet = state({ lastProgressAt: 0, lastHeartbeatAt: 0 })
    expect(heartbeatDue(quiet, 59_999)).toBe(false)
    expect(heartbeatDue(quiet, 60_000)).toBe(true)
    expect(heartbeatDue({ ...quiet, lastHeartbeatAt: 60_000 }, 100_000)).toBe(false)
  })
})
