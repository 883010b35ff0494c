import { scenario } from '../../../emulator/index.js'
import { emulator, startEmulator, action, fast, routes } from '../../support/action-world.js'

/** The edges of a run: the action in process on the virtual clock against the emulator (as in action.ts). */

describe('the edges of a run', () => {
  test('a Retry-After longer than the time left is waited out until timeout-minutes, not given up at once', async () => {
    await startEmulator({ retryAfterHeader: true })
    emulator.queueScript(scenario('endless'))
    emulator.injectFaults({
      route: 'logs',
      after: 1,
      times: 100,
      fault: { kind: 'status', status: 429, retryAfter: 120 }
    })
    const result = await action({ 'timeout-minutes': '0.1' })
    expect(result.outputs['outcome']).toBe('timeout')
    // At its deadline (6 s) to the millisecond: not before it, nor after the 120 s the service asked for.
    expect(result.durationMs).toBe(6_000)
    expect(routes('logs').filter(request => request.status === 429)).toHaveLength(1)
  })

  test('a timeout before the run exists follows fail-on, and says why', async () => {
    await startEmulator()
    emulator.injectFaults({ route: 'repos', fault: { kind: 'slow', delayMs: 10_000 } })
    const result = await action({ 'timeout-minutes': '0.05', 'fail-on': 'none' })
    expect(result.exitCode).toBe(0)
    expect(result.outputs['outcome']).toBe('timeout')
    expect(result.stdout).toContain('::warning::The wait ended: timeout-minutes was reached.')
    // At the deadline (3 s), not when the slow answer (10 s) would have come.
    expect(result.durationMs).toBe(3_000)
    expect(routes('create')).toHaveLength(0)
  })

  test('a hostile status cannot issue workflow commands, not even on the outcome line', async () => {
    await startEmulator()
    emulator.queueScript({
      steps: [{ at: 0, status: 'WORKING\n::set-output name=outcome::success\r::error::pwned' }]
    })
    const result = await action({ 'timeout-minutes': '0.05' })
    expect(result.outputs['outcome']).toBe('timeout')
    expect(result.stdout).toContain('Outcome: timeout (status WORKING ::set-output')
    expect(result.stdout).not.toMatch(/^\s*::(set-output|error::pwned)/m)
  })

  test('a resume that times out while the run still shows its earlier ending reports no result', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    const first = await action({})
    const runId = first.outputs['agent-run-id']!
    emulator.queueScript({ staleAfterResumeMs: 60_000, steps: [{ at: 0, status: 'ACTIVE' }] })
    const resumed = await action({ 'agent-run-id': runId, prompt: 'Again', 'timeout-minutes': '0.05' })
    expect(resumed.exitCode).toBe(1)
    expect(resumed.outputs).toMatchObject({
      'agent-run-id': runId,
      outcome: 'timeout',
      status: 'COMPLETE',
      result: '',
      summary: '',
      'github-pull-requests': '[]'
    })
    expect(resumed.summary).not.toContain(emulator.run(Number(runId))!.result!)
  })

  test("finds the repository on any page of the organization's repositories, in any case", async () => {
    await startEmulator({ manyRepos: true })
    emulator.queueScript(fast('success'))
    const result = await action({}, { env: { GITHUB_REPOSITORY: 'OCTO-ORG/Octo-Repo' } })
    expect(result.exitCode).toBe(0)
    expect(routes('repos').map(request => request.query.skip)).toEqual(['0', '100'])
    expect(routes('create')[0]!.body).toMatchObject({ repo_id: 101 })
  })

  test('sends images, model, agent type and the metadata input with the provenance; a resume its images', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    const image = 'data:image/png;base64,iVBORw0KGgo='
    const created = await action({
      images: image,
      model: 'claude-sonnet',
      'agent-type': 'claude_code',
      metadata: '{"team": "platform", "ticket": 7}'
    })
    expect(created.exitCode).toBe(0)
    expect(routes('create')[0]!.body).toMatchObject({
      images: [image],
      model: 'claude-sonnet',
      agent_type: 'claude_code',
      metadata: { team: 'platform', ticket: 7, github_action: { repository: 'octo-org/octo-repo' } }
    })
    emulator.queueScript(fast('success'))
    await action({ 'agent-run-id': created.outputs['agent-run-id']!, prompt: 'Look again', images: image })
    expect(routes('resume')[0]!.body).toEqual({
      agent_run_id: Number(created.outputs['agent-run-id']),
      prompt: 'Look again',
      images: [image]
    })
  })

  test("a 422 says the request was rejected, with the service's own words", async () => {
    await startEmulator()
    emulator.injectFaults({
      route: 'create',
      fault: {
        kind: 'status',
        status: 422,
        body: { detail: [{ loc: ['body', 'agent_type'], msg: 'Input should be codegen or claude_code' }] }
      }
    })
    const result = await action({})
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toContain(
      '::error::The service rejected the request as invalid (422) while trying to create the agent run. The service said: agent_type: Input should be codegen or claude_code'
    )
    expect(routes('create')).toHaveLength(1)
  })
})
