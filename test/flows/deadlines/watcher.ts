import { LogReader } from '../../../src/agent-run/log-reader.js'
import { paceNotice } from '../../../src/agent-run/pacing.js'
import type { ResumeGuard, WatchBrief } from '../../../src/agent-run/watch-state.js'
import { RunWatcher } from '../../../src/agent-run/watcher.js'
import type { EmulatorOptions, FaultRule, RunScript, ScriptStep } from '../../../emulator/index.js'
import { entries, finalAnswer, ScriptedWorld, shownAt } from '../../support/scripted-service.js'
import { Recorder } from '../../support/watch-recorder.js'

describe('watcher', () => {
  /**
   * RunWatcher: one run's log and status read until it ends, on the emulator (its run scripted) over
   * loopback with the real client, on the virtual clock. The watcher's own waits between looks are
   * read from the clock it is handed; the test clock also counts every request's time limit.
   */

  const world = new ScriptedWorld()

  /** The brief's fields a test sets. */
  interface Given {
    earlierEntries?: number
    initialStatus?: string | null
    /** A run resumed as the watch starts, not yet seen restarted. */
    resumed?: true
    earlierResult?: string | null
    /** ms from the watch's start. */
    deadlineMs?: number
    pollIntervalMs?: number
  }

  /** Every page of the run's log, on either route, its body changed by `mutate` (the endpoint's drift). */
  const driftingLog = (mutate: (body: Record<string, unknown>) => Record<string, unknown>): FaultRule => ({
    route: ['logs', 'logs-alpha'],
    times: Number.MAX_SAFE_INTEGER,
    fault: { kind: 'drift', mutate }
  })

  /** A run following `steps` from now, and its watch (`watch()` runs it on the clock). */
  async function setUp(steps: ScriptStep[], given: Given = {}, options: EmulatorOptions = {}) {
    const { resumed, earlierResult, deadlineMs = 60 * 60_000, ...brief } = given
    const clock = world.clock
    const guard: ResumeGuard = !resumed
      ? { restarted: true }
      : { restarted: false, resumedAt: clock.now(), ...('earlierResult' in given ? { earlierResult } : {}) }
    const service = await world.service(options)
    const script: RunScript = { steps }
    const runId = service.seed(script)
    const events = new Recorder()
    const logs = new LogReader(service.api, runId, message => events.warning(message))
    const looks = world.looking()
    const watcher = new RunWatcher(looks)
    const fullBrief: WatchBrief = {
      runId,
      deadline: clock.now() + deadlineMs,
      pollIntervalMs: 5_000,
      earlierEntries: 0,
      initialStatus: 'ACTIVE',
      guard,
      ...brief
    }
    const start = clock.now()
    return {
      ...service,
      runId,
      script,
      start,
      events,
      /** The watcher's waits between looks. */
      looks: looks.sleeps,
      watch: () => clock.run(() => watcher.watch(fullBrief, { api: service.api, logs }, events))
    }
  }

  describe('RunWatcher', () => {
    test('mirrors each entry once, in order, and ends on the terminal status', async () => {
      const { calls, events, watch } = await setUp([
        { at: 0, status: 'ACTIVE' },
        ...entries(0, 2),
        ...entries(12_000, 3, 2),
        finalAnswer(30_000),
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
      const skips = calls()
        .filter(call => call.startsWith('logs'))
        .map(call => Number(call.split(':')[2]))
      expect(skips).toEqual([...skips].sort((a, b) => a - b))
      // A quiet poll costs one request; the run is read once, at the end.
      expect(calls().filter(call => call === 'get')).toHaveLength(1)
    })

    test('looks every poll-interval while entries flow, then every second once a FINAL_ANSWER is seen', async () => {
      const { looks, watch } = await setUp([
        { at: 0, status: 'ACTIVE' },
        ...entries(0, 1),
        ...entries(4_000, 2, 1),
        finalAnswer(9_000),
        { at: 15_500, status: 'COMPLETE' }
      ])
      await watch()
      expect(looks).toEqual([5_000, 5_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000])
    })

    test('starts gently below a base of 4 s: the first look 4 s in, then 2 s, then every base', async () => {
      const { calls, looks, watch } = await setUp(
        [{ at: 0, status: 'ACTIVE' }, ...entries(0, 1), { at: 9_500, status: 'COMPLETE' }],
        { pollIntervalMs: 1_000 }
      )
      await watch()
      expect(looks).toEqual([4_000, 2_000, 1_000, 1_000, 1_000, 1_000])
      // Looks at 4, 6, 7, 8, 9 and 10 s, and the final read: the end, 9.5 s in, is seen within a base.
      expect(calls()).toHaveLength(7)
    })

    test('looks every poll-interval while the run is quiet: a quiet end is seen within one base', async () => {
      const { calls, looks, start, watch } = await setUp([
        { at: 0, status: 'ACTIVE' },
        ...entries(0, 1),
        ...entries(50_000, 1, 1),
        { at: 61_000, status: 'ERROR' }
      ])
      await watch()
      expect(looks).toEqual(Array(13).fill(5_000))
      // Seen at the look 65 s in: 4 s after the end, within one base.
      expect(world.clock.now() - start).toBe(65_000)
      // One request per look (13 looks, at 5 s to 65 s: the first waits a base too), and the final read.
      expect(calls()).toHaveLength(14)
    })

    test('the budget holds the looks back past poll-interval only with one notice saying so', async () => {
      const { calls, looks, events, watch } = await setUp(
        [{ at: 0, status: 'ACTIVE' }, ...entries(0, 1), { at: 4_000, status: 'COMPLETE' }],
        { pollIntervalMs: 50 }
      )
      await watch()
      // The gentle start, then poll-interval while the client's log window is fresh (ten reads, 200 to
      // 700 ms in); then what is left of it, spread until it frees: 59 reads a minute (one kept for the
      // end), 49 left, the first leaving the window 60.5 s after it (the skew margin), so
      // (200 + 60_500 - 700) / 49, 1225 ms a look. The end, 4 s in, is seen at the third such look.
      const paced = 1_225
      expect(looks).toEqual([200, 100, ...Array<number>(8).fill(50), paced, paced, paced])
      expect(events.lines.filter(line => line.startsWith('warning'))).toEqual([
        `warning ${paceNotice(50, { gapMs: paced, congested: false })}`
      ])
      expect(calls()).toEqual(['logs:interface:0', ...Array<string>(12).fill('logs:interface:1'), 'get'])
    })

    test('pages through a backlog without sleeping', async () => {
      const { calls, events, looks, watch } = await setUp([{ at: 0, status: 'COMPLETE' }, ...entries(0, 250)])
      const result = await watch()
      expect(result.entriesSeen).toBe(250)
      expect(events.entries).toHaveLength(250)
      expect(calls().filter(call => call.startsWith('logs'))).toEqual([
        'logs:interface:0',
        'logs:interface:100',
        'logs:interface:200'
      ])
      // The first look waits a base (the gentle start); the backlog is then read without a sleep.
      expect(looks).toEqual([5_000])
    })

    test('a total_logs running ahead of the entries does not make it spin', async () => {
      const { calls, emulator, watch } = await setUp([
        { at: 0, status: 'ACTIVE' },
        ...entries(0, 1),
        { at: 20_000, status: 'COMPLETE' }
      ])
      emulator.injectFaults(driftingLog(body => ({ ...body, total_logs: Number(body.total_logs) + 5 })))
      const result = await watch()
      expect(result.entriesSeen).toBe(1)
      expect(calls().length).toBeLessThan(10)
    })

    test('pages without a status: the run itself tells the ending', async () => {
      const { emulator, watch } = await setUp([
        { at: 0, status: 'ACTIVE' },
        ...entries(0, 2),
        { at: 12_000, status: 'COMPLETE' }
      ])
      emulator.injectFaults(driftingLog(body => ({ ...body, status: null })))
      expect(await watch()).toMatchObject({ ending: 'ended', status: 'COMPLETE', entriesSeen: 2 })
    })

    test('falls back to the alpha log path, then to the status alone', async () => {
      const alpha = await setUp(
        [{ at: 0, status: 'ACTIVE' }, ...entries(0, 1), { at: 6_000, status: 'COMPLETE' }],
        {},
        { logPaths: ['alpha'] }
      )
      expect((await alpha.watch()).entriesSeen).toBe(1)
      expect(alpha.calls().slice(0, 3)).toEqual(['logs:interface:0', 'get', 'logs:alpha:0'])

      const none = await setUp(
        [{ at: 0, status: 'ACTIVE' }, ...entries(0, 1), { at: 6_000, status: 'FAILED' }],
        {},
        { logPaths: [] }
      )
      const result = await none.watch()
      expect(result).toMatchObject({ ending: 'ended', status: 'FAILED', entriesSeen: 0 })
      expect(none.events.lines.some(line => line.startsWith('warning The run log is unavailable'))).toBe(true)
    })

    test('times out at the deadline, never past it', async () => {
      const { start, watch } = await setUp([{ at: 0, status: 'ACTIVE' }], { deadlineMs: 62_000 })
      const result = await watch()
      expect(result.ending).toBe('timeout')
      expect(world.clock.now() - start).toBe(62_000)
    })

    test('says an unknown status once and a heartbeat while quiet', async () => {
      const { events, watch } = await setUp([
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
      /** The earlier ending, still shown: COMPLETE with 3 entries and the result 'result'. */
      const ENDED: ScriptStep[] = [{ at: 0, status: 'COMPLETE', result: 'result' }, ...entries(0, 3)]
      /** A run resumed just now that still shows its earlier ending, its earlier result known. */
      const afterResume: Given = {
        earlierEntries: 3,
        initialStatus: 'COMPLETE',
        resumed: true,
        earlierResult: 'result'
      }

      test('the earlier ending is not taken for the new one', async () => {
        const { events, start, watch } = await setUp(
          [
            ...ENDED,
            { at: 15_000, status: 'ACTIVE' },
            ...entries(25_000, 2, 3),
            { at: 40_000, status: 'COMPLETE' }
          ],
          { earlierEntries: 3, initialStatus: 'COMPLETE', resumed: true }
        )
        const result = await watch()
        expect(result.entriesSeen).toBe(2)
        expect(world.clock.now() - start).toBeGreaterThanOrEqual(40_000)
        expect(events.lines).toContain('status COMPLETE -> ACTIVE')
      })

      test('new entries also prove the run restarted', async () => {
        const { start, watch } = await setUp([...ENDED, ...entries(11_000, 1, 3)], {
          earlierEntries: 3,
          initialStatus: 'COMPLETE',
          resumed: true
        })
        expect((await watch()).entriesSeen).toBe(1)
        expect(world.clock.now() - start).toBeLessThan(20_000)
      })

      test('an earlier ending that lasts past the grace period ends the wait, flagged as no restart', async () => {
        const { start, watch } = await setUp(ENDED, afterResume)
        const result = await watch()
        expect(result).toMatchObject({
          ending: 'ended',
          status: 'COMPLETE',
          entriesSeen: 0,
          restarted: false
        })
        expect(world.clock.now() - start).toBe(30_000)
      })

      test('a new result proves a restart that ended between two polls', async () => {
        const { watch } = await setUp([...ENDED, { at: 7_000, result: 'the follow-up is done' }], afterResume)
        const result = await watch()
        expect(result).toMatchObject({ restarted: true, ending: 'ended' })
        expect(result.run?.result).toBe('the follow-up is done')
      })

      test('another ending proves a restart too', async () => {
        const { watch } = await setUp([...ENDED, { at: 7_000, status: 'FAILED' }], afterResume)
        expect(await watch()).toMatchObject({ restarted: true, status: 'FAILED' })
      })

      test('a restart the run shows before its log does is seen at the end of the grace period', async () => {
        const { emulator, script, start, watch } = await setUp(
          [
            ...ENDED,
            { at: 29_500, status: 'ACTIVE' },
            { at: 44_000, status: 'COMPLETE', result: 'the follow-up is done' }
          ],
          afterResume
        )
        // The log endpoint lags a second behind the run's: 30 s in, its page still shows the earlier
        // ending when the run, read at the end of the grace period, shows it working (since 29.5 s).
        emulator.injectFaults(
          driftingLog(body => ({ ...body, ...shownAt(script, world.clock.now() - start - 1_000) }))
        )
        const result = await watch()
        expect(result).toMatchObject({ restarted: true, status: 'COMPLETE' })
        expect(result.run?.result).toBe('the follow-up is done')
        // The run was read at the end of the grace period, its log still showing the earlier ending.
        expect(emulator.requests.find(request => request.route === 'get')?.at).toBe(start + 30_000)
      })

      test('the same ending spelled otherwise is no restart', async () => {
        const { watch } = await setUp(
          [...ENDED, { at: 7_000, status: 'complete' }, { at: 9_000, status: 'COMPLETED' }],
          afterResume
        )
        expect(await watch()).toMatchObject({ restarted: false })
      })

      test('an unknown earlier result proves nothing', async () => {
        const { watch } = await setUp(ENDED, { ...afterResume, earlierResult: undefined })
        expect(await watch()).toMatchObject({ restarted: false })
      })
    })
  })
})
