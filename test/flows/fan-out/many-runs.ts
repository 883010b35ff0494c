import { scenario } from '../../../emulator/index.js'
import { SKEW_MARGIN_MS } from '../../../src/api/rate-budget.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { InProcessWorld } from '../../support/in-process-world.js'
import { completing } from '../../support/step-fixtures.js'

describe('many-runs', () => {
  /**
   * Many runs from one step in process: runAction with the `runs` input, a fake runner and a virtual
   * clock shared with the emulator, over real HTTP on loopback.
   */

  const world = new InProcessWorld()

  const list = (items: Array<Record<string, unknown>>): string => JSON.stringify(items)
  const runsOf = (outputs: Record<string, string>) =>
    JSON.parse(outputs['runs'] ?? '[]') as Array<Record<string, string>>

  test('twelve runs at once: the creates keep 10 a minute without a 429, each run followed to its end', async () => {
    await world.startEmulator()
    const names = Array.from({ length: 12 }, (_, i) => `svc-${i}`)
    const scenarioOf = (i: number): string => (i === 3 ? 'failure' : i === 7 ? 'paused' : 'success')
    const { runner, failure } = await world.step({
      prompt: '',
      'org-id': '1',
      'max-parallel': '12',
      runs: list(names.map((name, i) => ({ name, prompt: `Work on ${name} [emulator:${scenarioOf(i)}]` })))
    })
    expect(world.emulator.requests.filter(request => request.status === 429)).toEqual([])
    const creates = world.routes('create')
    expect(creates).toHaveLength(12)
    // Ten at once; the eleventh and twelfth waited for the create window to slide: a minute after the
    // first, and the budget's margin for the skew between the two clocks.
    expect(creates.map(request => request.at - creates[0]!.at)).toEqual([
      ...Array<number>(10).fill(0),
      60_000 + SKEW_MARGIN_MS,
      60_000 + SKEW_MARGIN_MS
    ])

    const runs = runsOf(runner.outputs)
    expect(runs.map(run => [run.name, run.outcome])).toEqual(
      names.map((name, i) => [name, scenarioOf(i) === 'success' ? 'success' : scenarioOf(i)])
    )
    expect(runner.outputs).toMatchObject({
      outcome: 'failure',
      'agent-run-id': '',
      status: '',
      'org-id': '1'
    })
    // Every status from the list read: no run read one by one while it works (only, once, a run whose
    // log showed its end before the list did, for its result and pull requests).
    const gets = world.routes('get').map(request => [Number(request.path.split('/').at(-1)), request.at])
    expect(new Set(gets.map(([id]) => id)).size).toBe(gets.length)
    for (const [id, at] of gets) {
      const run = world.emulator.run(id!)!
      const created = Date.parse(`${run.created_at!.slice(0, 23).replace(' ', 'T')}Z`)
      const script = scenario(/\[emulator:([a-z-]+)\]/.exec(run.prompt)![1]!)
      expect(at).toBeGreaterThanOrEqual(created + script.steps.at(-1)!.at)
    }
    expect(world.routes('list-runs').length).toBeGreaterThan(0)

    expect(failure).toMatch(/^1 of 12 agent runs failed the step:\n- svc-3: failure, The agent run failed\./)
    // A paused run that fail-on lets pass says so, under its name.
    expect(runner.lines.some(line => line.startsWith('warning: [svc-7] The agent run paused'))).toBe(true)
    // The line of every run's state, each minute while they work.
    expect(
      runner.lines.some(line =>
        /^Agent runs after 1m 0\ds: \d+ working, \d+ ended, \d+ queued \| svc-0: /.test(line)
      )
    ).toBe(true)
    expect(runner.lines.filter(line => line.startsWith('[svc-0] ')).length).toBeGreaterThan(3)

    const text = readerText(runner.summary)
    expect(text.split('\n')[0]).toBe('❌ 12 agent runs: 10 success, 1 failure, 1 paused')
    expect(text).toMatch(/svc-11 · ✅ success/)
  })

  test('the organization is found once for all the runs; a repository an item names that Codegen lacks fails that item alone', async () => {
    await world.startEmulator()
    const { runner, failure } = await world.step({
      prompt: '',
      runs: list([
        { name: 'good', prompt: 'One [emulator:success]', repository: 'octo-org/octo-docs' },
        { name: 'missing', prompt: 'Two [emulator:success]', repository: 'octo-org/nowhere' },
        { name: 'default', prompt: 'Three [emulator:success]' }
      ])
    })
    // Found once before the first create (the missing repository's diagnosis reads them again).
    const firstCreate = world.emulator.requests.findIndex(request => request.route === 'create')
    expect(
      world.emulator.requests.slice(0, firstCreate).filter(request => request.route === 'organizations')
    ).toHaveLength(1)
    const runs = runsOf(runner.outputs)
    expect(runs.map(run => [run.name, run.outcome])).toEqual([
      ['good', 'success'],
      ['missing', 'error'],
      ['default', 'success']
    ])
    const creates = world
      .routes('create')
      .map(request => request.body as { repo_id?: number; metadata: Record<string, Record<string, string>> })
    expect(creates.map(body => body.repo_id).sort()).toEqual([101, 102])
    expect(creates.map(body => body.metadata.github_action!.run_name).sort()).toEqual(['default', 'good'])
    expect(failure).toMatch(
      /- missing: error, The repository octo-org\/nowhere is not connected to Codegen organization 1/
    )
    expect(runner.outputs['outcome']).toBe('error')
  })

  test('timeout-minutes is for the whole step: runs still working, and those never started, end as timeout', async () => {
    await world.startEmulator()
    const { runner, failure } = await world.step({
      prompt: '',
      'org-id': '1',
      'timeout-minutes': '0.5',
      'max-parallel': '2',
      runs: list(['a', 'b', 'c'].map(name => ({ name, prompt: `${name} [emulator:endless]` })))
    })
    const runs = runsOf(runner.outputs)
    expect(runs.map(run => [run.name, run.outcome])).toEqual([
      ['a', 'timeout'],
      ['b', 'timeout'],
      ['c', 'timeout']
    ])
    expect(runs[2]!['agent-run-id']).toBe('')
    expect(world.routes('create')).toHaveLength(2)
    expect(failure).toMatch(/^3 of 3 agent runs failed the step:/)
    expect(failure).toContain("- c: timeout, timeout-minutes was reached before this run's turn came")
  })

  test('wait false: every run started, none followed', async () => {
    await world.startEmulator()
    const { runner, failure } = await world.step({
      prompt: '',
      'org-id': '1',
      wait: 'false',
      runs: list([{ prompt: 'a [emulator:endless]' }, { prompt: 'b [emulator:endless]' }])
    })
    expect(failure).toBeUndefined()
    expect(runsOf(runner.outputs).map(run => [run.name, run.outcome])).toEqual([
      ['run 1', 'started'],
      ['run 2', 'started']
    ])
    expect(world.routes('list-runs', 'logs', 'logs-alpha')).toEqual([])
    expect(runner.outputs['outcome']).toBe('started')
  })

  test('a run whose log is unavailable is followed by the list alone', async () => {
    await world.startEmulator({ logPaths: [] })
    const { runner } = await world.step({
      prompt: '',
      'org-id': '1',
      runs: list([{ name: 'x', prompt: 'x [emulator:success]' }])
    })
    expect(runsOf(runner.outputs)[0]!.outcome).toBe('success')
    expect(runner.lines).toContain(
      'warning: [x] The run log is unavailable (the log endpoint answered 404 on both published paths); following the run status only.'
    )
  })

  test('verdict applies to every run: each answer read as its run ends, a missing one asked for again by resuming that run', async () => {
    await world.startEmulator()
    const scenarios = ['verdict-pass', 'verdict-fail', 'verdict-repaired', 'verdict-never']
    const { runner, failure } = await world.step({
      prompt: '',
      'org-id': '1',
      verdict: 'true',
      runs: list(scenarios.map(name => ({ name, prompt: `Review the API [emulator:${name}]` })))
    })
    const runs = runsOf(runner.outputs)
    expect(runs.map(run => [run.name, run.outcome, run.verdict])).toEqual([
      ['verdict-pass', 'success', 'pass'],
      ['verdict-fail', 'rejected', 'fail'],
      ['verdict-repaired', 'rejected', 'fail'],
      ['verdict-never', 'invalid-output', '']
    ])
    expect(runs[1]!['verdict-reason']).toBe('It renames the exported parseLine, which v1 clients import.')
    // Each create carries the answer-format section; the repairs resume only the runs without an answer.
    for (const create of world.routes('create'))
      expect((create.body as { prompt: string }).prompt).toMatch(/^Review the API \[emulator:[a-z-]+\]\n\n/)
    expect(world.routes('resume')).toHaveLength(2)
    expect(runner.outputs['outcome']).toBe('rejected')
    expect(failure).toMatch(
      /^3 of 4 agent runs failed the step:\n- verdict-fail: rejected, The agent's verdict is fail\. Reason: It renames/
    )
    expect(failure).toContain(
      '- verdict-never: invalid-output, The agent run ended without a valid answer. No valid answer (after 1 repair)'
    )
    expect(readerText(runner.summary)).toMatch(/verdict-pass \| +✅ success \| +COMPLETE \| +pass \|/)
  })

  test('a run whose end its log shows before the list does: the outputs carry its result and pull request, read at its end', async () => {
    const pullRequest = {
      id: 42,
      title: 'Fix it',
      url: 'https://github.com/octo-org/octo-repo/pull/42',
      head_branch_name: 'codegen/fix-it'
    }
    let listed = 0
    await world.startEmulator({
      // The first list shows the run working; it ends before its log is read, which shows the end first.
      onAnswer: request => {
        if (request.route === 'list-runs' && ++listed === 1) world.clock.time += 2_000
      }
    })
    world.emulator.queueScript({
      steps: [
        { at: 0, status: 'ACTIVE' },
        { at: 500, log: { message_type: 'FINAL_ANSWER', observation: 'Fixed.' } },
        { at: 1_000, status: 'COMPLETE', result: 'Fixed the parser.', pullRequests: [pullRequest] }
      ]
    })
    const { runner, failure } = await world.step({
      prompt: '',
      'org-id': '1',
      runs: list([{ name: 'x', prompt: 'x' }])
    })
    expect(failure).toBeUndefined()
    // The order this test drives: the list (working), then the log page (ended) before any other list.
    const reads = world.routes('list-runs', 'logs', 'logs-alpha').map(request => request.route)
    expect(reads.slice(0, 2)).toEqual(['list-runs', 'logs'])
    expect(runsOf(runner.outputs)).toEqual([
      expect.objectContaining({
        name: 'x',
        status: 'COMPLETE',
        outcome: 'success',
        'pull-request-url': pullRequest.url,
        result: 'Fixed the parser.'
      })
    ])
    expect(readerText(runner.summary)).toMatch(
      /x \| +✅ success \| +COMPLETE \| +— \| +\S+ \| +octo-org\/octo-repo#42 Fix it \|/
    )
  })

  test('the list of runs refused while they work: each run reported with its id and the error, every output written', async () => {
    await world.startEmulator()
    world.emulator.injectFaults({ route: 'list-runs', fault: { kind: 'status', status: 403 } })
    const { runner, failure } = await world.step({
      prompt: '',
      'org-id': '1',
      runs: list(['a', 'b'].map(name => ({ name, prompt: `${name} [emulator:success]` })))
    })
    const created = world.emulator.runs().map(run => String(run.id))
    const runs = runsOf(runner.outputs)
    expect(runs.map(run => [run.name, run.outcome])).toEqual([
      ['a', 'error'],
      ['b', 'error']
    ])
    expect(runs.map(run => run['agent-run-id']).sort()).toEqual(created.sort())
    expect(runner.outputs['outcome']).toBe('error')
    expect(failure).toMatch(/^2 of 2 agent runs failed the step:\n- a: error, /)
    expect(failure).not.toMatch(/Unexpected error/)
  })

  test('a run that ends as the step times out counts as ended: its last read, as a run alone has', async () => {
    await world.startEmulator()
    world.emulator.queueScript(completing('Done just in time.', 27_000))
    const { runner, failure } = await world.step({
      prompt: '',
      'org-id': '1',
      'timeout-minutes': '0.5',
      'poll-interval': '10',
      runs: list([{ name: 'x', prompt: 'x' }])
    })
    expect(failure).toBeUndefined()
    expect(runsOf(runner.outputs)).toEqual([
      expect.objectContaining({
        name: 'x',
        outcome: 'success',
        status: 'COMPLETE',
        result: 'Done just in time.'
      })
    ])
  })
})
