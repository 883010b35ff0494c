import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction } from '../../../src/action.js'
import { OWN_COMMENT_MARK } from '../../../src/github-shapes.js'
import type { InputName } from '../../../src/settings/settings.js'
import { AgentRunEmulator, scenario } from '../../../emulator/index.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { FakeGitHub } from '../../../scripts/github-fake/index.js'
import { FakeRunner } from '../../support/fake-runner.js'
import { conformanceCheck } from '../../support/openapi.js'
import { HOSTILE_TOOL, USAGE_EXPECTED, usageScript } from '../../support/usage-script.js'
import { issueCommentEvent } from '../../support/webhooks.js'
import { stepEnvironment } from '../../support/step-environment.js'
import { VirtualClock } from '../../support/virtual-clock.js'

describe('daily-limits-usage', () => {
  /**
   * The daily run limits and the usage, through runAction in process against the emulator: runs of
   * others seeded earlier on its clock (this repository's and another's, by two authors, 23 and 25
   * hours old), and a scripted log counted by hand.
   */

  const TOKEN = 'emulator-token'
  const HOUR = 3_600_000
  const REPOSITORY = 'octo-org/octo-repo'
  let clock: VirtualClock
  let emulator: AgentRunEmulator
  let conformance: ReturnType<typeof conformanceCheck>
  let github: FakeGitHub | undefined
  let temp: string

  beforeEach(async () => {
    clock = new VirtualClock()
    conformance = conformanceCheck()
    temp = mkdtempSync(join(tmpdir(), 'codegen-action-'))
    emulator = new AgentRunEmulator({ clock, onAnswer: conformance.onAnswer })
    await emulator.start()
  })

  afterEach(async () => {
    await Promise.all([emulator.stop(), github?.stop()])
    github = undefined
    rmSync(temp, { recursive: true, force: true })
    expect(conformance.problems).toEqual([])
  })

  async function step(
    inputs: Partial<Record<InputName, string>>,
    options: { actor?: string; event?: { name: string; payload: unknown }; env?: Record<string, string> } = {}
  ): Promise<{ runner: FakeRunner; failure: string | undefined }> {
    const runner = new FakeRunner({
      'api-token': TOKEN,
      'org-id': '1',
      'base-url': emulator.baseUrl,
      prompt: 'Fix the failing test',
      'poll-interval': '5',
      'mirror-logs': 'console,summary',
      ...inputs
    })
    const environment = stepEnvironment(runner, {
      clock,
      temp,
      repository: REPOSITORY,
      event: options.event,
      env: { GITHUB_ACTOR: options.actor ?? 'alice', ...options.env }
    })
    return { runner, failure: await clock.run(() => runAction(environment)) }
  }

  const routes = (route: string) => emulator.requests.filter(request => request.route === route)
  /** The list reads made before the first create (or all of them, when nothing was created): the limits' own. */
  const limitReads = () => {
    const firstCreate = emulator.requests.findIndex(request => request.route === 'create')
    return emulator.requests
      .slice(0, firstCreate < 0 ? undefined : firstCreate)
      .filter(request => request.route === 'list-runs')
  }

  /** A run as the action records its origin, `hours` old. */
  function seed(hours: number, origin: Record<string, string>): number {
    return emulator.seedRun({
      ageMs: hours * HOUR,
      metadata: { github_action: { repository: REPOSITORY, workflow: 'Codegen', ...origin } }
    })
  }

  /**
   * Within the last 24 hours, this repository's runs: two by alice (23 h), one by bob (22 h, asked on
   * a thread while carol ran the workflow); outside it, five of alice's (25 h); and three of alice's
   * from another repository (1 h).
   */
  function seedDay(): void {
    for (let i = 0; i < 5; i++) seed(25, { actor: 'alice' })
    seed(23, { actor: 'alice' })
    seed(23, { actor: 'alice' })
    seed(22, { actor: 'carol', author: 'bob' })
    for (let i = 0; i < 3; i++) seed(1, { actor: 'alice', repository: 'octo-org/other' })
  }

  /** A time as the notice gives it: up to the minute (never before the run may start), UTC. */
  const at = (ms: number) =>
    `${new Date(Math.ceil(ms / 60_000) * 60_000).toISOString().slice(0, 16).replace('T', ' ')} UTC`

  describe('daily run limits', () => {
    test("at the repository's limit nothing is created: outcome limited, a notice with the count and the next time, the step passing", async () => {
      seedDay()
      const now = clock.now()
      const { runner, failure } = await step({ 'daily-run-limit': '3' })
      expect(failure).toBeUndefined()
      expect(routes('create')).toEqual([])
      expect(runner.outputs).toMatchObject({ outcome: 'limited', 'agent-run-id': '', usage: '' })
      // The third newest (23 hours old) leaves the window in an hour.
      const notice = `No agent run was started: daily-run-limit (3) is reached, with 3 runs started from ${REPOSITORY} in the last 24 hours. The next run can start at ${at(now + HOUR)}.`
      expect(runner.lines).toContain(`notice: ${notice}`)
      expect(runner.lines).toContain('Outcome: limited')
      expect(readerText(runner.summary)).toContain('🚦 No agent run started: daily run limit reached')
      expect(readerText(runner.summary)).toContain(notice)
      // One page read: the day ends on it.
      expect(limitReads().map(request => request.query)).toEqual([
        { skip: '0', limit: '100', source_type: 'API' }
      ])
    })

    test('fail-on: limited fails the step with the notice', async () => {
      seedDay()
      const { runner, failure } = await step({ 'daily-run-limit': '3', 'fail-on': 'failure,limited' })
      expect(runner.outputs['outcome']).toBe('limited')
      expect(failure).toMatch(/^No agent run was started: daily-run-limit \(3\) is reached, with 3 runs/)
      expect(routes('create')).toEqual([])
    })

    test('below the limit the run is created, its origin recorded as the limits compare it', async () => {
      seedDay()
      emulator.queueScript(scenario('success'))
      const { runner, failure } = await step({ 'daily-run-limit': '4', 'daily-run-limit-per-author': '3' })
      expect(failure).toBeUndefined()
      expect(runner.outputs['outcome']).toBe('success')
      expect(routes('create')).toHaveLength(1)
      expect(routes('create')[0]!.body).toMatchObject({
        metadata: { github_action: { repository: REPOSITORY, actor: 'alice' } }
      })
    })

    test("the author's limit counts this author's runs of this repository only: the thread's author, else the actor", async () => {
      seedDay()
      const now = clock.now()
      const alice = await step({ 'daily-run-limit': '10', 'daily-run-limit-per-author': '2' })
      expect(alice.runner.outputs['outcome']).toBe('limited')
      expect(alice.runner.lines).toContain(
        `notice: No agent run was started: daily-run-limit-per-author (2) is reached, with 2 runs started by alice from ${REPOSITORY} in the last 24 hours. The next run can start at ${at(now + HOUR)}.`
      )
      // carol ran the workflow of bob's thread: that run is bob's, not carol's.
      emulator.queueScript(scenario('success'))
      const carol = await step(
        { 'daily-run-limit': '10', 'daily-run-limit-per-author': '1' },
        { actor: 'carol' }
      )
      expect(carol.runner.outputs['outcome']).toBe('success')
      const bob = await step({ 'daily-run-limit': '10', 'daily-run-limit-per-author': '1' }, { actor: 'bob' })
      expect(bob.runner.outputs['outcome']).toBe('limited')
      expect(routes('create')).toHaveLength(1)
    })

    test('a resume is neither counted nor held back', async () => {
      emulator.queueScript(scenario('success'))
      const first = await step({})
      const runId = first.runner.outputs['agent-run-id']!
      seedDay()
      emulator.queueScript(scenario('success'))
      const before = emulator.requests.length
      const { runner, failure } = await step({
        'agent-run-id': runId,
        prompt: 'Again',
        'daily-run-limit': '1'
      })
      expect(failure).toBeUndefined()
      expect(runner.outputs).toMatchObject({ outcome: 'success', 'agent-run-id': runId })
      expect(routes('resume')).toHaveLength(1)
      // Not asked at all: no list read before the resume.
      const resumeAt = emulator.requests.findIndex(request => request.route === 'resume')
      expect(
        emulator.requests.slice(before, resumeAt).filter(request => request.route === 'list-runs')
      ).toEqual([])
      expect(JSON.parse(runner.outputs['usage']!)).toMatchObject({ resumes: 1, repairs: 0 })
    })

    test('a list that cannot be read starts nothing: outcome error, saying why', async () => {
      seedDay()
      emulator.injectFaults({ route: 'list-runs', fault: { kind: 'status', status: 403 } })
      const { runner, failure } = await step({ 'daily-run-limit': '3' })
      expect(runner.outputs['outcome']).toBe('error')
      expect(failure).toMatch(/^The daily run limits could not be counted, so no run was started: /)
      expect(routes('create')).toEqual([])
    })

    test('with runs: one read for the step, its own starts counted, the items past the limit limited', async () => {
      seedDay()
      emulator.queueScript(scenario('success'))
      const runs = ['a', 'b', 'c'].map(name => `- name: ${name}\n  prompt: Fix ${name}`).join('\n')
      const { runner, failure } = await step({
        runs,
        prompt: '',
        'daily-run-limit': '4',
        'max-parallel': '3'
      })
      expect(failure).toBeUndefined()
      expect(routes('create')).toHaveLength(1)
      expect(limitReads()).toHaveLength(1)
      const items = JSON.parse(runner.outputs['runs']!) as Array<{
        name: string
        outcome: string
        usage: unknown
      }>
      expect(items.map(item => [item.name, item.outcome])).toEqual([
        ['a', 'success'],
        ['b', 'limited'],
        ['c', 'limited']
      ])
      expect(items[1]!.usage).toBeNull()
      expect(runner.outputs['outcome']).toBe('limited')
      expect(
        runner.lines.filter(line => line.startsWith('notice: [b] No agent run was started'))
      ).toHaveLength(1)
      // The totals are the one run's.
      expect(JSON.parse(runner.outputs['usage']!)).toEqual(items[0]!.usage)
    })

    test("on a thread: the thread's author is counted and recorded, and the tracking comment says the limit", async () => {
      github = new FakeGitHub({ clock, permissions: { dave: 'write', bob: 'write' } })
      await github.start()
      seedDay()
      const comment = (login: string) => {
        const stored = github!.addComment(7, '/codegen fix the typo', { login, type: 'User' })
        return issueCommentEvent({ body: '/codegen fix the typo', login, commentId: stored.id })
      }
      const onThread = (login: string) =>
        step(
          { 'github-token': 'github-token', 'daily-run-limit-per-author': '1', 'trigger-phrase': '/codegen' },
          // The workflow's actor is someone else: the thread's author is who asked.
          { actor: 'carol', event: comment(login), env: { GITHUB_API_URL: github!.baseUrl } }
        )
      const bob = await onThread('bob')
      expect(bob.runner.outputs['outcome']).toBe('limited')
      const tracking = github.comments(7).filter(c => c.body.startsWith(OWN_COMMENT_MARK))
      expect(tracking).toHaveLength(1)
      const text = readerText(tracking[0]!.body)
      expect(text).toContain('was not started: a daily run limit is reached')
      expect(text).toContain('daily-run-limit-per-author (1) is reached, with 1 run started by bob from')
      expect(routes('create')).toEqual([])

      emulator.queueScript(scenario('success'))
      const dave = await onThread('dave')
      expect(dave.runner.outputs['outcome']).toBe('success')
      expect(routes('create')[0]!.body).toMatchObject({
        metadata: { github_action: { actor: 'carol', author: 'dave' } }
      })
    })
  })

  describe('usage', () => {
    test('the usage output, summary line and console line match the scripted log, every entry counted', async () => {
      emulator.queueScript(usageScript())
      const { runner, failure } = await step({})
      expect(failure).toBeUndefined()
      const usage = JSON.parse(runner.outputs['usage']!) as Record<string, unknown>
      expect(usage).toMatchObject(USAGE_EXPECTED)
      expect(usage['duration_seconds']).toEqual(expect.any(Number))
      // The summary's timeline kept fewer entries than were counted.
      expect(runner.summary).toContain('left out')
      const line = readerText(runner.summary)
        .split('\n')
        .find(text => text.startsWith('Usage:'))
      // Shown as written, the mention broken by a word joiner as everywhere else.
      const shown = HOSTILE_TOOL.replace('@', '@\u2060')
      expect(line).toMatch(/ · \d+s$/)
      expect(line!.replace(/ · \d+s$/, '')).toBe(
        `Usage: 8 tool calls (edit_file 3, run_tests 2, ${shown} 1, grep 1, view_file 1) · 1200 log entries · 2 errors · 1 pull request`
      )
      // Hostile names show literally: no HTML, no emphasis, no mention.
      expect(runner.summary).not.toContain('<b>x</b>')
      expect(runner.lines.some(text => text.startsWith('Usage: 8 tool calls (edit_file 3'))).toBe(true)
    })
  })
})
