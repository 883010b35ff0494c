import { DOCUMENTED_RATE_LIMITS } from '../../../emulator/index.js'
import type { RecordedRequest } from '../../../emulator/index.js'
import { run, figures, expectRightOutcomes, expectWaitsAfter429 } from '../../support/shared-token-checks.js'
import { SharedTokenFlow } from '../../support/shared-token-flow.js'

/**
 * Several jobs of a matrix on one token, at once, in process on one virtual clock with the emulator
 * that enforces the limits across them (the world: test/support/shared-token-flow.ts; the checks: shared-token-checks.ts).
 */

const world = new SharedTokenFlow()

test('jobs refused together do not all come back together', async () => {
  // Retry-After tells every job the same moment; without jitter on top they meet the window again
  // in lockstep (and draw a 429 each, again). Five jobs, a window of 5 log reads per 10 s: their
  // first reads fill it, their second ones are refused. Each job's next request comes that long
  // after the moment Retry-After named: without jitter 0 ms for all of them (one clock); with a
  // jitter of up to 1 s, all five within 50 ms once in three million runs.
  const emulator = await world.startEmulator({
    rateLimits: { ...DOCUMENTED_RATE_LIMITS, logs: { limit: 5, windowMs: 10_000 } },
    retryAfterHeader: true
  })
  for (let i = 0; i < 5; i++) emulator.queueScript(run(6, 'COMPLETE', 1_000, 1))
  const jobs = await world.matrix(5, '1')
  const { perJob } = figures(emulator, 'refused together', jobs, 6_000, 'virtual')
  expectRightOutcomes(emulator, jobs, perJob)
  expectWaitsAfter429(perJob, 0, 'virtual')
  const jitter = perJob.flatMap(own => {
    const first = own.findIndex(request => request.status === 429)
    const refused = own[first] as RecordedRequest
    const next = own[first + 1]
    return first >= 0 && next ? [next.at - refused.at - (refused.retryAfter ?? 0) * 1000] : []
  })
  console.log(`refused together: after Retry-After, the jobs came back ${jitter.join(', ')} ms later`)
  expect(jitter).toHaveLength(5)
  expect(Math.max(...jitter)).toBeGreaterThanOrEqual(50)
  // Each within the second of jitter on top of Retry-After.
  for (const ms of jitter) expect(ms).toBeLessThanOrEqual(1_000)
})

test('five jobs against limits scaled down 6x collide, back off with jitter, and all finish right', async () => {
  // 10 requests per 5 s and 10 log reads per 10 s, shared: far below what five fast pollers ask for.
  const emulator = await world.startEmulator({
    rateLimits: {
      general: { limit: 10, windowMs: 5_000 },
      create: { limit: 10, windowMs: 10_000 },
      logs: { limit: 10, windowMs: 10_000 }
    }
  })
  for (let i = 0; i < 5; i++) emulator.queueScript(run(3, i % 2 ? 'ERROR' : 'COMPLETE'))
  const jobs = await world.matrix(5, '0.5')
  const { perJob, rateLimited, requests } = figures(emulator, 'limits scaled down', jobs, 3_000, 'virtual')
  expectRightOutcomes(emulator, jobs, perJob)
  // No Retry-After here: each 429 is followed by backoff, at least half of 1 s.
  expectWaitsAfter429(perJob, 500, 'virtual')
  // Congestion control: each 429 halves the job's budget; three take it to its floor (an eighth),
  // where five jobs fit in the shared window. So about three per job (13 or 14 in all in 60 runs,
  // at most 4 for one job): at most four per job on average, five for any one.
  for (const own of perJob)
    expect(own.filter(request => request.status === 429).length).toBeLessThanOrEqual(5)
  expect(rateLimited).toBeGreaterThan(0)
  expect(rateLimited).toBeLessThanOrEqual(20)
  expect(requests).toBeLessThan(60)
})

test('with runs long enough to fill a 20-per-20 s window anyway, every wait after a 429 is at most 10 s', async () => {
  // Five jobs looking every second want five reads a second against one: the window fills (about
  // 8 s in) and holds until its first requests leave it, 20 s after they were sent. No Retry-After:
  // the action's own backoff, capped at 10 s, not the window's 20 s. (test:windows runs the same
  // jobs as bundles in real time.)
  const emulator = await world.startEmulator({
    rateLimits: { general: { limit: 20, windowMs: 20_000 }, logs: { limit: 20, windowMs: 20_000 } }
  })
  for (let i = 0; i < 5; i++) emulator.queueScript(run(12, i % 2 ? 'ERROR' : 'COMPLETE'))
  const jobs = await world.matrix(5, '1')
  const { perJob } = figures(emulator, '12 s runs', jobs, 12_000, 'virtual')
  expectRightOutcomes(emulator, jobs, perJob)
  const waits = perJob.flatMap(own =>
    own.flatMap((request, n) => {
      const next = own[n + 1]
      return request.status === 429 && next ? [next.at - request.at] : []
    })
  )
  expect(waits.length).toBeGreaterThan(0)
  expect(Math.max(...waits)).toBeLessThanOrEqual(10_000)
  // Each job sees its end soon after the window frees: its fill (8 s) + the window (20 s) + a wait (10 s).
  for (const job of jobs) expect(job.durationMs).toBeLessThan(45_000)
})
