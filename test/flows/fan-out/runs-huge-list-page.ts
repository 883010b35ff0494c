import { InProcessWorld } from '../../support/in-process-world.js'

describe('runs-huge-list-page', () => {
  /**
   * The list of the organization's runs is the service's to size: a page of 300,000 runs (far past
   * the 100 asked for) is read like any other, and the runs of the `runs` input are followed to
   * their ends. It once threw `RangeError: Maximum call stack size exceeded` (the page's ids spread
   * into Math.min), and every item ended `error` while its run worked on.
   */

  const world = new InProcessWorld()

  const HUGE = 300_000

  test('a page of 300,000 runs newer than the step’s: the next page is read, every item followed to its end', async () => {
    await world.startEmulator()
    // The first read of the list answers a huge full page of newer runs, none of the step's.
    world.driftRunsList(() => Array.from({ length: HUGE }, (_, i) => ({ id: 900_000_000 - i })), {
      total: HUGE,
      size: HUGE
    })
    const { runner, failure } = await world.step({
      prompt: '',
      'org-id': '1',
      runs: JSON.stringify([
        { name: 'one', prompt: 'One [emulator:success]' },
        { name: 'two', prompt: 'Two [emulator:success]' }
      ])
    })
    const runs = JSON.parse(runner.outputs['runs'] ?? '[]') as Array<Record<string, string>>
    expect(runs.map(run => [run.name, run.outcome])).toEqual([
      ['one', 'success'],
      ['two', 'success']
    ])
    expect(failure).toBeUndefined()
    expect(runner.lines.some(line => line.includes('Maximum call stack'))).toBe(false)
    // The huge page was full and its oldest run newer than the step's: the next page was read.
    const lists = world.routes('list-runs')
    expect(lists[0]!.fault).toBe('drift')
    expect(lists[1]!.query).toMatchObject({ skip: '100', limit: '100' })
  })
})
