import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scenario, type EmulatorOptions } from '../../../emulator/index.js'
import { renderMarkdown, visibleText } from '../../../scripts/render-markdown.js'
import { action as worldAction, emulator, startEmulatorAsIs } from '../../support/action-world.js'
import { OWN_COMMANDS, runnerCommands } from '../../support/runner-commands.js'

/**
 * Many runs from one step (the `runs` input): the action as the runner runs it, in process on the
 * virtual clock, against the emulator.
 */

const SPEED = 2
const POLL_S = 1

const startEmulator = (options: EmulatorOptions = {}) => startEmulatorAsIs({ speed: SPEED, ...options })

/** The step with the items' pace; the items hold the prompts, so the world's own prompt is left out. */
const action = (inputs: Record<string, string>, extra: Parameters<typeof worldAction>[1] = {}) =>
  worldAction({ prompt: '', 'poll-interval': String(POLL_S), 'timeout-minutes': '2', ...inputs }, extra)

/** When a run's script reached its last step: its creation plus the script's length. */
function endOf(runId: number, scenarioName: string): number {
  const run = emulator.run(runId)!
  const created = Date.parse(`${run.created_at!.slice(0, 23).replace(' ', 'T')}Z`)
  return created + scenario(scenarioName, SPEED).steps.at(-1)!.at
}

const EIGHT = [
  { name: 'api', repo: 'repository: octo-org/octo-repo', scenario: 'success', repoId: 101 },
  { name: 'docs', repo: 'repo-id: 102', scenario: 'failure', repoId: 102 },
  { name: 'infra', repo: 'repo-id: 103', scenario: 'success', repoId: 103 },
  { name: 'web', repo: 'repository: octo-org/octo-docs', scenario: 'success', repoId: 102 },
  { name: 'cli', repo: 'repo-id: 101', scenario: 'no-pr', repoId: 101 },
  { name: 'sdk', repo: 'repository: octo-org/octo-infra', scenario: 'failure', repoId: 103 },
  { name: 'ops', repo: 'repo-id: 103', scenario: 'success', repoId: 103 },
  { name: 'lint', repo: 'repo-id: 102', scenario: 'no-pr', repoId: 102 }
]

