import type { AgentRun, Page } from '../../../src/api/types.js'
import {
  DAY_MS,
  LIMIT_PAGE_SIZE,
  MAX_LIMIT_PAGES,
  limitCheck,
  limitedMessage,
  readDailyWindow,
  runTime,
  type DailyLimits,
  type Origin
} from '../../../src/org/daily-limits.js'

/** The window read, then judged: what the step's DailyGate does at its first start. */
async function checkDailyLimits(
  list: (skip: number, limit: number) => Promise<Page<AgentRun>>,
  origin: Origin,
  limits: DailyLimits,
  now: number
) {
  return limitCheck(await readDailyWindow(list, origin, limits, now), limits)
}

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0)
const HOUR = 60 * 60 * 1000

/** The service's time format: UTC without a zone. */
const serviceTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000')

let nextId = 1000
function run(hoursAgo: number, repository: string, actor = 'alice'): AgentRun {
  return {
    id: nextId--,
    created_at: serviceTime(NOW - hoursAgo * HOUR),
    organization_id: 1,
    metadata: { github_action: { repository, actor } }
  } as AgentRun
}

/**
 * The organization's runs, newest first, served a page at a time; the pages read are counted. An item
 * that could not be read is dropped from its page, which says how many it sent (`sent`) only then.
 */
function service(runs: Array<AgentRun | 'unreadable'>): {
  list: (skip: number, limit: number) => Promise<Page<AgentRun>>
  reads: number[]
} {
  const reads: number[] = []
  return {
    reads,
    list: (skip, limit) => {
      reads.push(skip)
      const sent = runs.slice(skip, skip + limit)
      const items = sent.filter((item): item is AgentRun => item !== 'unreadable')
      const dropped = items.length < sent.length ? { sent: sent.length } : {}
      return Promise.resolve({
        items,
        ...dropped,
        total: runs.length,
        page: skip / limit + 1,
        size: limit,
        pages: 0
      })
    }
  }
}

const origin = { repository: 'octo/app', author: 'alice' }

test('reads the service time format as UTC', () => {
  expect(runTime('2025-06-21 11:20:04.338000')).toBe(Date.UTC(2025, 5, 21, 11, 20, 4, 338))
  expect(runTime('2025-06-21T11:20:04Z')).toBe(Date.UTC(2025, 5, 21, 11, 20, 4))
  expect(runTime(null)).toBeNaN()
})

test('no limit set: nothing is read', async () => {
  const { list, reads } = service([run(1, 'octo/app')])
  expect(await checkDailyLimits(list, origin, { perRepository: 0, perAuthor: 0 }, NOW)).toEqual({
    kind: 'within'
  })
  expect(reads).toEqual([])
})

test("counts only this repository's runs of the last 24 hours; at the limit, says when the next may start", async () => {
  const { list } = service([
    run(1, 'octo/app'),
    run(2, 'octo/other'),
    run(5, 'OCTO/App'),
    run(23, 'octo/app'),
    run(25, 'octo/app')
  ])
  expect(await checkDailyLimits(list, origin, { perRepository: 4, perAuthor: 0 }, NOW)).toEqual({
    kind: 'within'
  })
  expect(await checkDailyLimits(list, origin, { perRepository: 3, perAuthor: 0 }, NOW)).toEqual({
    kind: 'limited',
    which: 'repository',
    limit: 3,
    count: 3,
    nextAt: NOW - 23 * HOUR + DAY_MS
  })
  // Two allowed, three started: below the limit once the two oldest of the three have left.
  expect(await checkDailyLimits(list, origin, { perRepository: 2, perAuthor: 0 }, NOW)).toMatchObject({
    count: 3,
    nextAt: NOW - 5 * HOUR + DAY_MS
  })
})

test("the per-author limit counts this author's runs of this repository", async () => {
  const { list } = service([
    run(1, 'octo/app', 'bob'),
    run(2, 'octo/app', 'alice'),
    run(3, 'octo/other', 'alice')
  ])
  expect(await checkDailyLimits(list, origin, { perRepository: 0, perAuthor: 2 }, NOW)).toEqual({
    kind: 'within'
  })
  expect(await checkDailyLimits(list, origin, { perRepository: 0, perAuthor: 1 }, NOW)).toMatchObject({
    kind: 'limited',
    which: 'author',
    count: 1
  })
})

