import type { RunScript } from '../../../emulator/index.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { InProcessWorld } from '../../support/in-process-world.js'

describe('repair-cannot-start', () => {
  /**
   * A repair that cannot start (the step's time runs out before it, or the service refuses to resume
   * the run): the completed run stays in the outputs, with the ending the step came to. In process,
   * on the virtual clock.
   */

  const world = new InProcessWorld()

  const PULL_REQUEST = {
    id: 7,
    title: 'Rename parseLine',
    url: 'https://github.com/octo-org/octo-repo/pull/7',
    head_branch_name: 'codegen/rename'
  }
  /** A run that completes with a pull request and a result without the answer block. */
  const noBlock: RunScript = {
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 1_000, status: 'COMPLETE', result: 'Renamed it; no block.', pullRequests: [PULL_REQUEST] }
    ]
  }

  test('timeout-minutes reached as the repair starts: the completed run in the outputs, outcome timeout', async () => {
    let gets = 0
    await world.startEmulator({
      // The repair's first request (reading the run) is answered as the step's time runs out.
      onAnswer: request => {
        if (request.route === 'get' && world.emulator.runs()[0]?.status === 'COMPLETE' && ++gets === 1)
          world.clock.time += 10 * 60_000
      }
    })
    world.emulator.queueScript(noBlock)
    const { runner, failure } = await world.step({
      verdict: 'true',
      'org-id': '1',
      'timeout-minutes': '1',
      'poll-interval': '5'
    })
    const run = world.emulator.runs()[0]!
    expect(world.routes('resume')).toEqual([])
    expect(runner.outputs).toMatchObject({
      outcome: 'timeout',
      'agent-run-id': String(run.id),
      status: 'COMPLETE',
      'pull-request-url': PULL_REQUEST.url,
      result: 'Renamed it; no block.'
    })
    expect(failure).toMatch(/^The wait ended: /)
    expect(readerText(runner.summary)).toContain(`#${run.id}`)
  })

  describe('a repair the service refuses (it may resume paused runs only)', () => {
    test('one run: kept in the outputs as it completed, invalid-output, a warning saying why; nothing else started', async () => {
      await world.startEmulator({ modes: ['resume-paused-only'] })
      world.emulator.queueScript(noBlock)
      const { runner, failure } = await world.step({ verdict: 'true', 'org-id': '1' })
      const run = world.emulator.runs()[0]!
      expect(world.routes('create')).toHaveLength(1)
      expect(world.routes('resume').map(request => request.status)).toEqual([422])
      expect(runner.outputs).toMatchObject({
        outcome: 'invalid-output',
        'agent-run-id': String(run.id),
        status: 'COMPLETE',
        'pull-request-url': PULL_REQUEST.url,
        result: 'Renamed it; no block.'
      })
      expect(JSON.parse(runner.outputs['github-pull-requests']!)).toEqual([
        expect.objectContaining({ url: PULL_REQUEST.url })
      ])
      expect(runner.lines).toContain(
        `warning: Agent run ${run.id} completed without a valid answer, and the service would not resume it to ask for one (the service answered 422: agent_run_id: Value error, Agent run ${run.id} is COMPLETE: only a paused agent run can be resumed.): it is reported as it completed.`
      )
      expect(failure).toBe(
        `The agent run ended without a valid answer. No valid answer: the final answer has no fenced json block\nAgent run ${run.id}, status COMPLETE: ${run.web_url}`
      )
      expect(failure).not.toContain('agent-run-id')
      const summary = readerText(runner.summary)
      expect(summary).toContain('No valid answer')
      expect(summary).not.toContain('asked to repair')
    })

    test('an item of runs: the same, under its name', async () => {
      await world.startEmulator({ modes: ['resume-paused-only'] })
      const { runner, failure } = await world.step({
        prompt: '',
        'org-id': '1',
        verdict: 'true',
        runs: JSON.stringify([
          { name: 'pass', prompt: 'Review [emulator:verdict-pass]' },
          { name: 'never', prompt: 'Review [emulator:verdict-never]' }
        ])
      })
      const never = world.emulator
        .runs()
        .find(run => run.prompt.startsWith('Review [emulator:verdict-never]'))!
      expect(world.routes('create')).toHaveLength(2)
      expect(world.routes('resume').map(request => request.status)).toEqual([422])
      const runs = JSON.parse(runner.outputs['runs']!) as Array<Record<string, string>>
      expect(runs.map(run => [run.name, run.outcome, run.status])).toEqual([
        ['pass', 'success', 'COMPLETE'],
        ['never', 'invalid-output', 'COMPLETE']
      ])
      expect(runs[1]).toMatchObject({ 'agent-run-id': String(never.id), result: never.result })
      expect(runner.outputs['outcome']).toBe('invalid-output')
      expect(
        runner.lines.some(line =>
          line.startsWith(
            `warning: [never] Agent run ${never.id} completed without a valid answer, and the service would not resume it to ask for one (the service answered 422: `
          )
        )
      ).toBe(true)
      expect(failure).toMatch(/^1 of 2 agent runs failed the step:\n- never: invalid-output, /)
      expect(failure).not.toContain('agent-run-id')
    })
  })
})
