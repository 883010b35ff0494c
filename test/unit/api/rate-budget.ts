import { DOCUMENTED_BUDGETS, RateBudget, SlidingWindow } from '../../../src/api/rate-budget.js'
import {
  backoffDelay,
  parseRetryAfter,
  REFUSED_WAIT_CAP_MS,
  refusedRetryDelay
} from '../../../src/api/retry.js'
import { describeHttpError, serviceMessage } from '../../../src/api/errors.js'

describe('SlidingWindow', () => {
  test('lets `limit` requests through per window, then waits for the oldest to leave', () => {
    const window = new SlidingWindow({ limit: 3, windowMs: 1_000 })
    for (const t of [0, 10, 20]) {
      expect(window.delayAt(t)).toBe(0)
      window.record(t)
    }
    expect(window.delayAt(30)).toBe(1_000 + 500 - 30)
    expect(window.delayAt(1_500)).toBe(0)
  })

  test('a budget waits for the fullest of its windows', () => {
    const budget = new RateBudget({
      general: { limit: 100, windowMs: 1_000 },
      create: { limit: 1, windowMs: 60_000 },
      logs: { limit: 100, windowMs: 1_000 }
    })
    budget.record(['general', 'create'], 0)
    expect(budget.delayAt(['general'], 1)).toBe(0)
    expect(budget.delayAt(['general', 'create'], 1)).toBe(60_499)
  })

  test("the budgets are the service's documented limits", () => {
    expect(DOCUMENTED_BUDGETS).toEqual({
      general: { limit: 60, windowMs: 30_000 },
      create: { limit: 10, windowMs: 60_000 },
      logs: { limit: 60, windowMs: 60_000 },
      setup: { limit: 5, windowMs: 60_000 }
    })
    // Setup-command generations: 5 in any minute, the sixth waits for the first to slide out.
    const setup = new RateBudget()
    for (let n = 0; n < 5; n++) {
      expect(setup.delayAt(['general', 'setup'], n)).toBe(0)
      setup.record(['general', 'setup'], n)
    }
    expect(setup.delayAt(['general', 'setup'], 5)).toBe(60_500 - 5)
    expect(setup.delayAt(['general'], 5)).toBe(0)
    // Creates: at most 10 in any minute, each also counted in the general window.
    const budget = new RateBudget()
    const creates: number[] = []
    for (let now = 0; creates.length < 25;) {
      now += budget.delayAt(['general', 'create'], now)
      budget.record(['general', 'create'], now)
      creates.push(now)
    }
    for (let i = 10; i < creates.length; i++)
      expect((creates[i] as number) - (creates[i - 10] as number)).toBeGreaterThan(60_000)
    // Every request: at most 60 in any 30 s.
    const reads: number[] = []
    for (let now = 0; reads.length < 200;) {
      now += budget.delayAt(['general'], now)
      budget.record(['general'], now)
      reads.push(now)
    }
    for (let i = 60; i < reads.length; i++)
      expect((reads[i] as number) - (reads[i - 60] as number)).toBeGreaterThan(30_000)
  })

  test('the documented limits hold over a long stream of requests', () => {
    const budget = new RateBudget()
    const sent: number[] = []
    let now = 0
    while (sent.length < 500) {
      now += budget.delayAt(['general', 'logs'], now)
      budget.record(['general', 'logs'], now)
      sent.push(now)
    }
    // No 60-second span holds more than 60 log reads.
    for (let i = 60; i < sent.length; i++)
      expect((sent[i] as number) - (sent[i - 60] as number)).toBeGreaterThan(60_000)
  })
})

describe('retry timing', () => {
  test('backoff doubles up to a cap and keeps half of it fixed', () => {
    expect(backoffDelay(1, 0)).toBe(500)
    expect(backoffDelay(1, 0.999)).toBeLessThanOrEqual(1_000)
    expect(backoffDelay(3, 0)).toBe(2_000)
    expect(backoffDelay(20, 1)).toBe(30_000)
  })

  test('Retry-After as seconds or a date, capped', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter('3', now)).toBe(3_000)
    expect(parseRetryAfter('0.5', now)).toBe(500)
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000)
    expect(parseRetryAfter('86400', now)).toBe(60_000)
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter(null, now)).toBeUndefined()
  })
})

