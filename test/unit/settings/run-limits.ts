import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MAX_LIMIT_PAGES, LIMIT_PAGE_SIZE } from '../../../src/org/daily-limits.js'
import { MAX_DAILY_RUN_LIMIT } from '../../../src/settings/settings.js'
import { problemsOf as problemsOfReading, readInputs, type Inputs } from '../../support/read-inputs.js'

describe('run-limits', () => {
  /** The inputs that keep runs from running away: stop-run-on, the daily limits, fail-on's `limited`, a CI fix's max-fix-attempts (and what its event refuses). */

  const workspace = mkdtempSync(join(tmpdir(), 'settings-limits-'))
  afterAll(() => rmSync(workspace, { recursive: true, force: true }))

  const settingsFrom = (inputs: Inputs) => readInputs(inputs, {}, { GITHUB_WORKSPACE: workspace })
  const problemsOf = (inputs: Inputs): string[] => problemsOfReading(() => settingsFrom(inputs))

  const valid = { 'api-token': 'tok-123456', 'org-id': '7', prompt: 'Fix it' }

  test('defaults: stop the run when the job is cancelled; no daily limit; limited does not fail the step', () => {
    const settings = settingsFrom(valid)
    expect([...settings.stopRunOn]).toEqual(['cancel'])
    expect(settings.dailyLimits).toEqual({ perRepository: 0, perAuthor: 0 })
    expect(settings.failOn.has('limited')).toBe(false)
  })

  test('stop-run-on takes cancel, timeout, both, or none', () => {
    const stopOn = (text: string): string[] => [...settingsFrom({ ...valid, 'stop-run-on': text }).stopRunOn]
    expect(stopOn('timeout')).toEqual(['timeout'])
    expect(stopOn('cancel, Timeout')).toEqual(['cancel', 'timeout'])
    expect(stopOn('timeout\ncancel')).toEqual(['timeout', 'cancel'])
    expect(stopOn('none')).toEqual([])
    expect(problemsOf({ ...valid, 'stop-run-on': 'cancel,failure' })).toEqual([
      'stop-run-on: expected a comma-separated list of cancel, timeout (or none), got "failure"'
    ])
    expect(problemsOf({ ...valid, 'stop-run-on': 'none,cancel' })).toEqual([
      'stop-run-on: expected a comma-separated list of cancel, timeout (or none), got "none"'
    ])
  })

  test('stop-run-on with wait: false is no error (it has no effect there)', () => {
    const settings = settingsFrom({ ...valid, wait: 'false', 'stop-run-on': 'cancel,timeout' })
    expect(settings.wait).toBe(false)
    expect([...settings.stopRunOn]).toEqual(['cancel', 'timeout'])
  })

  test('the daily limits take whole numbers from 0 to 1000', () => {
    expect(
      settingsFrom({ ...valid, 'daily-run-limit': '20', 'daily-run-limit-per-author': '5' }).dailyLimits
    ).toEqual({ perRepository: 20, perAuthor: 5 })
    expect(settingsFrom({ ...valid, 'daily-run-limit': ' 1000 ' }).dailyLimits.perRepository).toBe(1000)
    expect(settingsFrom({ ...valid, 'daily-run-limit-per-author': '0' }).dailyLimits.perAuthor).toBe(0)
    const expected = (name: string, got: string): string =>
      `${name}: expected a whole number of runs a day from 0 (no limit) to 1000 (the runs the action can count in a day), got "${got}"`
    expect(problemsOf({ ...valid, 'daily-run-limit': '-1' })).toEqual([expected('daily-run-limit', '-1')])
    expect(problemsOf({ ...valid, 'daily-run-limit': '2.5' })).toEqual([expected('daily-run-limit', '2.5')])
    expect(problemsOf({ ...valid, 'daily-run-limit': '1001' })).toEqual([expected('daily-run-limit', '1001')])
    expect(problemsOf({ ...valid, 'daily-run-limit-per-author': 'ten' })).toEqual([
      expected('daily-run-limit-per-author', 'ten')
    ])
  })

  test('every bad input in one list, before anything is sent', () => {
    expect(
      problemsOf({
        ...valid,
        'stop-run-on': 'sigint',
        'daily-run-limit': 'x',
        'daily-run-limit-per-author': '1e3'
      })
    ).toEqual([
      'stop-run-on: expected a comma-separated list of cancel, timeout (or none), got "sigint"',
      expect.stringMatching(/^daily-run-limit: expected a whole number .* got "x"$/),
      expect.stringMatching(/^daily-run-limit-per-author: expected a whole number .* got "1e3"$/)
    ])
  })

  test('fail-on accepts limited', () => {
    expect([...settingsFrom({ ...valid, 'fail-on': 'failure,limited' }).failOn]).toEqual([
      'failure',
      'limited'
    ])
  })

  test('the largest daily limit fits twice in the pages the action reads, and those are a third of the minute the service allows a token', () => {
    expect(MAX_LIMIT_PAGES * LIMIT_PAGE_SIZE).toBe(2 * MAX_DAILY_RUN_LIMIT)
    expect(MAX_LIMIT_PAGES).toBeLessThanOrEqual(60 / 3)
  })

  test('max-fix-attempts takes whole numbers from 1 to 1000, 3 by default: no 0 that would let fixes loop', () => {
    expect(settingsFrom(valid).maxFixAttempts).toBe(3)
    expect(settingsFrom({ ...valid, 'max-fix-attempts': ' 1 ' }).maxFixAttempts).toBe(1)
    expect(settingsFrom({ ...valid, 'max-fix-attempts': '1000' }).maxFixAttempts).toBe(1000)
    const expected = (got: string): string =>
      `max-fix-attempts: expected a whole number of CI-fix runs a branch may get in 24 hours, from 1 to 1000, got "${got}"`
    for (const bad of ['0', '-1', '2.5', '1001', 'three'])
      expect(problemsOf({ ...valid, 'max-fix-attempts': bad })).toEqual([expected(bad)])
  })

  describe('on workflow_run events (a CI fix)', () => {
    const onWorkflowRun = (inputs: Inputs) =>
      readInputs(inputs, {}, { GITHUB_WORKSPACE: workspace, GITHUB_EVENT_NAME: 'workflow_run' })
    const problems = (inputs: Inputs): string[] => problemsOfReading(() => onWorkflowRun(inputs))
    const token = { 'api-token': 'tok-123456', 'github-token': 'ghs_x' }

    test('the prompt is the action’s own (the input only adds to it); the GitHub token is needed', () => {
      expect(onWorkflowRun(token)).toMatchObject({ prompt: '', triggerEvent: true })
      expect(problems({ 'api-token': 'tok-123456' })).toEqual([
        "github-token: required on workflow_run events (the failed jobs and their logs, the tracking comment); leave it unset for the job's GITHUB_TOKEN"
      ])
    })

    test('each fix starts a new run: agent-run-id and runs are refused, naming the event', () => {
      expect(problems({ ...token, 'agent-run-id': '12' })).toEqual([
        'agent-run-id: not used on workflow_run events, where each CI fix starts a new run; remove it'
      ])
      expect(problems({ ...token, runs: '- prompt: a' })).toEqual([
        'runs: not used on workflow_run events, where the failed CI run asks for one fix; start a fan-out from another event (push, workflow_dispatch, schedule)'
      ])
      // The set-up check acts on its inputs, whatever the event.
      expect(problems({ ...token, task: 'check', 'agent-run-id': '12' })).toEqual([])
    })
  })
})