test('reads only as many pages as the window needs', async () => {
  const recent = Array.from({ length: LIMIT_PAGE_SIZE + 10 }, () => run(1, 'octo/other'))
  const old = Array.from({ length: 3 * LIMIT_PAGE_SIZE }, () => run(30, 'octo/app'))
  const { list, reads } = service([...recent, ...old])
  expect(await checkDailyLimits(list, origin, { perRepository: 1, perAuthor: 0 }, NOW)).toEqual({
    kind: 'within'
  })
  expect(reads).toEqual([0, LIMIT_PAGE_SIZE])
})

test('runs without the origin the action records do not count; an unreadable time counts as now', async () => {
  const bare = { id: 1, organization_id: 1, created_at: serviceTime(NOW - HOUR), metadata: null } as AgentRun
  const noTime = {
    id: 2,
    organization_id: 1,
    created_at: 'yesterday',
    metadata: { github_action: { repository: 'octo/app' } }
  } as AgentRun
  const { list } = service([bare, noTime])
  expect(await checkDailyLimits(list, origin, { perRepository: 1, perAuthor: 0 }, NOW)).toMatchObject({
    kind: 'limited',
    count: 1,
    nextAt: NOW + DAY_MS
  })
})

test('a full page with an item that cannot be read is full still: the next page is read and its runs counted', async () => {
  const first = Array.from({ length: LIMIT_PAGE_SIZE }, (_, i) =>
    i === 40 ? 'unreadable' : run(1, 'octo/other')
  )
  const { list, reads } = service([...first, run(2, 'octo/app'), run(3, 'octo/app'), run(30, 'octo/app')])
  expect(await checkDailyLimits(list, origin, { perRepository: 2, perAuthor: 0 }, NOW)).toMatchObject({
    kind: 'limited',
    count: 2
  })
  expect(reads).toEqual([0, LIMIT_PAGE_SIZE])
})

test('a run listed out of order with an old time is skipped: the runs after it are counted', async () => {
  const { list, reads } = service([
    run(1, 'octo/app'),
    run(40, 'octo/app'),
    run(2, 'octo/app'),
    run(3, 'octo/app'),
    run(26, 'octo/app'),
    run(27, 'octo/app'),
    run(4, 'octo/app')
  ])
  expect(await checkDailyLimits(list, origin, { perRepository: 3, perAuthor: 0 }, NOW)).toEqual({
    kind: 'limited',
    which: 'repository',
    limit: 3,
    count: 3,
    nextAt: NOW - 3 * HOUR + DAY_MS
  })
  expect(reads).toEqual([0])
})

test('the window passed by the last run of a full page alone: the next page is read, and ends the scan when its runs are older too', async () => {
  const recent = Array.from({ length: LIMIT_PAGE_SIZE - 1 }, () => run(1, 'octo/other'))
  const { list, reads } = service([
    ...recent,
    run(30, 'octo/app'),
    run(2, 'octo/app'),
    run(31, 'octo/app'),
    run(32, 'octo/app'),
    ...Array.from({ length: 2 * LIMIT_PAGE_SIZE }, () => run(33, 'octo/app'))
  ])
  expect(await checkDailyLimits(list, origin, { perRepository: 1, perAuthor: 0 }, NOW)).toMatchObject({
    kind: 'limited',
    count: 1,
    nextAt: NOW - 2 * HOUR + DAY_MS
  })
  expect(reads).toEqual([0, LIMIT_PAGE_SIZE])
})

