import { DOCUMENTED_BUDGETS, RateBudget } from '../../../src/api/rate-budget.js'
import {
  fastPollMs,
  lookIntervalMs,
  nextLook,
  paceNotice,
  startGapMs
} from '../../../src/agent-run/pacing.js'

// The pacing policy as pure functions of (time, budget state, what the last look saw). Bounds are
// written out here, not taken from the module's constants: a change of policy must change the test.

describe('lookIntervalMs: poll-interval is the longest wait', () => {
  test('looks every base while the run works, quiet or not', () => {
    expect(lookIntervalMs(5_000)).toBe(5_000)
    expect(lookIntervalMs(60_000)).toBe(60_000)
    expect(lookIntervalMs(50)).toBe(50)
  })

  test('after a FINAL_ANSWER: every second for 30 s, then every base again', () => {
    expect(lookIntervalMs(5_000, 0)).toBe(1_000)
    expect(lookIntervalMs(5_000, 29_999)).toBe(1_000)
    expect(lookIntervalMs(5_000, 30_000)).toBe(5_000)
  })

  test('below the default, the fast looks scale with the base (what the benchmark relies on)', () => {
    expect(fastPollMs(1_250)).toBe(250)
    expect(lookIntervalMs(1_250, 7_499)).toBe(250)
    expect(lookIntervalMs(1_250, 7_500)).toBe(1_250)
  })

  test('above the default, the fast looks keep their absolute second and 30 s', () => {
    expect(lookIntervalMs(60_000, 29_000)).toBe(1_000)
    expect(lookIntervalMs(60_000, 30_000)).toBe(60_000)
  })

  test('never later than the base, whatever was seen', () => {
    for (const base of [50, 1_000, 5_000, 120_000])
      for (const since of [undefined, 0, 500, 10_000, 31_000, 10 ** 9])
        expect(lookIntervalMs(base, since)).toBeLessThanOrEqual(base)
  })

  test('at most 30 fast looks per FINAL_ANSWER, whatever the base', () => {
    for (const base of [100, 1_000, 5_000, 30_000]) {
      let elapsed = 0
      let looks = 0
      while (lookIntervalMs(base, elapsed) < base) {
        elapsed += lookIntervalMs(base, elapsed)
        looks++
      }
      expect(looks).toBeLessThanOrEqual(30)
    }
  })
})

describe('the gentle start: jobs that start together do not fill a window together', () => {
  test('the first look waits 4 s at most, or four bases when shorter; each look halves it', () => {
    expect([0, 1, 2, 3].map(done => startGapMs(1_000, done))).toEqual([4_000, 2_000, 1_000, 500])
    expect([0, 1, 2].map(done => startGapMs(100, done))).toEqual([400, 200, 100])
    expect(startGapMs(60_000, 0)).toBe(4_000)
  })

  test('below a base of 4 s the first three looks come later than the base, silently', () => {
    const waits = [0, 1, 2, 3].map(looksDone =>
      nextLook({ pollIntervalMs: 1_000, sinceLookMs: 0, looksDone })
    )
    expect(waits).toEqual([{ waitMs: 4_000 }, { waitMs: 2_000 }, { waitMs: 1_000 }, { waitMs: 1_000 }])
  })

  test('at a base of 4 s and above it changes nothing: the base is the longer', () => {
    for (const pollIntervalMs of [4_000, 5_000, 60_000])
      expect(nextLook({ pollIntervalMs, sinceLookMs: 0, looksDone: 0 })).toEqual({ waitMs: pollIntervalMs })
  })

  test('it holds the fast looks after a FINAL_ANSWER too, and the budget still comes on top', () => {
    expect(nextLook({ pollIntervalMs: 1_000, sinceLookMs: 0, sinceFinalAnswerMs: 0, looksDone: 1 })).toEqual({
      waitMs: 2_000
    })
    const pace = { gapMs: 3_000, congested: true }
    expect(nextLook({ pollIntervalMs: 1_000, sinceLookMs: 0, looksDone: 2 }, pace)).toEqual({
      waitMs: 3_000,
      lateBy: pace
    })
  })
})

