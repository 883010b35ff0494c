import { account, type ModeName, type RunScript } from '../../../emulator/index.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { readMarker } from '../../../src/thread/tracking.js'
import { runFlowStep } from '../../support/flow-step.js'
import { commandTexts, runnerCommands } from '../../support/runner-commands.js'
import {
  clock,
  emulator,
  fast,
  onEvent,
  comment,
  creates,
  resumes,
  trackingComments,
  useEmulator
} from '../../support/comment-world.js'

/**
 * Where the live service may answer otherwise than the emulator by default (emulator/modes.ts), in
 * process on the virtual clock as the runner runs the step: a refused resume on a thread, a refused
 * resume from the inputs, a refused repair, and a member read refused to `task: check`.
 */

/** A step of no triggering event (workflow_dispatch), on the world's clock and emulator. */
const step = (inputs: Record<string, string>) => runFlowStep(clock(), { inputs })

const prompt = (request: { body: unknown }): string => (request.body as { prompt: string }).prompt
/** The step's error annotations, their text as the runner shows it. */
const errors = (stdout: string): string[] => commandTexts(stdout, 'error')

test.each<[ModeName, number, string]>([
  ['resume-paused-only', 422, 'agent_run_id: Value error, Agent run 1000 is COMPLETE'],
  ['resume-paused-only-400', 400, 'Agent run 1000 is COMPLETE: only a paused agent run can be resumed.']
])(
  'a follow-up whose resume is refused (%s) starts one fresh run that carries the thread on; the next follow-up resumes it',
  async (mode, status, reason) => {
    await useEmulator({ modes: [mode] })
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen fix the typo' }))
    const earlier = emulator.runs()[0]!
    const [tracking] = trackingComments()

    // The fresh run pauses on a question, so the next follow-up may resume it.
    emulator.queueScript(fast('paused'))
    const result = await onEvent(comment({ body: '/codegen also update the changelog' }))
    expect(result.exitCode).toBe(0)
    expect(resumes().map(request => request.status)).toEqual([status])
    expect(creates().map(request => request.status)).toEqual([200, 200])
    const fresh = emulator.runs()[1]!
    const carried = prompt(creates()[1]!)
    expect(carried).toMatch(/^also update the changelog/)
    expect(carried).toContain('> The parser drops the last field')
    expect(carried).toContain(`This continues agent run ${earlier.id} (${earlier.web_url})`)
    expect(carried).toContain(reason)
    expect(carried).toContain('> ## Fixed the failing parser test')
    expect(result.stdout).toContain(
      `::notice::Agent run ${earlier.id} could not be resumed (the service answered ${status}: `
    )
    expect(result.outputs).toMatchObject({ 'agent-run-id': String(fresh.id), outcome: 'paused' })
    // The same tracking comment, its marker moved to the fresh run, saying why.
    expect(trackingComments().map(c => c.id)).toEqual([tracking!.id])
    const body = trackingComments()[0]!.body
    expect(readMarker(body)?.runId).toBe(fresh.id)
    expect(readerText(body)).toContain(
      `↪️ Run #${earlier.id} could not be resumed (the service answered ${status}: `
    )

    emulator.queueScript(fast('success'))
    const next = await onEvent(comment({ body: '/codegen remove it' }))
    expect(next.exitCode).toBe(0)
    expect(
      resumes().map(request => [(request.body as { agent_run_id: number }).agent_run_id, request.status])
    ).toEqual([
      [earlier.id, status],
      [fresh.id, 200]
    ])
    expect(creates()).toHaveLength(2)
    expect(next.outputs).toMatchObject({ 'agent-run-id': String(fresh.id), outcome: 'success' })
  }
)

test('agent-run-id with a prompt, refused: one error naming agent-run-id with the reason, nothing created', async () => {
  await useEmulator({ modes: ['resume-paused-only'] })
  const runId = emulator.addRun(null, fast('success'))
  // The run completes before the step (its script takes 700 ms).
  await clock().run(() => clock().advance(1_000))
  expect(emulator.run(runId)!.status).toBe('COMPLETE')
  const result = await step({
    'api-token': 'emulator-token',
    'org-id': '1',
    'base-url': emulator.baseUrl,
    'agent-run-id': String(runId),
    prompt: 'And the docs',
    'poll-interval': '0.1'
  })
  expect(result.exitCode).toBe(1)
  expect(errors(result.stdout)).toEqual([
    `agent-run-id ${runId}: the service refused to resume this run (422): "agent_run_id: Value error, Agent run ${runId} is COMPLETE: only a paused agent run can be resumed.". ` +
      'Nothing was created. To start a fresh run instead, leave agent-run-id empty: the prompt then starts a new run.'
  ])
  expect(creates()).toHaveLength(0)
  expect(result.outputs).toMatchObject({ outcome: 'error', 'agent-run-id': '' })
})

