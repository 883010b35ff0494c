import { readFileSync } from 'node:fs'
import { scenario } from '../../emulator/index.js'
import { OWN_COMMANDS, runnerCommands } from '../support/runner-commands.js'
import {
  PROVENANCE,
  STEP_DEBUG,
  echoing,
  echoingErrors,
  successOutputs,
  visible
} from '../support/step-fixtures.js'
import {
  ACTION_NODE,
  ACTION_OUTPUTS,
  BundleWorld,
  JOB_TOKEN,
  RUNTIME_MAJOR,
  actionNodeMajor,
  expectEndedOnItsOwn,
  type BundleResult
} from '../support/bundle-world.js'

/**
 * dist/index.js as the runner runs it, once per part of the runner's protocol: inputs from INPUT_*
 * (every one at action.yml's default but those the step gives), the workflow's context from GITHUB_*,
 * outputs in GITHUB_OUTPUT's heredoc blocks, the summary appended to GITHUB_STEP_SUMMARY, workflow
 * commands on stdout (masks first), the exit code. What the action does with them, case by case, is
 * held in process (test/flows).
 */

/** A second token the emulator knows, which the service echoes back in the secrecy test. */
const SECRET = 'cg_live_5e5e5e5e5e5e5e5e5e5e'
const GITHUB_SECRET = 'ghs_0000secret1111github2222'
const world = new BundleWorld({ emulator: { tokens: { 'emulator-token': [1], [SECRET]: [1] } } })

const errors = (result: BundleResult): string[] =>
  result.stdout.split('\n').filter(line => line.startsWith('::error::'))

test('the bundle runs under the Node of action.yml (runs.using)', () => {
  // CI hands the bundle Node 24 (ACTION_NODE); a machine without it runs the bundle under its own.
  expect(RUNTIME_MAJOR).toBe(24)
  if (process.env.ACTION_NODE === undefined) return
  expect({ node: ACTION_NODE, major: actionNodeMajor() }).toEqual({ node: ACTION_NODE, major: RUNTIME_MAJOR })
})

test('a run from inputs followed to success: defaults from action.yml, context from GITHUB_*, every output in its heredoc block, the summary appended', async () => {
  world.emulator.queueScript(scenario('success', 20))
  const result = await world.step({ summaryBefore: '## An earlier step\n\nIts summary.\n' })
  expectEndedOnItsOwn(result)
  expect(result.exitCode).toBe(0)

  // What was sent, in order: the repository looked up, the run created once, then read.
  const routes = world.emulator.requests.map(request => request.route)
  expect(routes.slice(0, 2)).toEqual(['repos', 'create'])
  expect(routes.filter(route => route === 'create')).toHaveLength(1)
  const run = world.emulator.runs()[0]!
  expect(world.routes('create')[0]!.body).toEqual({
    prompt: expect.stringContaining('Fix the failing test'),
    repo_id: 101,
    metadata: { github_action: expect.objectContaining(PROVENANCE) }
  })

  // Every output action.yml declares, each once in a `name<<delimiter` block as @actions/core writes
  // it (a value of many lines survives), and no other.
  const blocks = [...result.outputFile.matchAll(/^([a-z-]+)<<(ghadelimiter_[0-9a-f-]+)\n[\s\S]*?\n\2$/gm)]
  expect(blocks.map(block => block[1]).sort()).toEqual([...ACTION_OUTPUTS].sort())
  expect(result.outputs).toMatchObject({ ...successOutputs(run), trigger: 'inputs' })
  expect(run.result).toContain('\n')
  // The log file in RUNNER_TEMP, an entry a line.
  expect(result.outputs['log-file']!.startsWith(`${result.runnerTemp}/`)).toBe(true)
  expect(readFileSync(result.outputs['log-file']!, 'utf8').trim().split('\n')).toHaveLength(run.logs.length)

  // Appended after the earlier step's summary, not over it.
  expect(result.summary).toMatch(/^## An earlier step\n\nIts summary\.\n[\s\S]*## ✅ Agent run succeeded/)
  // The tokens masked before anything else is written; only the action's own commands.
  expect(result.stdout.split('\n').slice(0, 2)).toEqual([
    '::add-mask::emulator-token',
    `::add-mask::${JOB_TOKEN}`
  ])
  expect(runnerCommands(result.stdout).filter(command => !OWN_COMMANDS.has(command.name))).toEqual([])
  expect(result.stdout).toContain(`Agent run ${run.id} created: ${run.web_url}`)
})

test('a failed run fails the step: exit code 1, one error annotation, outputs and summary written', async () => {
  world.emulator.queueScript(scenario('failure', 20))
  const result = await world.step()
  expectEndedOnItsOwn(result)
  expect(result.exitCode).toBe(1)
  expect(errors(result)).toEqual([expect.stringMatching(/^::error::The agent run failed\. Result: /)])
  expect(result.outputs).toMatchObject({ outcome: 'failure', status: 'ERROR' })
  expect(result.summary).toContain('## ❌ Agent run failed')
})

test('bad inputs fail the step before any request: exit code 1, one annotation naming each', async () => {
  const result = await world.step({ inputs: { 'org-id': 'acme', 'timeout-minutes': '-5' } })
  expectEndedOnItsOwn(result)
  expect(result.exitCode).toBe(1)
  expect(errors(result)).toEqual([
    expect.stringMatching(
      /^::error::Invalid inputs:%0A- org-id: expected a positive integer, got "acme"%0A- timeout-minutes: expected a positive number/
    )
  ])
  expect(world.emulator.requests).toEqual([])
})

test('the tokens are masked first and shown nowhere, step debug on, however the service echoes them', async () => {
  world.emulator.queueScript(echoing(SECRET, GITHUB_SECRET))
  world.emulator.injectFaults(echoingErrors(SECRET))
  const result = await world.step({
    inputs: { 'api-token': SECRET, 'github-token': GITHUB_SECRET },
    env: STEP_DEBUG
  })
  expectEndedOnItsOwn(result)
  expect(result.exitCode).toBe(0)
  expect(result.stdout.split('\n').slice(0, 2)).toEqual([
    `::add-mask::${SECRET}`,
    `::add-mask::${GITHUB_SECRET}`
  ])
  expect(result.stdout).toContain('::debug::')
  // Everything a person could read after the step, GITHUB_OUTPUT as written included.
  expect(visible(result)).toContain('***')
  expect(visible(result)).not.toContain(SECRET)
  expect(visible(result)).not.toContain(GITHUB_SECRET)
})
