import { followRun } from '../../src/agent-run/follow.js'
import { startRun, type StartedRun } from '../../src/agent-run/start.js'
import type { ServiceClients } from '../../src/org/clients.js'
import { ServiceError } from '../../src/api/errors.js'
import { LogReader } from '../../src/agent-run/log-reader.js'
import type { RunEvents, RunPlan, RunReport } from '../../src/model.js'
import { FakeApi, type Moment } from '../support/fake-api.js'
import { FakeClock } from '../support/fake-clock.js'
import { Recorder } from '../support/watch-recorder.js'

/** followRun: a started run followed to its report, on the fake service and clock (its watch: watcher.test.ts). */

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
