import { scenario } from '../../../emulator/index.js'
import { readerText } from '../../../scripts/render-markdown.js'
import type { RunnerResult } from '../../../scripts/runner-process.js'
import { action as worldAction, emulator, routes, startEmulatorAsIs } from '../../support/action-world.js'
import { runnerCommands } from '../../support/runner-commands.js'

/**
 * stop-run-on as the runner runs the step, in process on the virtual clock (issue #29, item 1): a job cancelled (SIGINT) while its
 * run works asks the service to stop it, reads it once more and says what it saw; a timeout does
 * so only when asked; a service without the stop path gets one warning; nothing is sent with
 * `stop-run-on: none`, nor for a run that has ended.
 */

const cancelledOnceCreated = {
  terminateAfterMs: 1_000,
  terminateSignal: 'SIGINT' as const,
  terminateWhen: () => emulator.runs().length > 0
}

/** The step, reading every half second, with time to be cancelled before its deadline. */
const action = (inputs: Record<string, string>, extra: Parameters<typeof worldAction>[1] = {}) =>
  worldAction({ 'poll-interval': '0.5', 'timeout-minutes': '5', ...inputs }, extra)

const warnings = (result: RunnerResult): string[] =>
  runnerCommands(result.stdout)
    .filter(command => command.name === 'warning')
    .map(command => command.line)

describe('a cancelled job stops its run', () => {
  test('by default: one stop, the run read after it, STOPPED in the outputs, the summary and the console say so', async () => {
    await startEmulatorAsIs()
    emulator.queueScript(scenario('endless'))
    const result = await action({}, cancelledOnceCreated)
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(1)
    const run = emulator.runs()[0]!
    const stops = routes('stop')
    expect(stops).toHaveLength(1)
    expect(stops[0]).toMatchObject({ status: 200, body: { agent_run_id: run.id } })
    // The read after the stop is the step's last request: what the outputs show.
    const last = emulator.requests.at(-1)!
    expect(last.route).toBe('get')
    expect(emulator.requests.indexOf(stops[0]!)).toBeLessThan(emulator.requests.indexOf(last))
    expect(run.status).toBe('STOPPED')
    expect(result.outputs).toMatchObject({
      outcome: 'cancelled',
      status: 'STOPPED',
      'agent-run-id': String(run.id)
    })
    const summary = readerText(result.summary)
    expect(summary).toContain('Job cancelled while following the agent run')
    expect(summary).toContain(
      'The run was stopped: this step asked Codegen to stop it, and it now shows STOPPED.'
    )
    expect(result.stdout).toContain('The agent run was stopped: it now shows STOPPED.')
    expect(warnings(result).filter(line => /stop/i.test(line))).toEqual([])
    // Ended on its own after the signal, within the 4 s a cancelled step may take.
    expect(result.durationMs - result.terminatedAtMs!).toBeLessThanOrEqual(4_000)
  })

  test('stop-run-on: none sends nothing: the run goes on, the summary says nothing of a stop', async () => {
    await startEmulatorAsIs()
    emulator.queueScript(scenario('endless'))
    const result = await action({ 'stop-run-on': 'none' }, cancelledOnceCreated)
    expect(result.exitCode).toBe(1)
    expect(routes('stop')).toHaveLength(0)
    expect(result.outputs).toMatchObject({ outcome: 'cancelled', status: 'ACTIVE' })
    expect(emulator.runs()[0]!.status).toBe('ACTIVE')
    expect(readerText(result.summary)).not.toMatch(/stopped/i)
  })

  test('a service without the stop path (404): one warning linking the run, which goes on; the step ends as before, in time', async () => {
    await startEmulatorAsIs({ modes: ['no-stop'] })
    emulator.queueScript(scenario('endless'))
    const result = await action({}, cancelledOnceCreated)
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(1)
    const run = emulator.runs()[0]!
    // One stop, answered 404 and not sent again; then the run read once more, the last request.
    expect(routes('stop').map(request => request.status)).toEqual([404])
    const last = emulator.requests.at(-1)!
    expect(last.route).toBe('get')
    expect(emulator.requests.indexOf(routes('stop')[0]!)).toBeLessThan(emulator.requests.indexOf(last))
    const stopWarnings = warnings(result).filter(line => line.includes('could not be stopped'))
    expect(stopWarnings).toHaveLength(1)
    expect(stopWarnings[0]).toContain(
      `Agent run ${run.id} could not be stopped (the service has no endpoint to stop a run (HTTP 404)); it goes on at Codegen: ${run.web_url}`
    )
    expect(result.outputs).toMatchObject({
      outcome: 'cancelled',
      status: 'ACTIVE',
      'agent-run-id': String(run.id)
    })
    expect(readerText(result.summary)).toContain(
      'The run could not be stopped (the service has no endpoint to stop a run (HTTP 404)): it goes on at Codegen.'
    )
    // Ended on its own after the signal, within the 4 s a cancelled step may take.
    expect(result.durationMs - result.terminatedAtMs!).toBeLessThanOrEqual(4_000)
  })
})

