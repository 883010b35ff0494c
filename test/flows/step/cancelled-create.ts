import { scenario } from '../../../emulator/index.js'
import { classifyStatus } from '../../../src/agent-run/status.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { action, clock, emulator, startEmulatorAsIs } from '../../support/action-world.js'
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