test('task: check with the member read refused: green, the role shown as not readable and why', async () => {
  await useEmulator({ modes: ['members-admin-only'], ...account('member') })
  const result = await step({
    'api-token': 'emulator-token',
    'base-url': emulator.baseUrl,
    task: 'check',
    'repo-id': '101'
  })
  expect(result.exitCode).toBe(0)
  expect(errors(result.stdout)).toEqual([])
  const summary = readerText(result.summary)
  expect(summary).toContain('Codegen set-up: ready')
  expect(summary).toMatch(
    /Role \|\s+ℹ️ not readable \|\s+refused \(403\): Codegen did not show member-2's membership of organization 1; runs do not need it/
  )
  expect(result.outputs).toMatchObject({ outcome: 'success', user: 'member-2' })
  expect(emulator.requests.find(request => request.route === 'user')?.status).toBe(403)
})

/** A run that completes with a pull request, its result without the answer block a verdict asks for. */
const completedWithoutAnswer: RunScript = {
  steps: [
    { at: 0, status: 'ACTIVE' },
    {
      at: 100,
      status: 'COMPLETE',
      result: 'Updated the changelog; no block.',
      pullRequests: [
        {
          id: 9,
          title: 'Changelog',
          url: 'https://github.com/octo-org/octo-repo/pull/9',
          head_branch_name: 'codegen/changelog'
        }
      ]
    }
  ]
}
/** The outputs of a run of completedWithoutAnswer whose repair was refused: reported as it completed. */
const reportedAsCompleted = (runId: number) => ({
  outcome: 'invalid-output',
  'agent-run-id': String(runId),
  status: 'COMPLETE',
  result: 'Updated the changelog; no block.',
  'pull-request-url': 'https://github.com/octo-org/octo-repo/pull/9'
})
const warnings = (stdout: string): string[] =>
  runnerCommands(stdout)
    .filter(command => command.name === 'warning')
    .map(command => command.line.slice(command.line.indexOf('::', 2) + 2))

describe('a repair the service refuses (resume-paused-only)', () => {
  test('verdict on a run from the inputs: the completed run kept in the outputs, invalid-output, a warning; nothing else started', async () => {
    await useEmulator({ modes: ['resume-paused-only'] })
    emulator.queueScript(completedWithoutAnswer)
    const result = await step({
      'api-token': 'emulator-token',
      'org-id': '1',
      'base-url': emulator.baseUrl,
      prompt: 'Update the changelog',
      verdict: 'true',
      'poll-interval': '0.1'
    })
    const run = emulator.runs()[0]!
    expect(creates()).toHaveLength(1)
    expect(resumes().map(request => request.status)).toEqual([422])
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject(reportedAsCompleted(run.id))
    expect(JSON.parse(result.outputs['github-pull-requests']!)).toHaveLength(1)
    expect(warnings(result.stdout)).toContain(
      `Agent run ${run.id} completed without a valid answer, and the service would not resume it to ask for one (the service answered 422: agent_run_id: Value error, Agent run ${run.id} is COMPLETE: only a paused agent run can be resumed.): it is reported as it completed.`
    )
    expect(errors(result.stdout)).toEqual([
      `The agent run ended without a valid answer. No valid answer: the final answer has no fenced json block\nAgent run ${run.id}, status COMPLETE: ${run.web_url}`
    ])
    const summary = readerText(result.summary)
    expect(summary).toContain('No valid answer')
    expect(summary).not.toMatch(/agent-run-id|asked to repair/)
  })

  test('verdict on a thread carried on in a fresh run: its refused repair starts no third run', async () => {
    await useEmulator({ modes: ['resume-paused-only'] })
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen fix the typo' }))
    const earlier = emulator.runs()[0]!

    emulator.queueScript(completedWithoutAnswer)
    const result = await onEvent(comment({ body: '/codegen also update the changelog' }), { verdict: 'true' })
    const fresh = emulator.runs()[1]!
    // The thread's resume refused, carried on in one fresh run; that run's repair refused: no third.
    expect(emulator.runs()).toHaveLength(2)
    expect(
      resumes().map(request => [(request.body as { agent_run_id: number }).agent_run_id, request.status])
    ).toEqual([
      [earlier.id, 422],
      [fresh.id, 422]
    ])
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject(reportedAsCompleted(fresh.id))
    expect(result.outputs['log-file']).toMatch(new RegExp(`codegen-agent-run-${fresh.id}\\.jsonl$`))
    expect(warnings(result.stdout)).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^Agent run ${fresh.id} completed without a valid answer, and the service would not resume it to ask for one \\(the service answered 422: `
        )
      )
    )
    expect(errors(result.stdout)).toEqual([
      expect.stringMatching(/^The agent run ended without a valid answer\. No valid answer: /)
    ])
  })
})
