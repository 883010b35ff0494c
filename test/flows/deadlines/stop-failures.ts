import type { Fault } from '../../../emulator/index.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { InProcessWorld } from '../../support/in-process-world.js'

describe('stop-failures', () => {
  /**
   * What the step says of a stop that failed (stop-run-on: timeout, a run still working at
   * timeout-minutes): what happened, as it happened. A stop answered 500 or whose connection was reset
   * was once reported as "the service did not answer in time"; only a stop that got no answer within
   * its time says so.
   */

  const world = new InProcessWorld()

  /** A run that works past timeout-minutes, its stop met by `fault` every time it is sent. */
  async function stopMet(fault: Fault) {
    await world.startEmulator()
    world.emulator.injectFaults({ route: 'stop', times: 100, fault })
    const step = await world.step({
      prompt: 'Work on [emulator:endless]',
      'org-id': '1',
      'timeout-minutes': '0.5',
      'stop-run-on': 'timeout'
    })
    const warning = step.runner.lines.find(line => line.startsWith('warning: Agent run ')) ?? ''
    return { ...step, warning, summary: readerText(step.runner.summary) }
  }

  test('a stop answered 500: the warning and the summary say the service answered 500, not that it did not answer', async () => {
    const { runner, warning, summary } = await stopMet({
      kind: 'status',
      status: 500,
      body: { message: 'Internal error.', status_code: 500 }
    })
    expect(runner.outputs['outcome']).toBe('timeout')
    expect(world.routes('stop').length).toBeGreaterThanOrEqual(1)
    expect(warning).toMatch(
      /could not be stopped \(the service answered 500: Internal error\.\); it goes on at Codegen/
    )
    expect(warning).not.toContain('did not answer in time')
    expect(summary).toContain('The run could not be stopped (the service answered 500: Internal error.)')
  })

  test('a stop whose connection was reset: the warning says the connection failed, and how', async () => {
    const { warning, summary } = await stopMet({ kind: 'reset-before' })
    expect(warning).toMatch(/could not be stopped \(the connection to the service failed \([^)]+\)\)/)
    expect(warning).not.toContain('did not answer in time')
    expect(summary).toContain('The run could not be stopped (the connection to the service failed')
  })

  test('a stop with no answer within its time: "did not answer in time"', async () => {
    const { warning } = await stopMet({ kind: 'slow', delayMs: 60_000 })
    expect(warning).toMatch(/could not be stopped \(the service did not answer in time\)/)
  })
})
