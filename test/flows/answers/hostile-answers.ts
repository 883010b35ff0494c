import { InProcessWorld } from '../../support/in-process-world.js'
import { completing } from '../../support/step-fixtures.js'

describe('hostile-answers', () => {
  /**
   * Hostile answers of the service (redirects, answers past the size cap), in process: runAction with a fake runner and a virtual clock shared with the emulator, over real HTTP
   * on loopback. What the runner would show: outputs, summary, console lines, the step's failure.
   */

  const world = new InProcessWorld()

  test('a redirect to another host fails the step naming that host; it is not followed', async () => {
    await world.startEmulator()
    world.emulator.injectFaults({
      route: 'create',
      fault: { kind: 'redirect', status: 307, location: 'http://localhost:9/steal' }
    })
    const { runner, failure } = await world.step({ 'org-id': '1', 'repo-id': '101' })
    expect(failure).toBe(
      'Could not create the agent run: the service answered 307 redirecting to localhost:9; redirects are not followed (check base-url).'
    )
    expect(world.emulator.runs()).toHaveLength(0)
    expect(runner.outputs['outcome']).toBe('error')
  })

  test('a redirect on the same host, and one to a Location that is no URL, are named as such', async () => {
    await world.startEmulator()
    world.emulator.injectFaults({
      route: 'create',
      fault: { kind: 'redirect', status: 302, location: '/v1/elsewhere' }
    })
    const same = await world.step({ 'org-id': '1', 'repo-id': '101' })
    expect(same.failure).toMatch(
      /^Could not create the agent run: the service answered 302 redirecting to http:\/\/127\.0\.0\.1:\d+ \(the same host\); redirects are not followed/
    )
    world.emulator.injectFaults({
      route: 'create',
      fault: { kind: 'redirect', status: 301, location: 'http://[::1' }
    })
    const invalid = await world.step({ 'org-id': '1', 'repo-id': '101' })
    expect(invalid.failure).toMatch(
      /^Could not create the agent run: the service answered 301 redirecting to an invalid Location;/
    )
    expect(world.emulator.runs()).toHaveLength(0)
  })

  test('a create answered past the size cap is not read on; the run is looked up, not sent again', async () => {
    await world.startEmulator()
    world.emulator.queueScript(completing('done', 500))
    world.emulator.injectFaults({ route: 'create', fault: { kind: 'huge', bytes: 20 * 1024 * 1024 } })
    const { runner, failure } = await world.step({ 'org-id': '1', 'repo-id': '101' })
    expect(failure).toBeUndefined()
    expect(
      runner.lines.some(line =>
        line.startsWith(
          'warning: Could not create the agent run: the answer was larger than 16 MiB. Checking whether the run was created'
        )
      )
    ).toBe(true)
    expect(world.emulator.runs()).toHaveLength(1)
    expect(world.routes('create')).toHaveLength(1)
    expect(runner.outputs).toMatchObject({ outcome: 'success', result: 'done' })
  })
})