describe('a busy organization', () => {
  const others = (count: number, hoursAgo = 1) =>
    Array.from({ length: count }, () => run(hoursAgo, 'octo/other'))

  test("more than 1,000 runs of others in the window: the pages behind them are read, this repository's runs counted", async () => {
    const { list, reads } = service([
      ...others(1_250),
      run(20, 'octo/app'),
      run(21, 'octo/app'),
      run(30, 'octo/app')
    ])
    expect(await checkDailyLimits(list, origin, { perRepository: 2, perAuthor: 0 }, NOW)).toMatchObject({
      kind: 'limited',
      count: 2
    })
    expect(reads).toEqual(Array.from({ length: 13 }, (_, page) => page * LIMIT_PAGE_SIZE))
  })

  test('a window the pages do not reach the end of: no count, no start (uncounted, the first limit set), after 20 pages', async () => {
    const { list, reads } = service([...others(MAX_LIMIT_PAGES * LIMIT_PAGE_SIZE), run(23, 'octo/app')])
    const limits = { perRepository: 5, perAuthor: 2 }
    const window = await readDailyWindow(list, origin, limits, NOW)
    expect(window.complete).toBe(false)
    expect(reads).toEqual(Array.from({ length: 20 }, (_, page) => page * LIMIT_PAGE_SIZE))
    expect(limitCheck(window, limits)).toEqual({ kind: 'uncounted', which: 'repository', limit: 5 })
    expect(limitCheck(window, { perRepository: 0, perAuthor: 2 })).toEqual({
      kind: 'uncounted',
      which: 'author',
      limit: 2
    })
    expect(limitCheck(window, limits, 3)).toEqual({ kind: 'uncounted', which: 'fix-attempts', limit: 3 })
  })

  test('a window not read to its end whose runs read already reach a limit: that limit is reached', async () => {
    const { list } = service([run(1, 'octo/app'), run(2, 'octo/app'), ...others(2_500)])
    expect(await checkDailyLimits(list, origin, { perRepository: 2, perAuthor: 0 }, NOW)).toMatchObject({
      kind: 'limited',
      which: 'repository',
      count: 2
    })
  })

  test('the 20th page ending the window: complete', async () => {
    const { list, reads } = service([
      ...others(MAX_LIMIT_PAGES * LIMIT_PAGE_SIZE - 2),
      run(25, 'octo/app'),
      run(26, 'octo/app')
    ])
    const window = await readDailyWindow(list, origin, { perRepository: 1, perAuthor: 0 }, NOW)
    expect(window.complete).toBe(true)
    expect(reads).toHaveLength(20)
  })

  test('the notice of an uncounted window says which input, why, and when a run can start again', () => {
    expect(
      limitedMessage(
        { kind: 'uncounted', which: 'fix-attempts', limit: 3 },
        { ...origin, fixBranch: 'feature/x' }
      )
    ).toBe(
      "No agent run was started: max-fix-attempts (3) could not be counted. The organization's newest 2,000 runs (20 pages, as many as the action reads) are all of the last 24 hours, so the CI-fix runs of the branch feature/x of octo/app behind them are unknown. A run can start once the organization has started fewer than 2,000 runs in 24 hours."
    )
    expect(limitedMessage({ kind: 'uncounted', which: 'author', limit: 2 }, origin)).toContain(
      'daily-run-limit-per-author (2) could not be counted.'
    )
  })
})

describe("a CI fix's attempts (max-fix-attempts)", () => {
  /** A CI-fix run of `branch` (its metadata as the action records it), `hoursAgo`. */
  function fix(hoursAgo: number, branch: string, repository = 'octo/app'): AgentRun {
    const recorded = run(hoursAgo, repository)
    ;(recorded.metadata!.github_action as Record<string, unknown>).ci_fix = { branch, attempt: 1 }
    return recorded
  }
  const fixing = { ...origin, fixBranch: 'feature/x' }
  const none = { perRepository: 0, perAuthor: 0 }

  test("counts this repository's CI-fix runs of the branch in the last 24 hours, though no daily limit is set", async () => {
    const { list, reads } = service([
      fix(1, 'feature/x'),
      run(2, 'octo/app'),
      fix(3, 'feature/y'),
      fix(4, 'Feature/X'),
      fix(5, 'feature/x', 'octo/other'),
      fix(20, 'feature/x'),
      fix(25, 'feature/x')
    ])
    const window = await readDailyWindow(list, fixing, none, NOW)
    expect(window.fixes).toEqual([NOW - 1 * HOUR, NOW - 20 * HOUR])
    expect(reads).toEqual([0])
    expect(limitCheck(window, none, 3)).toEqual({ kind: 'within' })
    expect(limitCheck(window, none, 2)).toEqual({
      kind: 'limited',
      which: 'fix-attempts',
      limit: 2,
      count: 2,
      nextAt: NOW - 20 * HOUR + DAY_MS
    })
    // A run that is no CI fix is not held back by them.
    expect(limitCheck(window, none)).toEqual({ kind: 'within' })
  })

  test('the notice names the input, the branch and when the next fix can start', () => {
    const check = { kind: 'limited', which: 'fix-attempts', limit: 3, count: 3, nextAt: NOW + HOUR } as const
    expect(limitedMessage(check, fixing)).toBe(
      'No agent run was started: max-fix-attempts (3) is reached, with 3 CI-fix runs started for the branch feature/x of octo/app in the last 24 hours. The next can start at 2026-11-25 13:00 UTC.'
    )
  })
})