describe('nextLook: the policy under the budget', () => {
  test('the wait counts from the start of the last look', () => {
    expect(nextLook({ pollIntervalMs: 5_000, sinceLookMs: 120, looksDone: 9 })).toEqual({ waitMs: 4_880 })
    expect(nextLook({ pollIntervalMs: 5_000, sinceLookMs: 7_000, looksDone: 9 })).toEqual({ waitMs: 0 })
  })

  test('a budget pace shorter than the base changes nothing', () => {
    expect(
      nextLook({ pollIntervalMs: 5_000, sinceLookMs: 0, looksDone: 9 }, { gapMs: 1_026, congested: false })
    ).toEqual({
      waitMs: 5_000
    })
  })

  test('the fast looks after a FINAL_ANSWER wait for the budget, silently while within the base', () => {
    const pace = { gapMs: 1_026, congested: false }
    expect(
      nextLook({ pollIntervalMs: 5_000, sinceLookMs: 10, sinceFinalAnswerMs: 10, looksDone: 9 }, pace)
    ).toEqual({
      waitMs: 1_026
    })
  })

  test('a budget pace beyond the base delays the look and is reported', () => {
    const pace = { gapMs: 1_026, congested: false }
    expect(nextLook({ pollIntervalMs: 50, sinceLookMs: 5, looksDone: 9 }, pace)).toEqual({
      waitMs: 1_026,
      lateBy: pace
    })
  })

  test('the notice says the pace it keeps and why', () => {
    expect(paceNotice(50, { gapMs: 1_026, congested: false })).toBe(
      "poll-interval 0.05 s is faster than the service's rate limits allow one job (60 log reads per minute per token): looking at the run about every 1.0 s."
    )
    expect(paceNotice(5_000, { gapMs: 8_125, congested: true })).toMatch(
      /Other jobs share the API token \(the service answered 429\): looking at the run about every 8\.1 s, not every 5 s \(poll-interval\)/
    )
  })
})

