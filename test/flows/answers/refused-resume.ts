import { scenario } from '../../../emulator/index.js'
import { startRun } from '../../../src/agent-run/start.js'
import type { RunBrief } from '../../../src/model.js'
import { serviceClients } from '../../../src/org/clients.js'
import { InProcessWorld, TOKEN } from '../../support/in-process-world.js'

describe('refused-resume', () => {
  /**
   * A resume the service refuses (the live service may resume paused runs only; emulator modes
   * resume-paused-only and -400): from the inputs, one error naming agent-run-id; on a thread, one
   * fresh run that carries the thread on. In process, on the virtual clock.
   */

  const world = new InProcessWorld()

  /** A run of the emulator that ended (COMPLETE) a minute ago. */
  async function endedRun(): Promise<number> {
    const id = world.emulator.addRun(null, scenario('success', 20))
    world.clock.time += 60_000
    return id
  }

  const errorLines = (lines: string[]) => lines.filter(line => line.startsWith('error:'))

  describe('agent-run-id with a prompt, refused', () => {
    test('422 (a validation body): the step fails naming agent-run-id and quoting the service; nothing created', async () => {
      await world.startEmulator({ modes: ['resume-paused-only'] })
      const runId = await endedRun()
      const { runner, failure } = await world.step({ 'agent-run-id': String(runId), 'org-id': '1' })
      expect(failure).toBe(
        `agent-run-id ${runId}: the service refused to resume this run (422): "agent_run_id: Value error, Agent run ${runId} is COMPLETE: only a paused agent run can be resumed.". ` +
          'Nothing was created. To start a fresh run instead, leave agent-run-id empty: the prompt then starts a new run.'
      )
      expect(world.routes('create')).toEqual([])
      expect(world.routes('resume').map(request => request.status)).toEqual([422])
      expect(runner.outputs).toMatchObject({ outcome: 'error', 'agent-run-id': '' })
      expect(errorLines(runner.lines)).toEqual([])
    })

    test('404 for a run that is not there, the set-up sound: the same error, no diagnosis', async () => {
      await world.startEmulator()
      const { failure } = await world.step({ 'agent-run-id': '999', 'org-id': '1' })
      expect(failure).toMatch(
        /^agent-run-id 999: the service refused to resume this run \(404\): "Agent run not found."/
      )
      // The set-up was read to tell the run's refusal from the token's: nothing was created.
      expect(world.routes('me', 'organizations', 'integrations')).toHaveLength(3)
      expect(world.routes('create')).toEqual([])
    })

    test("403 from an organization the token may not use: the set-up's problem, as any refusal", async () => {
      await world.startEmulator({ tokens: { [TOKEN]: [1] } })
      const { failure } = await world.step({ 'agent-run-id': '1000', 'org-id': '2' })
      expect(failure).not.toMatch(/^agent-run-id/)
      expect(failure).toMatch(/^org-id 2 is not among the token's organizations/)
    })
  })

  describe('a follow-up on a thread, refused', () => {
    const brief = (resumeRunId: number): RunBrief => ({
      prompt: 'also update the changelog',
      images: [],
      resumeRunId,
      orgId: 1,
      repoId: 101,
      metadata: {},
      origin: { repository: 'octo-org/octo-repo' },
      wait: true,
      pollIntervalMs: 5_000,
      carryOn: { prompt: 'also update the changelog\n\nQuoted text from the issue: …' }
    })

    async function start(resumeRunId: number) {
      const notices: string[] = []
      const apis = serviceClients(
        { baseUrl: world.emulator.baseUrl, apiToken: TOKEN },
        world.clock,
        new AbortController().signal,
        () => undefined,
        world.clock.network.service
      )
      const started = await world.clock.run(() =>
        startRun(brief(resumeRunId), {
          apis,
          clock: world.clock,
          deadline: world.clock.now() + 60_000,
          warning: message => notices.push(`warning: ${message}`),
          notice: message => notices.push(message)
        })
      )
      return { started, notices }
    }

    test.each([
      ['resume-paused-only', 422],
      ['resume-paused-only-400', 400]
    ] as const)(
      '%s: one create carrying the earlier run, a notice, the report says so',
      async (mode, status) => {
        await world.startEmulator({ modes: [mode] })
        const earlier = await endedRun()
        const { started, notices } = await start(earlier)
        expect(started.kind).toBe('started')
        if (started.kind !== 'started') return
        const [create] = world.routes('create')
        expect(world.routes('create')).toHaveLength(1)
        expect(world.routes('resume').map(request => request.status)).toEqual([status])
        const prompt = (create!.body as { prompt: string }).prompt
        expect(prompt).toMatch(
          /^also update the changelog\n\nQuoted text from the issue: …\n\nThis continues agent run /
        )
        expect(prompt).toContain(`https://app.codegen.com/agent/trace/${earlier}`)
        expect(prompt).toContain('> ## Fixed the failing parser test')
        expect(started.base).toMatchObject({
          mode: 'create',
          repoId: 101,
          carriedFrom: { runId: earlier, webUrl: `https://app.codegen.com/agent/trace/${earlier}` }
        })
        expect(started.base.carriedFrom?.reason).toMatch(new RegExp(`^the service answered ${status}: `))
        expect(notices).toEqual([
          expect.stringMatching(
            new RegExp(
              `^Agent run ${earlier} could not be resumed .*: started agent run ${started.run.id}, which carries`
            )
          )
        ])
      }
    )

    test('a 429 is not a refusal of the run: no fresh run', async () => {
      await world.startEmulator({ modes: ['resume-paused-only'] })
      const earlier = await endedRun()
      world.emulator.injectFaults({ route: 'resume', times: 20, fault: { kind: 'status', status: 429 } })
      // The refusals' waits pass in virtual time.
      const { started } = await start(earlier)
      expect(started.kind).toBe('not-started')
      expect(world.routes('create')).toEqual([])
    })
  })
})