describe('service errors', () => {
  test('reads message, then detail, then the raw text (a gateway page by its title or text)', () => {
    expect(serviceMessage('{"message":"Agent run not found.","status_code":404}')).toBe(
      'Agent run not found.'
    )
    expect(serviceMessage('{"detail":"Invalid token"}')).toBe('Invalid token')
    expect(
      serviceMessage('{"detail":[{"loc":["body","prompt"],"msg":"Field required","type":"missing"}]}')
    ).toBe('prompt: Field required')
    expect(serviceMessage('Internal Server Error')).toBe('Internal Server Error')
    expect(serviceMessage(`<html${'<'.repeat(300_000)}`)).toMatch(/^<html<+$/)
    expect(serviceMessage('<html><title>502 Bad Gateway</title><body><h1>x</h1></body></html>')).toBe(
      '502 Bad Gateway'
    )
    expect(serviceMessage('{"detail":[{"loc":["body",["deep"]],"msg":{"a":1}}]}')).toBe('[…]: {…}')
    expect(serviceMessage('<html>Bad gateway</html>')).toBe('Bad gateway')
    expect(
      serviceMessage(
        '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><h1>502 Bad Gateway</h1></body></html>'
      )
    ).toBe('502 Bad Gateway')
  })

  test('says what each status means', () => {
    expect(describeHttpError(401, 'create the agent run', 'bad token')).toBe(
      'Authentication failed (401) while trying to create the agent run: check the api-token input (a Codegen API token). The service said: bad token'
    )
    expect(describeHttpError(402, 'x', '')).toMatch(/allowance is used up \(402\)/)
    expect(describeHttpError(403, 'x', '')).toMatch(/Permission denied \(403\).*org-id/)
    expect(describeHttpError(404, 'x', '')).toMatch(/Not found \(404\)/)
    expect(describeHttpError(422, 'x', 'prompt: Field required')).toMatch(
      /invalid \(422\).*prompt: Field required/
    )
  })
})

describe('congestion on a shared token', () => {
  test('a 429 halves the allowance down to an eighth, and successes win it back slowly', () => {
    const window = new SlidingWindow({ limit: 64, windowMs: 1_000 })
    for (let i = 0; i < 64; i++) window.record(i)
    window.congested(100)
    expect(window.limit).toBe(32)
    for (let i = 0; i < 10; i++) window.congested(100)
    expect(window.limit).toBe(8)
    for (let i = 0; i < 8; i++) window.relieved()
    expect(window.limit).toBe(9)
    for (let i = 0; i < 10_000; i++) window.relieved()
    expect(window.limit).toBe(64)
  })

  test('the allowance is cut from what the job was sending, not from the limit', () => {
    const window = new SlidingWindow({ limit: 64, windowMs: 1_000 })
    for (let i = 0; i < 19; i++) window.record(i * 50)
    // 19 sent and one refused within the window: 20, halved.
    window.congested(1_000)
    expect(window.limit).toBe(10)
  })

  test('the smaller allowance sets the pace, a gap between requests', () => {
    const window = new SlidingWindow({ limit: 4, windowMs: 1_000 })
    window.record(0)
    window.record(1)
    window.congested(1_000)
    // 2 sent and 1 refused, halved: 1.5, the floor (4/8) below it; one request a second.
    expect(window.paceAt(1_000)).toEqual({ gapMs: 1_000, congested: true })
    expect(window.delayAt(1_000)).toBe(0)
  })
})

