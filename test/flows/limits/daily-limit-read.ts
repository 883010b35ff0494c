import { DeadlineError } from '../../../src/api/errors.js'
import { serviceClients, type ServiceClients } from '../../../src/org/clients.js'
import { readDayOfRuns } from '../../../src/org/daily-limit-read.js'
import { limitCheck, type DailyLimits, type Origin } from '../../../src/org/daily-limits.js'
import { AgentRunEmulator } from '../../../emulator/index.js'
import { conformanceCheck } from '../../support/openapi.js'
import { VirtualClock } from '../../support/virtual-clock.js'

describe('daily-limit-read', () => {
  /**
   * The daily limits read on the service (src/org/daily-limit-read.ts), in process against the
   * emulator over loopback: runs of others seeded earlier on the emulator's clock (this repository's
   * and another's, by two actors, 23 and 25 hours old), counted from the organization's API runs,
   * reading only the pages the 24 hours need. On the virtual clock the emulator shares.
   */

  const TOKEN = 'emulator-token'
  const HOUR = 3_600_000
  let clock: VirtualClock
  let emulator: AgentRunEmulator
  let conformance: ReturnType<typeof conformanceCheck>
  let clients: ServiceClients

  beforeEach(async () => {
    clock = new VirtualClock()
    conformance = conformanceCheck()
    emulator = new AgentRunEmulator({ clock, onAnswer: conformance.onAnswer })
    await emulator.start()
    clients = serviceClients(
      { baseUrl: emulator.baseUrl, apiToken: TOKEN },
      clock,
      new AbortController().signal,
      () => {},
      clock.network.service
    )
  })
  afterEach(async () => {
    await emulator.stop()
    expect(conformance.problems).toEqual([])
  })

  const listReads = () => emulator.requests.filter(request => request.route === 'list-runs')

  /** A run as the action records its origin (metadata.github_action), `hours` old. */
  function seed(
    hours: number,
    repository: string,
    actor: string,
    sourceType: 'API' | 'GITHUB' = 'API'
  ): number {
    return emulator.seedRun({
      ageMs: hours * HOUR,
      userId: actor === 'alice' ? 1 : 2,
      sourceType,
      metadata: { github_action: { repository, actor, workflow: 'Codegen', event: 'issue_comment' } }
    })
  }

  /**
   * Oldest first, as the service numbers them: 120 runs of this repository a day and an hour old
   * (outside the window, enough to fill pages past it); within it, this repository's runs by alice
   * (23 and 21 hours old) and bob (23 hours), another repository's by alice, one of this repository
   * started elsewhere than the API (not counted), and 100 of another repository an hour old, so the
   * day spans two pages of 100.
   */
  function seedDay(): void {
    for (let i = 0; i < 120; i++) seed(25, 'octo/app', 'alice')
    seed(23, 'octo/app', 'alice')
    seed(23, 'octo/app', 'bob')
    seed(22, 'octo/other', 'alice')
    seed(21, 'octo/app', 'alice')
    seed(12, 'octo/app', 'alice', 'GITHUB')
    for (let i = 0; i < 100; i++) seed(1, 'octo/other', 'carol')
  }

  const alice: Origin = { repository: 'octo/app', author: 'alice' }
  const check = (limits: DailyLimits, origin = alice, deadline = clock.now() + 60_000) =>
    clock.run(() =>
      readDayOfRuns({ clients, orgId: 1, origin, limits, clock, deadline }).then(window =>
        limitCheck(window, limits)
      )
    )

  test("counts this repository's API runs of the last 24 hours, reading only the two pages the day spans", async () => {
    seedDay()
    const now = clock.now()
    expect(await check({ perRepository: 3, perAuthor: 0 })).toEqual({
      kind: 'limited',
      which: 'repository',
      limit: 3,
      count: 3,
      // The third newest (23 hours old) leaves the window in an hour.
      nextAt: now + HOUR
    })
    expect(listReads().map(request => request.query)).toEqual([
      { skip: '0', limit: '100', source_type: 'API' },
      { skip: '100', limit: '100', source_type: 'API' }
    ])
  })

  test("the author's limit counts the author's runs of this repository only", async () => {
    seedDay()
    const now = clock.now()
    expect(await check({ perRepository: 4, perAuthor: 2 })).toEqual({
      kind: 'limited',
      which: 'author',
      limit: 2,
      count: 2,
      nextAt: now + HOUR
    })
    expect(
      await check({ perRepository: 4, perAuthor: 2 }, { repository: 'octo/app', author: 'bob' })
    ).toEqual({
      kind: 'within'
    })
    expect(await check({ perRepository: 4, perAuthor: 3 })).toEqual({ kind: 'within' })
  })

  test('no limit set: nothing is read', async () => {
    seedDay()
    expect(await check({ perRepository: 0, perAuthor: 0 })).toEqual({ kind: 'within' })
    expect(listReads()).toEqual([])
  })

  test("within the step's deadline: past it, the read ends without a request", async () => {
    seedDay()
    await expect(check({ perRepository: 3, perAuthor: 0 }, alice, clock.now())).rejects.toBeInstanceOf(
      DeadlineError
    )
    expect(listReads()).toEqual([])
  })
})