describe('the budget spends each window evenly, with a reserve for the end', () => {
  const LOOK = ['general', 'logs'] as const

  test('the first ten requests of a window go at the pace asked, then the rest is spread', () => {
    const budget = new RateBudget()
    for (let look = 0; look < 10; look++) {
      expect(budget.paceAt([...LOOK], look * 50)).toEqual({ gapMs: 0, congested: false })
      budget.record([...LOOK], look * 50)
    }
    // 49 left of the 59 usable (one kept for the end) until the first leaves, 60.5 s after it.
    expect(budget.paceAt([...LOOK], 500)).toEqual({ gapMs: Math.ceil(60_000 / 49), congested: false })
  })

  test('the steady pace of a look is the log window spread over its limit less the reserve', () => {
    const budget = new RateBudget()
    // Looks every 2 s for a minute, a window's worth: then 60.5 s / 59 (one kept for the end).
    for (let look = 0; look < 31; look++) budget.record([...LOOK], look * 2_000)
    expect(budget.paceAt([...LOOK], 60_400)).toEqual({ gapMs: 1_026, congested: false })
    // A run read alone, past its first ten: 60 per 30 s, two kept back: 30.5 s / 58.
    for (let read = 0; read < 10; read++) budget.record(['general'], 100_000 + read * 3_000)
    expect(budget.paceAt(['general'], 130_000)).toEqual({ gapMs: 526, congested: false })
  })

  test('looks at the pace never wait on the window, over ten minutes', () => {
    const budget = new RateBudget()
    let now = 0
    for (let look = 0; look < 600; look++) {
      expect(budget.delayAt([...LOOK], now)).toBe(0)
      budget.record([...LOOK], now)
      now += budget.paceAt([...LOOK], now).gapMs
    }
  })

  test('after a backlog burst, what is left of the window is spread until the burst leaves', () => {
    const budget = new RateBudget()
    for (let page = 0; page < 31; page++) budget.record([...LOOK], page * 5)
    // 59 usable, 31 spent: 28 left for the 60.5 s until the first page leaves.
    const pace = budget.paceAt([...LOOK], 200)
    expect(pace.gapMs).toBe(Math.ceil((60_500 - 200) / 28))
    // Looking at that pace, no look ever waits on the window.
    let now = 200
    for (let look = 0; look < 80; look++) {
      expect(budget.delayAt([...LOOK], now)).toBe(0)
      budget.record([...LOOK], now)
      now += budget.paceAt([...LOOK], now).gapMs
    }
  })

  test('the reserve: when the window is spent, the end still reads at once', () => {
    const budget = new RateBudget()
    // A backlog read as fast as the budget lets it: it stops short of the reserve.
    let now = 0
    let pages = 0
    while (budget.delayAt([...LOOK], now) === 0) {
      budget.record([...LOOK], now++)
      pages++
    }
    expect(pages).toBe(58)
    expect(budget.delayAt([...LOOK], now)).toBeGreaterThan(29_000)
    // The last log page and the final run read go at once.
    expect(budget.delayAt([...LOOK], now, true)).toBe(0)
    budget.record([...LOOK], now++)
    expect(budget.delayAt(['general'], now, true)).toBe(0)
    budget.record(['general'], now++)
    // Beyond the reserve, even the end waits: the service's limit is never passed.
    expect(budget.delayAt(['general'], now, true)).toBeGreaterThan(29_000)
  })

  test('a request counts from its answer, so latency never lets the window slide early', () => {
    const budget = new RateBudget(
      { ...DOCUMENTED_BUDGETS, logs: { limit: 2, windowMs: 10_000 } },
      {
        general: 0,
        create: 0,
        logs: 0
      }
    )
    budget.record(['logs'], 0)
    budget.recordAnswer(['logs'], 0, 3_000)
    budget.record(['logs'], 3_000)
    // Counted at 3 s, not 0: the window frees at 13.5 s.
    expect(budget.delayAt(['logs'], 10_600)).toBe(13_500 - 10_600)
    // A refusal is not counted at all.
    budget.recordAnswer(['logs'], 3_000)
    expect(budget.delayAt(['logs'], 10_600)).toBe(0)
  })

  test('congestion: a 429 halves the rate the job was sending, and slows the looks, not the retry', () => {
    const budget = new RateBudget()
    // A job looking every 5 s for a minute: 12 reads in the window, and the 13th refused.
    for (let look = 0; look < 12; look++) budget.record([...LOOK], look * 5_000)
    budget.congested([...LOOK], 60_000)
    // 13 halved is 6.5, below the floor of an eighth of 60 (7.5 → 7): one look every 60 s / 7.
    expect(budget.paceAt([...LOOK], 60_000)).toEqual({ gapMs: 8_572, congested: true })
    // The refused request itself is retried after the client's back-off: the window has room.
    expect(budget.delayAt([...LOOK], 60_000)).toBe(0)
    // Successes win it back: a window's worth of them, one more request per window.
    for (let i = 0; i < 7; i++) budget.relieved([...LOOK])
    expect(budget.paceAt([...LOOK], 60_000).gapMs).toBe(7_500)
  })

  test('congestion on a young window: the rate is measured over its age, so a fast job is cut less', () => {
    const budget = new RateBudget()
    // Four reads in the first two seconds: 120 a minute, capped by the limit (60), halved.
    for (let read = 0; read < 4; read++) budget.record([...LOOK], read * 500)
    budget.congested([...LOOK], 2_000)
    expect(budget.paceAt([...LOOK], 2_000)).toEqual({ gapMs: 2_000, congested: true })
  })
})