describe('the retry of a refused read', () => {
  const logs = { limit: 60, windowMs: 60_000 }

  test('waits for the oldest request of its own to leave the window, when that is near', () => {
    const window = new SlidingWindow(logs)
    // A job that has looked every 5 s since 0: at 50 s the window is full and its 0 s read leaves at 60.5 s.
    for (let t = 0; t <= 45_000; t += 5_000) window.record(t)
    expect(window.slotFreedIn(50_000)).toBe(10_500)
    // Past the share of the window (a quarter): a young job is not among those that filled it.
    expect(window.slotFreedIn(45_000 - 1)).toBeUndefined()
    expect(new SlidingWindow(logs).slotFreedIn(50_000)).toBeUndefined()
  })

  test('a request the service refused does not count as a slot held', () => {
    const window = new SlidingWindow(logs)
    window.record(0)
    window.record(50_000)
    window.recordAnswer(0)
    expect(window.slotFreedIn(50_000)).toBeUndefined()
  })

  test('a budget waits for the windows in reach, the longest of them', () => {
    const budget = new RateBudget()
    for (let t = 0; t <= 45_000; t += 5_000) budget.record(['general', 'logs'], t)
    // At 50 s general (30 s) holds 20 s..45 s, its oldest leaving at 50.5 s; logs holds 0 s..45 s.
    expect(budget.slotFreedIn(['general'], 50_000)).toBe(500)
    expect(budget.slotFreedIn(['general', 'logs'], 50_000)).toBe(10_500)
    // A young job: its oldest request leaves general 18.5 s on, further than a quarter of the window.
    const young = new RateBudget()
    young.record(['general'], 0)
    expect(young.slotFreedIn(['general'], 12_000)).toBeUndefined()
    expect(young.slotFreedIn(['general'], 23_000)).toBe(7_500)
  })

  const refusal = { backoffMs: 700, write: false, leftMs: Infinity }

  test('Retry-After is obeyed as told', () => {
    expect(refusedRetryDelay({ ...refusal, retryAfterMs: 1_300, slotFreedInMs: 9_000 })).toBe(1_300)
    expect(refusedRetryDelay({ ...refusal, retryAfterMs: 0 })).toBe(0)
  })

  test('without it a read waits for its slot, never less than the back-off', () => {
    expect(refusedRetryDelay({ ...refusal, slotFreedInMs: 9_500 })).toBe(9_500)
    expect(refusedRetryDelay({ ...refusal, slotFreedInMs: 200 })).toBe(700)
    expect(refusedRetryDelay({ ...refusal })).toBe(700)
  })

  test('writes, and reads whose slot frees past the deadline, keep the back-off', () => {
    expect(refusedRetryDelay({ ...refusal, write: true, slotFreedInMs: 10_500 })).toBe(700)
    expect(refusedRetryDelay({ ...refusal, slotFreedInMs: 10_500, leftMs: 10_500 })).toBe(700)
    expect(refusedRetryDelay({ ...refusal, slotFreedInMs: 9_500, leftMs: 12_000 })).toBe(9_500)
  })

  test('without Retry-After no wait exceeds 10 s, or poll-interval when longer', () => {
    // The service's window may be shorter than documented: a slot or a back-off further off is cut.
    expect(refusedRetryDelay({ ...refusal, slotFreedInMs: 14_000 })).toBe(REFUSED_WAIT_CAP_MS)
    expect(refusedRetryDelay({ ...refusal, backoffMs: 16_000 })).toBe(10_000)
    expect(refusedRetryDelay({ ...refusal, write: true, backoffMs: 30_000 })).toBe(10_000)
    expect(refusedRetryDelay({ ...refusal, backoffMs: 30_000, pollIntervalMs: 1_000 })).toBe(10_000)
    expect(refusedRetryDelay({ ...refusal, backoffMs: 30_000, pollIntervalMs: 20_000 })).toBe(20_000)
    expect(refusedRetryDelay({ ...refusal, slotFreedInMs: 14_000, pollIntervalMs: 12_000 })).toBe(12_000)
    // Retry-After is the service's word: obeyed as told, however long.
    expect(refusedRetryDelay({ ...refusal, retryAfterMs: 40_000 })).toBe(40_000)
    // Every back-off the client draws, capped.
    for (let attempt = 1; attempt <= 12; attempt++)
      expect(refusedRetryDelay({ ...refusal, backoffMs: backoffDelay(attempt, 0.999) })).toBeLessThanOrEqual(
        10_000
      )
  })
})
