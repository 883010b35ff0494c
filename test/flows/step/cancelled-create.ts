import { scenario, type FaultRule } from '../../../emulator/index.js'
import { classifyStatus } from '../../../src/agent-run/status.js'
import { readerText } from '../../../scripts/render-markdown.js'
import {
  action,
  clock,
  consoleLines,
  emulator,
  routes,
  startEmulatorAsIs
} from '../../support/action-world.js'
import type { AnsweredRequest } from '../../support/virtual-clock.js'

describe('cancelled-create', () => {
  /**
   * A run the service created or resumed while the job was being cancelled (issue #34): the create's
   * (or the resume's) answer is lost to the cancellation, yet the run works at Codegen. The step looks
   * it up by the idempotency key its metadata carries, stops it as stop-run-on says, and reports it.
   */

  beforeEach(async () => {
    await startEmulatorAsIs()
  })

  /** Cancels the job (SIGINT) while the answer to the first request `which` picks is on its way back. */
  function cancelOn(which: (request: AnsweredRequest) => boolean) {
    let wanted = false
    let done = false
    clock().onAnswered = request => {
      if (done || !which(request)) return undefined
      done = true
      wanted = true
      return clock().advance(0)
    }
    return { terminateAfterMs: 0, terminateWhen: () => wanted, terminateSignal: 'SIGINT' as const }
  }

  const isCreate = (request: AnsweredRequest) =>
    request.method === 'POST' && request.url.pathname.endsWith('/agent/run')
  const isResume = (request: AnsweredRequest) =>
    request.method === 'POST' && request.url.pathname.endsWith('/agent/run/resume')
  /** A run's created_at as the service writes it (UTC, no zone), in epoch ms. */
  const serviceTime = (text: string) => Date.parse(`${text.replace(' ', 'T').slice(0, 23)}Z`)
  const working = () => emulator.runs().filter(run => classifyStatus(run.status) === 'working')

  describe('cancelled while the create is answered', () => {
    test('the run is found by its key, stopped, and reported in the outputs and summary', async () => {
      emulator.queueScript(scenario('endless'))
      const result = await action({}, cancelOn(isCreate))
      const [run] = emulator.runs()
      expect(run).toBeDefined()
      expect(working()).toEqual([])
      expect(emulator.requests.filter(request => request.route === 'stop')).toHaveLength(1)
      expect(result.outputs).toMatchObject({ 'agent-run-id': String(run!.id), outcome: 'cancelled' })
      expect(result.stdout).toContain(`The job was cancelled while agent run ${run!.id} was being created`)
      expect(readerText(result.summary)).toContain('The run was stopped')
      // One create: the look-up found it, nothing was sent again.
      expect(emulator.requests.filter(request => request.route === 'create')).toHaveLength(1)
    })

    test('stop-run-on: none leaves it working, and still reports it', async () => {
      emulator.queueScript(scenario('endless'))
      const result = await action({ 'stop-run-on': 'none' }, cancelOn(isCreate))
      const [run] = emulator.runs()
      expect(working()).toEqual([run])
      expect(emulator.requests.filter(request => request.route === 'stop')).toEqual([])
      expect(result.outputs).toMatchObject({ 'agent-run-id': String(run!.id), outcome: 'cancelled' })
    })

    test('wait: false stops nothing (the run was asked to go on) and reports it', async () => {
      emulator.queueScript(scenario('endless'))
      const result = await action({ wait: 'false' }, cancelOn(isCreate))
      const [run] = emulator.runs()
      expect(working()).toEqual([run])
      expect(emulator.requests.filter(request => request.route === 'stop')).toEqual([])
      expect(result.outputs['agent-run-id']).toBe(String(run!.id))
    })

    test('an item of runs: found, stopped and reported in the runs output, as the others', async () => {
      for (let i = 0; i < 3; i++) emulator.queueScript(scenario('endless'))
      let creates = 0
      const result = await action(
        { prompt: '', runs: '- prompt: one\n- prompt: two\n- prompt: three', 'max-parallel': '3' },
        cancelOn(request => isCreate(request) && ++creates === 2)
      )
      expect(emulator.runs().length).toBeGreaterThanOrEqual(2)
      expect(working()).toEqual([])
      const items = JSON.parse(result.outputs['runs'] ?? '[]') as Array<Record<string, string>>
      const reported = items.map(item => item['agent-run-id']).filter(Boolean)
      expect(reported.sort()).toEqual(
        emulator
          .runs()
          .map(run => String(run.id))
          .sort()
      )
    })

    test('nothing was created: the cancellation stands, and no run is named', async () => {
      emulator.queueScript(scenario('endless'))
      emulator.injectFaults({ route: 'create', fault: { kind: 'status', status: 503 } })
      const result = await action({}, cancelOn(isCreate))
      expect(emulator.runs()).toEqual([])
      expect(result.outputs).toMatchObject({ 'agent-run-id': '', outcome: 'cancelled' })
      expect(readerText(result.summary)).toContain('Job cancelled before an agent run started')
    })
  })

  describe('a run the service creates late (issue #43)', () => {
    /** The service's time (ms) from a create's arrival to the run it makes (a `late` fault). */
    const createdLate = (delayMs: number) =>
      emulator.injectFaults({ route: 'create', fault: { kind: 'late', delayMs } })
    /** The job cancelled (SIGINT) as the create arrives; the run made `delayMs` after it. */
    async function cancelledLate(delayMs: number, faults: FaultRule[] = []) {
      emulator.queueScript(scenario('endless'))
      createdLate(delayMs)
      emulator.injectFaults(...faults)
      const createArrived = () => routes('create').length > 0
      const result = await action(
        {},
        { terminateAfterMs: 0, terminateWhen: createArrived, terminateSignal: 'SIGINT' }
      )
      return { result, cancelledAt: routes('create')[0]!.at }
    }
    const runCreatedAt = (id: number) => serviceTime(emulator.run(id)!.created_at!)
    const lookedAt = () => routes('list-runs').map(request => request.at)

    test('created 2.3 s after SIGINT: looked for every 0.5 s, found at 2.5 s, stopped and named', async () => {
      const { result, cancelledAt } = await cancelledLate(2_300)
      const [run] = emulator.runs()
      expect(runCreatedAt(run!.id)).toBe(cancelledAt + 2_300)
      // One look each 0.5 s, while the stop and the last read keep their second of the 4 s.
      expect(lookedAt()).toEqual([0, 500, 1_000, 1_500, 2_000, 2_500].map(ms => cancelledAt + ms))
      expect(routes('stop').map(request => request.at)).toEqual([cancelledAt + 2_500])
      expect(routes('get').map(request => request.at)).toEqual([cancelledAt + 2_500])
      expect(working()).toEqual([])
      expect(result.outputs).toMatchObject({
        'agent-run-id': String(run!.id),
        outcome: 'cancelled',
        status: 'STOPPED'
      })
      expect(consoleLines(result)).toEqual(
        expect.arrayContaining([
          `Agent run ${run!.id} created: ${run!.web_url} (status ACTIVE)`,
          'The agent run was stopped: it now shows STOPPED.'
        ])
      )
      expect(result.stdout).toContain(
        `::warning::The job was cancelled while agent run ${run!.id} was being created: the run is the step's.`
      )
      const summary = readerText(result.summary)
      expect(summary).toContain(String(run!.id))
      expect(summary).toContain('The run was stopped')
      expect(result.endedAt).toBe(cancelledAt + 2_500)
      expect(routes('create')).toHaveLength(1)
    })

    test('created 3 s after SIGINT, past the last look: the cancellation stands, no run is named', async () => {
      const { result, cancelledAt } = await cancelledLate(3_000)
      expect(lookedAt()).toEqual([0, 500, 1_000, 1_500, 2_000, 2_500].map(ms => cancelledAt + ms))
      expect(result.outputs).toMatchObject({ 'agent-run-id': '', outcome: 'cancelled' })
      expect(readerText(result.summary)).toContain('Job cancelled before an agent run started')
      expect(result.endedAt).toBe(cancelledAt + 2_500)
    })

    test('its stop slow to answer: the stop and the last read end 4 s after SIGINT', async () => {
      const { result, cancelledAt } = await cancelledLate(2_300, [
        { route: 'stop', fault: { kind: 'slow', delayMs: 5_000 } }
      ])
      const [run] = emulator.runs()
      // The stop gets until 3.5 s, the last read what is left of the 4 s.
      expect(routes('stop').map(request => request.at)).toEqual([cancelledAt + 2_500])
      expect(routes('get').map(request => request.at)).toEqual([cancelledAt + 3_500])
      expect(result.outputs['agent-run-id']).toBe(String(run!.id))
      expect(result.stdout).toContain(
        `Agent run ${run!.id} could not be stopped (the service did not answer in time)`
      )
      expect(result.endedAt).toBe(cancelledAt + 3_500)
    })

    test('timeout-minutes reached with the create in flight: found until 2 s past it, stopped and named', async () => {
      emulator.queueScript(scenario('endless'))
      createdLate(16_200)
      const result = await action({ 'timeout-minutes': '0.25', 'stop-run-on': 'cancel,timeout' })
      const deadline = result.startedAt + 15_000
      const [run] = emulator.runs()
      expect(runCreatedAt(run!.id)).toBe(routes('create')[0]!.at + 16_200)
      expect(lookedAt()).toEqual([0, 500, 1_000, 1_500].map(ms => deadline + ms))
      expect(routes('stop').map(request => request.at)).toEqual([deadline + 1_500])
      expect(working()).toEqual([])
      expect(result.outputs).toMatchObject({ 'agent-run-id': String(run!.id), outcome: 'timeout' })
      expect(result.stdout).toContain(
        `::warning::timeout-minutes was reached while agent run ${run!.id} was being created: the run is the step's.`
      )
      expect(routes('create')).toHaveLength(1)
      expect(result.endedAt).toBe(deadline + 1_500)
    })
  })

  describe('a resumed run cancelled before it shows that it restarted', () => {
    async function endedRun(): Promise<number> {
      emulator.queueScript(scenario('success'))
      const first = await action({})
      expect(first.outputs['outcome']).toBe('success')
      return Number(first.outputs['agent-run-id'])
    }

    test('cancelled while the resume is answered: the step stops it', async () => {
      const runId = await endedRun()
      emulator.queueScript(scenario('endless'))
      const result = await action({ 'agent-run-id': String(runId), prompt: 'Go on' }, cancelOn(isResume))
      expect(emulator.requests.filter(request => request.route === 'stop')).toHaveLength(1)
      expect(working()).toEqual([])
      expect(result.outputs).toMatchObject({ 'agent-run-id': String(runId), outcome: 'cancelled' })
    })

    test('resumed by the service 2.3 s after SIGINT: checked every 0.5 s, seen restarted at 2.5 s, stopped', async () => {
      const runId = await endedRun()
      emulator.queueScript(scenario('endless'))
      emulator.injectFaults({ route: 'resume', fault: { kind: 'late', delayMs: 2_300 } })
      const result = await action(
        { 'agent-run-id': String(runId), prompt: 'Go on' },
        { terminateAfterMs: 0, terminateWhen: () => routes('resume').length > 0, terminateSignal: 'SIGINT' }
      )
      const cancelledAt = routes('resume')[0]!.at
      expect(emulator.run(runId)!.resumes.map(resume => resume.at)).toEqual([cancelledAt + 2_300])
      // Each check reads the log past the earlier entries: its status shows the restart.
      const afterResume = emulator.requests.slice(emulator.requests.indexOf(routes('resume')[0]!))
      const checks = afterResume.filter(request => request.route === 'logs')
      expect(checks.map(request => request.at)).toEqual(
        [0, 500, 1_000, 1_500, 2_000, 2_500].map(ms => cancelledAt + ms)
      )
      expect(routes('stop').map(request => request.at)).toEqual([cancelledAt + 2_500])
      expect(working()).toEqual([])
      expect(result.outputs).toMatchObject({
        'agent-run-id': String(runId),
        outcome: 'cancelled',
        status: 'STOPPED'
      })
      expect(consoleLines(result)).toContain('The agent run was stopped: it now shows STOPPED.')
    })

    test('cancelled as the resume is answered, its earlier ending still on display: the step stops it', async () => {
      const runId = await endedRun()
      // The service shows the earlier ending for a while after the resume, as the live one may.
      emulator.queueScript({ ...scenario('endless'), staleAfterResumeMs: 5_000 })
      let resumed = false
      clock().onAnswered = request => {
        if (isResume(request)) resumed = true
        return undefined
      }
      const result = await action(
        { 'agent-run-id': String(runId), prompt: 'Go on' },
        { terminateAfterMs: 0, terminateWhen: () => resumed, terminateSignal: 'SIGINT' }
      )
      expect(emulator.requests.filter(request => request.route === 'stop')).toHaveLength(1)
      expect(working()).toEqual([])
      expect(result.outputs).toMatchObject({ 'agent-run-id': String(runId), outcome: 'cancelled' })
    })
  })
})
