import { followRun } from '../../../src/agent-run/follow.js'
import { LogReader } from '../../../src/agent-run/log-reader.js'
import { startRun, type StartedRun } from '../../../src/agent-run/start.js'
import type { RunEvents, RunBrief, RunReport } from '../../../src/model.js'
import type { FaultRule, ScriptStep } from '../../../emulator/index.js'
import { entries, ScriptedWorld } from '../../support/scripted-service.js'
import { Recorder } from '../../support/watch-recorder.js'

describe('follow', () => {
  /**
   * followRun: a started run followed to its report, on the emulator (its runs and their follow-ups
   * scripted) over loopback, on the virtual clock. Its watch: watcher.ts.
   */

  const world = new ScriptedWorld()

  /** Every log read of the test answered otherwise (the ALPHA endpoint's drift). */
  const everyPage = (mutate: (body: Record<string, unknown>) => Record<string, unknown>): FaultRule => ({
    route: ['logs', 'logs-alpha'],
    times: Number.MAX_SAFE_INTEGER,
    fault: { kind: 'drift', mutate }
  })

  describe('startRun and followRun after a resume', () => {
    const brief = (resumeRunId: number, overrides: Partial<RunBrief> = {}): RunBrief => ({
      prompt: 'And the changelog',
      images: [],
      resumeRunId,
      orgId: 1,
      metadata: {},
      origin: {},
      wait: true,
      pollIntervalMs: 5_000,
      ...overrides
    })
    /** The run as it ended before the resume. */
    const ended = (status = 'COMPLETE'): ScriptStep[] => [
      { at: 0, status, result: 'OLD RESULT' },
      ...entries(0, 3)
    ]

    /**
     * Resumes a run that ended as `earlier` says; the service answers the follow-up with `followUp`
     * (none: the run goes on showing its earlier ending); follows it to its report.
     */
    async function resume(
      followUp: ScriptStep[],
      options: {
        earlier?: ScriptStep[]
        overrides?: Partial<RunBrief>
        faults?: FaultRule[]
        timeoutMs?: number
      } = {}
    ): Promise<RunReport & { runId: number }> {
      const { earlier = ended(), overrides = {}, faults = [], timeoutMs = 10 * 60_000 } = options
      const clock = world.clock
      const service = await world.service()
      const runId = service.seed({ steps: earlier })
      service.emulator.queueScript({ steps: followUp })
      service.emulator.injectFaults(...faults)
      const events: RunEvents = Object.assign(new Recorder(), { started: () => undefined })
      const deadline = clock.now() + timeoutMs
      const warning = (message: string): void => events.warning(message)
      const report = await clock.run(async () => {
        const started = await startRun(brief(runId, overrides), {
          apis: service.apis,
          clock,
          deadline,
          random: () => 0,
          warning,
          notice: warning
        })
        if (started.kind === 'not-started') return started.report
        return followRun(started, brief(runId, overrides), { clock, deadline, events })
      })
      // The follow-up was sent, once.
      expect(service.emulator.run(runId)?.resumes.map(resumed => resumed.prompt)).toEqual([
        expect.stringMatching(/^And the changelog/)
      ])
      return { ...report, runId }
    }

    test('never reports the earlier result as the follow-up: no restart is an error', async () => {
      const report = await resume([])
      expect(report.outcome).toBe('error')
      expect(report.error).toMatch(/did not restart after the resume/)
      expect(report.run).toMatchObject({
        id: report.runId,
        result: null,
        summary: null,
        github_pull_requests: []
      })
      expect(report.status).toBe('COMPLETE')
    })

    test('a log endpoint that drops the result cannot pass the earlier one off as new', async () => {
      const report = await resume([], { faults: [everyPage(body => ({ ...body, result: null }))] })
      expect(report.outcome).toBe('error')
      expect(report.run?.result).toBeNull()
    })

    test('pages without a status: new entries do not end a resumed run that still shows its earlier ending', async () => {
      const report = await resume(
        [
          { at: 5_000, status: 'ACTIVE' },
          ...entries(5_000, 1, 3),
          ...entries(20_000, 1, 4),
          { at: 21_000, status: 'COMPLETE', result: 'NEW RESULT' }
        ],
        { faults: [everyPage(body => ({ ...body, status: null }))] }
      )
      expect(report).toMatchObject({ outcome: 'success', entriesSeen: 2 })
      expect(report.run?.result).toBe('NEW RESULT')
      expect(report.endedAt - report.startedAt).toBeGreaterThanOrEqual(21_000)
    })

    test('a resume that is not waited for reports no earlier result', async () => {
      const report = await resume([], { overrides: { wait: false } })
      expect(report.outcome).toBe('started')
      expect(report.run).toMatchObject({ id: report.runId, result: null, summary: null })
    })

    test('a timeout before the run restarts reports no result either', async () => {
      const report = await resume([], { earlier: ended('FAILED'), timeoutMs: 12_000 })
      expect(report.outcome).toBe('timeout')
      expect(report.run?.result).toBeNull()
    })

    test('a run that restarts and ends is reported with its new result', async () => {
      const report = await resume([
        { at: 10_000, status: 'ACTIVE' },
        ...entries(10_000, 1, 3),
        { at: 20_000, status: 'COMPLETE', result: 'NEW RESULT' }
      ])
      expect(report).toMatchObject({ outcome: 'success', entriesSeen: 1 })
      expect(report.run?.result).toBe('NEW RESULT')
    })
  })

  describe('followRun when following fails', () => {
    /** A new run that writes two entries, followed with `events` (default: a recorder); faults first. */
    async function follow(options: { faults?: FaultRule[]; events?: Recorder } = {}) {
      const clock = world.clock
      const { api, emulator, seed } = await world.service()
      const runId = seed({ steps: [{ at: 0, status: 'ACTIVE' }, ...entries(0, 2)] })
      emulator.injectFaults(...(options.faults ?? []))
      const events = options.events ?? new Recorder()
      const brief: RunBrief = {
        prompt: 'go',
        images: [],
        metadata: {},
        origin: {},
        wait: true,
        pollIntervalMs: 5_000
      }
      const listener = Object.assign(events, { started: () => undefined })
      const report = await clock.run(async () => {
        const run = await api.getRun(runId)
        const started: StartedRun = {
          kind: 'started',
          run,
          api,
          logs: new LogReader(api, run.id, message => events.warning(message)),
          earlierEntries: 0,
          guard: { restarted: true },
          base: { mode: 'create', startedAt: clock.now() }
        }
        return followRun(started, brief, { clock, deadline: clock.now() + 60_000, events: listener })
      })
      return { report, runId, emulator }
    }

    test('a service error still reports the run as last seen, with the entries mirrored', async () => {
      // The first log read answers; every read after it fails, 500 after 500.
      const { report, runId, emulator } = await follow({
        faults: [
          { route: 'logs', after: 1, times: Number.MAX_SAFE_INTEGER, fault: { kind: 'status', status: 500 } }
        ]
      })
      expect(report).toMatchObject({
        outcome: 'error',
        error: `Could not read the log of agent run ${runId} after 6 attempts: service error 500: Internal Server Error`,
        status: 'ACTIVE',
        entriesSeen: 2
      })
      expect(report.run).toMatchObject({ id: runId, status: 'ACTIVE' })
      expect(
        emulator.requests.filter(request => request.route === 'logs').map(request => request.status)
      ).toEqual([200, ...Array<number>(6).fill(500)])
    })

    test('an unexpected error ends as a report too, its message only', async () => {
      // Nothing the service answers throws one past the client (an unreadable answer is a failed
      // read): a reporter that breaks on the entries does.
      const breaking = new Recorder()
      breaking.newEntries = () => {
        throw new TypeError('boom')
      }
      const { report } = await follow({ events: breaking })
      expect(report).toMatchObject({
        outcome: 'error',
        error: 'Unexpected error while following the run: boom'
      })
    })
  })
})
