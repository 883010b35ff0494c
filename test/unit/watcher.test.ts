import { LogReader } from '../../src/agent-run/log-reader.js'
import type { ResumeGuard, WatchPlan } from '../../src/agent-run/watch-step.js'
import { RunWatcher } from '../../src/agent-run/watcher.js'
import { FakeApi, type Moment } from '../support/fake-api.js'
import { FakeClock } from '../support/fake-clock.js'
import { Recorder } from '../support/watch-recorder.js'

/** RunWatcher: one run's log and status read on the fake service and clock until it ends. */

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