describe('a timeout stops the run only when asked', () => {
  test.each([
    ['by default (cancel)', {}, 0, 'ACTIVE'],
    ['with stop-run-on: cancel,timeout', { 'stop-run-on': 'cancel,timeout' }, 1, 'STOPPED']
  ] as const)('%s', async (_, inputs, stops, status) => {
    await startEmulatorAsIs()
    emulator.queueScript(scenario('endless'))
    const result = await action({ 'timeout-minutes': '0.05', 'fail-on': 'none', ...inputs })
    expect(result.exitCode).toBe(0)
    expect(routes('stop')).toHaveLength(stops)
    // The outcome stays timeout, whatever the service shows after the stop.
    expect(result.outputs).toMatchObject({ outcome: 'timeout', status })
    const said = /The run was stopped/.test(readerText(result.summary))
    expect(said).toBe(stops === 1)
  })
})

test('a fan-out cancelled stops each run still working, not the one that ended', async () => {
  await startEmulatorAsIs({ speed: 5 })
  const names = ['a', 'b', 'done']
  const scripts = ['endless', 'endless', 'success']
  const runs = JSON.stringify(names.map((name, i) => ({ name, prompt: `${name} [emulator:${scripts[i]}]` })))
  // Once the step has listed the runs a few times since the short one ended (the list is read one
  // request after another: the later ones show it ended, and its end is read from the log), the
  // others still working.
  let listsWhenEnded: number | undefined
  const seenEnded = () => {
    if (listsWhenEnded === undefined && emulator.runs().some(run => run.status === 'COMPLETE'))
      listsWhenEnded = routes('list-runs').length
    return listsWhenEnded !== undefined && routes('list-runs').length >= listsWhenEnded + 3
  }
  const result = await action(
    { prompt: '', runs },
    { terminateAfterMs: 1_000, terminateSignal: 'SIGINT', terminateWhen: seenEnded }
  )
  expect(result.stderr).toBe('')
  const byName = (name: string) => emulator.runs().find(run => run.prompt.startsWith(`${name} `))!
  const stopped = routes('stop').map(request => (request.body as { agent_run_id: number }).agent_run_id)
  expect(stopped.sort()).toEqual([byName('a').id, byName('b').id].sort())
  const output = JSON.parse(result.outputs['runs']!) as Array<Record<string, string>>
  expect(output.map(run => [run.name, run.outcome, run.status])).toEqual([
    ['a', 'cancelled', 'STOPPED'],
    ['b', 'cancelled', 'STOPPED'],
    ['done', 'success', 'COMPLETE']
  ])
  expect(readerText(result.summary).match(/The run was stopped/g)).toHaveLength(2)
  // Ended on its own after the signal, within the 4 s a cancelled step may take.
  expect(result.exitCode).toBe(1)
  expect(result.durationMs - result.terminatedAtMs!).toBeLessThanOrEqual(4_000)
})
