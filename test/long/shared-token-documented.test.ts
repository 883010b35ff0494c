import { DOCUMENTED_RATE_LIMITS } from '../../emulator/index.js'
import { run, figures, expectRightOutcomes, expectWaitsAfter429 } from '../support/shared-token-checks.js'
import { emulator, matrix, startEmulator } from './shared-token-jobs.js'

/**
 * Several jobs of a matrix on one token (the world: shared-token-jobs.ts; the checks:
 * test/support/shared-token-checks.ts).
 */

test('six jobs on one token at the documented settings (docs/limits.md: poll-interval 6) fill the documented windows with few 429s', async () => {
  // The worst case for the log window (60 reads per 60 s): every job polls each second from its
  // FINAL_ANSWER on, and here the six answers come together, 25 s before the runs end.
  await startEmulator({ rateLimits: DOCUMENTED_RATE_LIMITS, retryAfterHeader: true })
  for (let i = 0; i < 6; i++) emulator.queueScript(run(35, i % 2 ? 'ERROR' : 'COMPLETE', 1_000, 10))
  const results = await matrix(6, '6')
  const { perJob, rateLimited, worstLagMs } = figures(emulator, 'documented limits', results, 35_000, 'real')
  expectRightOutcomes(emulator, results, perJob)
  expectWaitsAfter429(perJob, 0, 'real')
  // The window does fill: the log reads that got through hold it full at least once.
  const reads = emulator.requests.filter(request => request.route === 'logs' && request.status === 200)
  expect(reads.some((read, n) => (reads[n + 59]?.at ?? Infinity) - read.at < 60_000)).toBe(true)
  // Few 429s. Each job keeps the whole documented budget on its own and learns of the others only
  // from a 429, which halves its budget and sends it to the window's edge (Retry-After): it meets
  // the window full once as it fills, and once more at most when the jobs come back together.
  for (const own of perJob)
    expect(own.filter(request => request.status === 429).length).toBeLessThanOrEqual(3)
  expect(rateLimited).toBeLessThanOrEqual(18)
  // The price: a job sees its run's end up to one log window (60 s) late.
  expect(worstLagMs).toBeLessThan(60_000)
}, 150_000)