describe('many runs from one step', () => {
  test('eight runs from inline YAML, two failing: eight creates, no 429, every run in runs and the table, the step failing and naming the two', async () => {
    await startEmulator()
    const runs = EIGHT.map(
      item =>
        `- name: ${item.name}\n  prompt: Upgrade lodash in ${item.name} [emulator:${item.scenario}]\n  ${item.repo}`
    ).join('\n')
    const result = await action({ runs })
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(1)

    // Eight creates, each with its own prompt and repository; nothing refused on the documented limits.
    const creates = emulator.requests.filter(request => request.route === 'create')
    expect(creates).toHaveLength(8)
    const sent = creates.map(request => request.body as { prompt: string; repo_id: number })
    for (const item of EIGHT)
      expect(sent).toContainEqual(
        expect.objectContaining({
          prompt: `Upgrade lodash in ${item.name} [emulator:${item.scenario}]`,
          repo_id: item.repoId
        })
      )
    expect(emulator.requests.filter(request => request.status === 429)).toEqual([])

    // `runs`: every item in its order, complete; the single-run outputs empty.
    const output = JSON.parse(result.outputs['runs']!) as Array<Record<string, string>>
    expect(output.map(run => [run.name, run.outcome])).toEqual(
      EIGHT.map(item => [item.name, item.scenario === 'failure' ? 'failure' : 'success'])
    )
    for (const run of output) {
      const emulated = emulator.run(Number(run['agent-run-id']))!
      expect(run).toEqual({
        name: run.name,
        'agent-run-id': String(emulated.id),
        status: emulated.status,
        outcome: run.outcome,
        'web-url': emulated.web_url,
        'pull-request-url': emulated.github_pull_requests?.[0]?.url ?? '',
        verdict: '',
        'verdict-reason': '',
        result: emulated.result,
        // What each run did, counted from its own log.
        usage: expect.objectContaining({ log_entries: emulated.logs.length, resumes: 0, repairs: 0 })
      })
    }
    expect(result.outputs).toMatchObject({
      outcome: 'failure',
      'agent-run-id': '',
      result: '',
      trigger: 'inputs'
    })

    // The step ended within a poll-interval of the last run's end (virtual time: no slack for the machine).
    const lastEnd = Math.max(
      ...output.map((run, i) => endOf(Number(run['agent-run-id']), EIGHT[i]!.scenario))
    )
    const exitedAt = emulator.requests.at(-1)!.at
    if (process.env.SHOW_FIGURES) console.log(`last request ${exitedAt - lastEnd} ms after the last end`)
    expect(exitedAt - lastEnd).toBeGreaterThanOrEqual(0)
    expect(exitedAt - lastEnd).toBeLessThanOrEqual(POLL_S * 1000)

    // The error annotation names the two, and why.
    const errors = result.stdout.split('\n').filter(line => line.startsWith('::error'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(
      /2 of 8 agent runs failed the step:.*- docs: failure, The agent run failed\. Result: .*- sdk: failure/
    )

    // The summary: one table first, a row for each run, then each run folded under its name.
    const html = renderMarkdown(result.summary)
    const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(match => visibleText(match[1] ?? ''))
    expect(rows).toHaveLength(9)
    EIGHT.forEach((item, i) =>
      expect(rows[i + 1]).toMatch(new RegExp(`^${item.name} \\|\\s+(✅ success|❌ failure) \\|`))
    )
    expect(html.match(/<table>/g)).toHaveLength(1)
    const text = visibleText(html)
    for (const item of EIGHT)
      expect(text).toContain(`${item.name} · ${item.scenario === 'failure' ? '❌ failure' : '✅ success'}`)

    // Each mirrored line names its run; the console carries no command of anyone else's.
    expect(result.stdout).toMatch(/^\[docs\] .*Status ACTIVE → ERROR \(the run failed\)$/m)
    expect(result.stdout).toMatch(/^\[api\] Agent run \d+ created/m)
    expect(runnerCommands(result.stdout).filter(command => !OWN_COMMANDS.has(command.name))).toEqual([])
    expect(result.stdout).toMatch(
      /Agent runs after .*: 0 working, 8 ended, 0 queued \| api: success \| docs: failure/
    )
  })

  test('a list of runs in a file of the workspace, at most max-parallel at once', async () => {
    await startEmulator()
    const workspace = mkdtempSync(join(tmpdir(), 'fan-out-workspace-'))
    writeFileSync(
      join(workspace, 'runs.json'),
      JSON.stringify(['a', 'b', 'c', 'd'].map(name => ({ name, prompt: `${name} [emulator:failure]` })))
    )
    const result = await action(
      { runs: 'runs.json', 'max-parallel': '2', 'fail-on': 'none' },
      { env: { GITHUB_WORKSPACE: workspace } }
    )
    rmSync(workspace, { recursive: true, force: true })
    // fail-on none: failed runs do not fail the step.
    expect(result.exitCode).toBe(0)
    const output = JSON.parse(result.outputs['runs'] || '[]') as Array<Record<string, string>>
    expect(output.map(run => run.name)).toEqual(['a', 'b', 'c', 'd'])
    // Never more than two working at once: each create comes after an earlier run ended.
    const creates = emulator.requests.filter(request => request.route === 'create').map(request => request.at)
    const ends = output.map(run => endOf(Number(run['agent-run-id']), 'failure')).sort((a, b) => a - b)
    expect(creates[2]!).toBeGreaterThanOrEqual(ends[0]!)
    expect(creates[3]!).toBeGreaterThanOrEqual(ends[1]!)
  })

  test('SIGINT with four runs working: every run reported cancelled, summary and outputs written', async () => {
    await startEmulator({ speed: 1 })
    const runs = JSON.stringify(
      ['a', 'b', 'c', 'd'].map(name => ({ name, prompt: `${name} [emulator:endless]` }))
    )
    const result = await action(
      { runs },
      {
        terminateAfterMs: 2_500,
        terminateSignal: 'SIGINT',
        terminateWhen: () => emulator.runs().length === 4
      }
    )
    expect(emulator.runs()).toHaveLength(4)
    expect(result.terminatedAtMs).toBeGreaterThanOrEqual(2_500)
    // Ended on its own after the signal, within the 4 s a cancelled step may take (the runner kills it at 7.5 s).
    expect(result.durationMs - result.terminatedAtMs!).toBeLessThanOrEqual(4_000)
    expect(result.exitCode).toBe(1)
    const output = JSON.parse(result.outputs['runs']!) as Array<Record<string, string>>
    expect(output.map(run => [run.name, run.outcome])).toEqual(
      ['a', 'b', 'c', 'd'].map(name => [name, 'cancelled'])
    )
    expect(output.every(run => run['agent-run-id'] !== '')).toBe(true)
    expect(result.outputs['outcome']).toBe('cancelled')
    const rows = [...renderMarkdown(result.summary).matchAll(/<tr>/g)]
    expect(rows).toHaveLength(5)
  })
})

describe('a bad list of runs', () => {
  const many = JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ prompt: `p${i}` })))
  test.each([
    ['an unknown key', { runs: '- prompt: x\n  repo: octo-org/api' }, 'runs: item 1: unknown key "repo"'],
    ['an item without prompt', { runs: '- prompt: x\n- name: y' }, 'runs: item 2: prompt: required'],
    ['a list that does not parse', { runs: '[{"prompt": "x"' }, 'runs: does not parse as YAML or JSON'],
    ['more than 100 items', { runs: many }, 'runs: 101 runs; at most 100 are accepted'],
    ['runs with prompt', { runs: '- prompt: x', prompt: 'y' }, 'runs: replaces prompt'],
    [
      'a name with a right-to-left override',
      { runs: JSON.stringify([{ prompt: 'x', name: 'api\u202egpj.exe' }]) },
      'runs: item 1: name: expected one line of text of at most 100 characters, without control or bidirectional characters; got U+202E at character 4'
    ],
    [
      'a name with ESC',
      { runs: JSON.stringify([{ prompt: 'x', name: 'a\u001b[31mred' }]) },
      'runs: item 1: name: expected one line of text of at most 100 characters, without control or bidirectional characters; got U+001B at character 2'
    ],
    [
      'runs with agent-run-id',
      { runs: '- prompt: x', 'agent-run-id': '5' },
      'runs: starts new runs and cannot be given with agent-run-id'
    ],
    ['a file outside the workspace', { runs: '../runs.yml' }, 'runs: "../runs.yml"'],
    [
      'a bad max-parallel',
      { runs: '- prompt: x', 'max-parallel': '0' },
      'max-parallel: expected a whole number from 1 to 100'
    ]
  ])('%s fails the step naming it, with no request', async (_, inputs, problem) => {
    await startEmulator()
    const result = await action(inputs)
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toContain(problem)
    expect(emulator.requests).toEqual([])
  })

  test("runs on a thread trigger's event fails the step naming runs, with no request", async () => {
    await startEmulator()
    const result = await action(
      { runs: '- prompt: x', 'github-token': 'ghs_test' },
      { event: { name: 'issue_comment', payload: { action: 'created' } } }
    )
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toContain('runs: not used on issue_comment events')
    expect(emulator.requests).toEqual([])
  })
})
