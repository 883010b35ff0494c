import { readerText, renderMarkdown } from '../../../scripts/render-markdown.js'
import { InProcessWorld } from '../../support/in-process-world.js'

describe('daily-limit-pages', () => {
  /**
   * The daily limits count every run of the window however the service lists them: a full page with
   * an item that cannot be read is full still (the next page is read), and a run listed out of order
   * with an old time is skipped rather than taken for the window's end. Either once let runs go
   * uncounted, and the step started a run past its limit. Runs of others are seeded earlier on the
   * emulator's clock; the list's answer is bent by the emulator's drift fault.
   */

  const world = new InProcessWorld()

  const HOUR = 3_600_000
  const REPOSITORY = 'octo-org/octo-repo'

  function seed(hours: number, repository = REPOSITORY): number {
    return world.emulator.seedRun({
      ageMs: hours * HOUR,
      metadata: { github_action: { repository, actor: 'alice', workflow: 'Codegen' } }
    })
  }

  const limitReads = () => world.routes('list-runs').map(request => request.query)

  /** A step at daily-run-limit 3 that starts nothing: outcome limited, a notice starting `notice`. */
  async function limitedStep(
    notice = `No agent run was started: daily-run-limit (3) is reached, with 3 runs started from ${REPOSITORY}`,
    headline = '🚦 No agent run started: daily run limit reached'
  ): Promise<void> {
    const { runner, failure } = await world.step(
      { 'org-id': '1', 'daily-run-limit': '3' },
      { env: { GITHUB_ACTOR: 'alice' } }
    )
    expect(failure).toBeUndefined()
    expect(world.routes('create')).toEqual([])
    expect(runner.outputs).toMatchObject({ outcome: 'limited', 'agent-run-id': '' })
    expect(runner.lines.some(line => line.startsWith(`notice: ${notice}`))).toBe(true)
    expect(readerText(renderMarkdown(runner.summary))).toContain(headline)
  }

  test('a full first page with one item that cannot be read: the second page is read, its runs counted, no run started', async () => {
    await world.startEmulator()
    for (let i = 0; i < 3; i++) seed(20)
    for (let i = 0; i < 100; i++) seed(1, 'octo-org/other')
    // One item of the first page (another repository's) is no run the action can read: no integer id.
    world.driftRunsList(items => items.map((item, i) => (i === 50 ? { id: 'unreadable' } : item)))
    await limitedStep()
    expect(limitReads()).toEqual([
      { skip: '0', limit: '100', source_type: 'API' },
      { skip: '100', limit: '100', source_type: 'API' }
    ])
  })

  test('a run listed among the newest with a time days old: skipped, the runs after it counted, no run started', async () => {
    await world.startEmulator()
    for (let i = 0; i < 5; i++) seed(30)
    seed(4)
    seed(3, 'octo-org/other')
    seed(2)
    seed(1)
    // Newest first: 1 h, 2 h, then the other repository's run, its time read as days old.
    world.driftRunsList(items =>
      items.map((item, i) => (i === 2 ? { ...item, created_at: '2020-01-01 00:00:00.000000' } : item))
    )
    await limitedStep()
    expect(limitReads()).toEqual([{ skip: '0', limit: '100', source_type: 'API' }])
  })

  test('a day of more runs than the 20 pages the action reads: no run started, limited, the notice says the count could not be completed', async () => {
    await world.startEmulator()
    seed(23)
    for (let i = 0; i < 2_000; i++) seed(1, 'octo-org/other')
    await limitedStep(
      `No agent run was started: daily-run-limit (3) could not be counted. The organization's newest 2,000 runs (20 pages, as many as the action reads) are all of the last 24 hours, so the runs started from ${REPOSITORY} behind them are unknown. A run can start once the organization has started fewer than 2,000 runs in 24 hours.`,
      '🚦 No agent run started: the last 24 hours’ runs could not all be counted'
    )
    expect(limitReads()).toEqual(
      Array.from({ length: 20 }, (_, page) => ({
        skip: String(page * 100),
        limit: '100',
        source_type: 'API'
      }))
    )
  })
})
