import { readFileSync } from 'node:fs'
import type { AgentRunEmulator, RunScript } from '../../../emulator/index.js'
import type { FakeGitHub } from '../../../scripts/github-fake/index.js'
import type { RunnerResult } from '../../../scripts/runner-process.js'
import { FlowWorld } from '../../support/flow-world.js'
import { STEP_DEBUG, commandRun, echoing, echoingErrors, visible } from '../../support/step-fixtures.js'
import { issueCommentEvent } from '../../support/webhooks.js'

describe('secrecy', () => {
  /**
   * The token never leaves: not through the console (step debug on), the summary, the outputs, the log
   * file, the tracking comment or error messages, even when the service echoes it back everywhere.
   * In process on the virtual clock, as the runner runs the step (flow-step.ts).
   */

  const TOKEN = 'cg_live_5e5e5e5e5e5e5e5e5e5e'
  const GITHUB_TOKEN = 'ghs_0000secret1111github2222'
  const world = new FlowWorld({
    emulator: { tokens: { [TOKEN]: [1] } },
    github: { token: GITHUB_TOKEN, permissions: { alice: 'write' } }
  })
  let emulator: AgentRunEmulator
  let github: FakeGitHub
  beforeEach(() => {
    emulator = world.emulator
    github = world.github
  })

  const inputs = () => ({
    'api-token': TOKEN,
    'org-id': '1',
    'base-url': emulator.baseUrl,
    prompt: 'Fix it',
    'poll-interval': '0.1',
    'timeout-minutes': '1'
  })

  test('a run that echoes the token everywhere shows it nowhere, step debug on', async () => {
    emulator.queueScript(echoing(TOKEN, GITHUB_TOKEN))
    emulator.injectFaults(echoingErrors(TOKEN))
    // As on a runner, where github-token defaults to the job's token.
    const result = await world.step({
      inputs: { ...inputs(), 'github-token': GITHUB_TOKEN },
      env: STEP_DEBUG
    })
    expect(result.exitCode).toBe(0)
    expect(result.stdout.split('\n')[0]).toBe(`::add-mask::${TOKEN}`)
    expect(result.stdout).toContain('::debug::')
    expect(visible(result)).toContain('***')
    expect(visible(result)).not.toContain(TOKEN)
    expect(visible(result)).not.toContain(GITHUB_TOKEN)
  })

  test('an error body that echoes the token is reported without it', async () => {
    emulator.injectFaults({
      route: 'create',
      fault: { kind: 'status', status: 403, body: { message: `Token ${TOKEN} may not create runs` } }
    })
    const result = await world.step({ inputs: { ...inputs(), 'repo-id': '101' }, env: STEP_DEBUG })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(
      /::error::Permission denied \(403\).*The service said: Token \*\*\* may not create runs/
    )
    expect(visible(result)).not.toContain(TOKEN)
  })

  /**
   * A step started by alice's `/codegen go` on issue 7, which keeps a tracking comment; it passes.
   * `written`: every body it sent to GitHub, the edits while the run worked included.
   */
  async function commentStep(): Promise<{ result: RunnerResult; written: unknown[] }> {
    const stored = github.addComment(7, '/codegen go', { login: 'alice', type: 'User' })
    const result = await world.step({
      inputs: { ...inputs(), 'github-token': GITHUB_TOKEN, 'poll-interval': '0.5' },
      env: { ...STEP_DEBUG, GITHUB_API_URL: github.baseUrl },
      event: issueCommentEvent({ body: '/codegen go', commentId: stored.id })
    })
    expect(result.exitCode).toBe(0)
    const written = github.requests.filter(request => request.method !== 'GET').map(request => request.body)
    return { result, written }
  }

  test('the tracking comment never shows the tokens', async () => {
    // Slow enough for an edit while it works (one every 5 s), which shows the latest step.
    const { steps } = echoing(TOKEN, GITHUB_TOKEN)
    emulator.queueScript({ steps: steps.map(step => (step.at > 100 ? { ...step, at: 7_000 } : step)) })
    const { result, written } = await commentStep()
    const comments = written.map(body => JSON.stringify(body)).join('\n')
    expect(comments).toContain('Latest step')
    expect(comments).toContain('***')
    expect(comments).not.toContain(TOKEN)
    expect(comments).not.toContain(GITHUB_TOKEN)
    expect(visible(result)).not.toContain(GITHUB_TOKEN)
  })

  describe('the token in every form', () => {
    const b64 = (text: string): string => Buffer.from(text).toString('base64')
    const forms = (secret: string): string[] => [
      secret.toUpperCase(),
      `${secret.slice(0, 8)}\n${secret.slice(8)}`,
      `${secret.slice(0, 10)}\u200b${secret.slice(10)}`,
      encodeURIComponent(`${secret}`),
      b64(secret),
      b64(`a${secret}`),
      b64(`ab${secret}`)
    ]
    /** Whether `text` shows the secret in any of those forms (breaks and case undone, base64 searched). */
    function leaks(text: string, secret: string): boolean {
      const plain = text.replace(/[\s\u200b]/g, '').toLowerCase()
      if (plain.includes(secret.toLowerCase())) return true
      return [0, 1, 2].some(offset => {
        const encoded = Buffer.from(`${'x'.repeat(offset)}${secret}`).toString('base64')
        const core = encoded.slice(Math.ceil((offset * 8) / 6), -2)
        return text.replace(/\s/g, '').includes(core)
      })
    }
    const everywhere = (secret: string): string => forms(secret).join(' | ')

    const script = (): RunScript =>
      commandRun(
        {
          thought: `env: ${everywhere(TOKEN)}`,
          tool_input: { [TOKEN]: 'valid', [GITHUB_TOKEN]: everywhere(GITHUB_TOKEN) },
          tool_output: { encoded: everywhere(TOKEN) },
          observation: everywhere(GITHUB_TOKEN)
        },
        {
          at: 7_000,
          status: 'COMPLETE',
          result: `Result ${everywhere(TOKEN)}`,
          summary: `Summary ${everywhere(GITHUB_TOKEN)}`
        }
      )

    test('reaches no comment, summary, output, log file or console line', async () => {
      emulator.queueScript(script())
      const { result, written } = await commentStep()
      const comments = written.map(body => String((body as { body?: string })?.body ?? '')).join('\n')
      expect(comments).toContain('Result ***')
      for (const secret of [TOKEN, GITHUB_TOKEN]) {
        expect(leaks(comments, secret)).toBe(false)
        expect(leaks(result.summary, secret)).toBe(false)
        expect(leaks(JSON.stringify(result.outputs), secret)).toBe(false)
        expect(leaks(readFileSync(result.outputs['log-file']!, 'utf8'), secret)).toBe(false)
        expect(leaks(visible(result), secret)).toBe(false)
      }
      // The test's own detector finds every form it planted.
      for (const form of forms(TOKEN)) expect(leaks(form, TOKEN)).toBe(true)
    })
  })
})
