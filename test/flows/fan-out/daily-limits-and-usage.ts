import { scenario } from '../../../emulator/index.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { asRunnerShowsIt, type RunnerResult } from '../../../scripts/runner-process.js'
import { action as worldAction, emulator, routes, startEmulatorAsIs } from '../../support/action-world.js'
import { USAGE_EXPECTED, usageScript } from '../../support/usage-script.js'

describe('daily-limits-and-usage', () => {
  /**
   * The daily run limits and the usage output: the action as the runner runs it, in process on the
   * virtual clock, against the emulator with runs of others seeded earlier on its clock (23 and 25
   * hours old, another repository, another author) and a scripted log counted by hand.
   */

  const HOUR = 3_600_000
  const REPOSITORY = 'octo-org/octo-repo'

  beforeEach(async () => {
    await startEmulatorAsIs()
  })

  /** The step, reading every second. */
  const action = (inputs: Record<string, string>) =>
    worldAction({ 'poll-interval': '1', 'timeout-minutes': '2', ...inputs })
  const shown = (result: RunnerResult) =>
    result.stdout.split('\n').flatMap(line => asRunnerShowsIt(line) ?? [])

  /** The runner's actor is octocat: two of its runs of this repository within the day, one of another author's, others outside it. */
  function seedDay(): void {
    const seed = (hours: number, origin: Record<string, string>) =>
      emulator.seedRun({
        ageMs: hours * HOUR,
        metadata: { github_action: { repository: REPOSITORY, workflow: 'Codegen', ...origin } }
      })
    for (let i = 0; i < 4; i++) seed(25, { actor: 'octocat' })
    seed(23, { actor: 'octocat' })
    seed(22, { actor: 'octocat' })
    seed(21, { actor: 'hubot', author: 'mona' })
    for (let i = 0; i < 3; i++) seed(1, { actor: 'octocat', repository: 'octo-org/other' })
  }

  describe('daily run limits', () => {
    test("at this repository's limit nothing is created: outcome limited, the notice, the step passing; fail-on: limited fails it", async () => {
      seedDay()
      const result = await action({ 'daily-run-limit': '3' })
      expect(result.stderr).toBe('')
      expect(result.exitCode).toBe(0)
      expect(routes('create')).toEqual([])
      expect(result.outputs).toMatchObject({ outcome: 'limited', 'agent-run-id': '', usage: '' })
      const notice = shown(result).find(line => line.startsWith('Notice: No agent run was started'))
      // The oldest of the three (23 hours old at the virtual 09:00) leaves the 24 hours an hour later.
      expect(notice).toBe(
        `Notice: No agent run was started: daily-run-limit (3) is reached, with 3 runs started from ${REPOSITORY} in the last 24 hours. The next run can start at 2026-03-02 10:00 UTC.`
      )
      expect(readerText(result.summary)).toContain('No agent run started: daily run limit reached')

      const failing = await action({ 'daily-run-limit': '3', 'fail-on': 'failure,limited' })
      expect(failing.exitCode).toBe(1)
      expect(failing.outputs['outcome']).toBe('limited')
      expect(
        shown(failing).some(line => line.startsWith('Error: No agent run was started: daily-run-limit (3)'))
      ).toBe(true)
      expect(routes('create')).toEqual([])
    })

    test("the author's limit counts the actor's runs of this repository only; below it the run starts", async () => {
      seedDay()
      const limited = await action({ 'daily-run-limit-per-author': '2' })
      expect(limited.outputs['outcome']).toBe('limited')
      expect(shown(limited).join('\n')).toContain(
        `daily-run-limit-per-author (2) is reached, with 2 runs started by octocat from ${REPOSITORY}`
      )
      emulator.queueScript(scenario('success', 20))
      const started = await action({ 'daily-run-limit-per-author': '3', 'daily-run-limit': '4' })
      expect(started.exitCode).toBe(0)
      expect(started.outputs['outcome']).toBe('success')
      expect(routes('create')).toHaveLength(1)
    })

    test('a resume is not counted nor held back', async () => {
      emulator.queueScript(scenario('success', 20))
      const first = await action({})
      const runId = first.outputs['agent-run-id']!
      seedDay()
      emulator.queueScript(scenario('success', 20))
      const resumed = await action({ 'agent-run-id': runId, prompt: 'Again', 'daily-run-limit': '1' })
      expect(resumed.exitCode).toBe(0)
      expect(resumed.outputs).toMatchObject({ outcome: 'success', 'agent-run-id': runId })
      expect(routes('resume')).toHaveLength(1)
      expect(routes('create')).toHaveLength(1)
    })

    test('with runs: the items past the limit are limited, the others run', async () => {
      seedDay()
      emulator.queueScript(scenario('success', 20))
      const runs = ['a', 'b', 'c'].map(name => `- name: ${name}\n  prompt: Fix ${name}`).join('\n')
      const result = await action({ runs, prompt: '', 'daily-run-limit': '4' })
      expect(result.exitCode).toBe(0)
      expect(routes('create')).toHaveLength(1)
      const items = JSON.parse(result.outputs['runs']!) as Array<{ name: string; outcome: string }>
      expect(items.map(item => item.outcome)).toEqual(['success', 'limited', 'limited'])
      expect(result.outputs['outcome']).toBe('limited')
    })
  })

  describe('usage', () => {
    test('the usage output matches the scripted log', async () => {
      emulator.queueScript(usageScript(1))
      const result = await action({ 'mirror-logs': 'summary' })
      expect(result.stderr).toBe('')
      expect(result.exitCode).toBe(0)
      const usage = JSON.parse(result.outputs['usage']!) as Record<string, unknown>
      expect(usage).toMatchObject(USAGE_EXPECTED)
      expect(readerText(result.summary)).toMatch(/Usage: 8 tool calls \(edit_file 3, run_tests 2, /)
    })
  })
})
