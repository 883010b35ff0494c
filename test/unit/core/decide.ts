import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  CI_FIX_TRIGGER,
  decide,
  briefFromInputs,
  briefFromItem,
  type DecideDeps
} from '../../../src/decide.js'
import type { Settings } from '../../../src/settings/settings.js'
import { readInputs, type Inputs } from '../../support/read-inputs.js'

describe('decide', () => {
  /**
   * What the step does (src/decide.ts), decided once from the settings and the event: the cases that
   * need no answer from GitHub. A thread's request (its author checked on GitHub, its tracking
   * comment opened) is the flows' (comments, triggers).
   */

  const workspace = mkdtempSync(join(tmpdir(), 'decide-'))
  afterAll(() => rmSync(workspace, { recursive: true, force: true }))

  const valid = { 'api-token': 'tok-123456', 'org-id': '7', prompt: 'Fix it' }

  function settingsOf(
    inputs: Inputs,
    event = 'push',
    payload: unknown = {}
  ): { settings: Settings; deps: DecideDeps; notices: string[] } {
    const settings = readInputs(
      { ...valid, ...inputs },
      {},
      {
        GITHUB_WORKSPACE: workspace,
        GITHUB_EVENT_NAME: event,
        GITHUB_REPOSITORY: 'octo-org/octo-repo',
        GITHUB_SHA: 'a'.repeat(40)
      }
    )
    const notices: string[] = []
    const deps: DecideDeps = {
      payload: () => payload,
      github: () => Promise.reject(new Error('GitHub is not asked here')),
      clock: { now: () => 1_000, sleep: () => Promise.resolve() },
      say: { notice: message => notices.push(message), warning: message => notices.push(message) },
      stopped: () => undefined,
      redact: value => value,
      images: {
        fetch: () => Promise.reject(new Error('no image is fetched here')),
        signal: new AbortController().signal
      }
    }
    return { settings, deps, notices }
  }

  test('task: check is the set-up check: nothing started, no trigger', async () => {
    const { settings, deps } = settingsOf({ task: 'check', prompt: '' })
    expect(await decide(settings, deps)).toEqual({ work: { kind: 'setup-check' } })
  })

  test('a step from its inputs: one run of the prompt, no check off a pull request', async () => {
    const { settings, deps } = settingsOf({})
    const decision = await decide(settings, deps)
    expect(decision.trigger).toBe('inputs')
    expect(decision.check).toBeUndefined()
    expect(decision.work).toEqual({ kind: 'run', brief: briefFromInputs(settings) })
    expect(decision.work.kind === 'run' && decision.work.brief).toMatchObject({
      prompt: 'Fix it',
      orgId: 7,
      wait: true,
      resumeRunId: undefined
    })
  })

  test('agent-run-id: a resume of that run', async () => {
    const { settings, deps } = settingsOf({ 'agent-run-id': '42', prompt: 'And the docs' })
    const decision = await decide(settings, deps)
    expect(decision.work.kind === 'run' && decision.work.brief.resumeRunId).toBe(42)
  })

  test('the runs input: a brief per item, the item’s fields over the step’s', async () => {
    const runs = '- name: api\n  prompt: Fix the API\n  model: big\n- name: web\n  prompt: Fix the web'
    const { settings, deps } = settingsOf({ prompt: '', runs })
    const decision = await decide(settings, deps)
    expect(decision.trigger).toBe('inputs')
    if (decision.work.kind !== 'runs') throw new Error(`not many runs: ${decision.work.kind}`)
    expect(decision.work.items.map(item => [item.name, item.brief.prompt, item.brief.model])).toEqual([
      ['api', 'Fix the API', 'big'],
      ['web', 'Fix the web', settings.model]
    ])
    expect(decision.work.items[0]!.brief.origin).toMatchObject({ run_name: 'api' })
    expect(decision.work.items[0]!.brief).toEqual(briefFromItem(settings, settings.runs![0]!))
  })

  /** A step on `event` that starts nothing: skipped, a notice saying why, and GitHub never asked. */
  async function skippedOn(event: string, payload: unknown): Promise<void> {
    const { settings, deps, notices } = settingsOf(
      { prompt: '', 'github-token': 'ghs_token' },
      event,
      payload
    )
    const decision = await decide(settings, deps)
    expect(decision.work).toEqual({
      kind: 'none',
      report: expect.objectContaining({ outcome: 'skipped', startedAt: 1_000 })
    })
    expect(notices).toEqual([expect.stringMatching(/^No agent run: /)])
  }

  test('a workflow run that did not fail: no CI fix', async () => {
    await skippedOn('workflow_run', {
      action: 'completed',
      workflow_run: { id: 9, conclusion: 'success', head_branch: 'main', head_sha: 'b'.repeat(40) }
    })
    expect(CI_FIX_TRIGGER).toBe('workflow-run')
  })

  test('an issue comment that does not ask: no run', async () => {
    await skippedOn('issue_comment', {
      action: 'created',
      comment: { id: 1, body: 'nice work', user: { login: 'alice', type: 'User' } },
      issue: { number: 7, title: 'x', body: '', html_url: 'https://github.com/octo-org/octo-repo/issues/7' }
    })
  })
})
