import {
  AgentRunEmulator,
  DOCUMENTED_RATE_LIMITS,
  type RecordedRequest,
  type RunScript
} from '../emulator/index.js'
import { runAction, type RunnerResult } from '../harness/runner-process.js'

/**
 * Several jobs of a matrix on one token, against an emulator that enforces the limits across all
 * of them: every job ends with the right outcome, the 429s they draw are few, and after each one
 * the job waits (Retry-After when sent, else backoff) before its next request. All checked from the
 * emulator's own request log.
 */

let emulator: AgentRunEmulator
afterEach(async () => {
  await emulator.stop()
})

/**
 * A run of `seconds` with an entry every `every` ms until its FINAL_ANSWER (`finalAt` s, default just
 * before the end): traffic while entries flow, and the fast polling between the answer and the end.
 */
function run(seconds: number, ending: 'COMPLETE' | 'ERROR', every = 400, finalAt = seconds - 0.2): RunScript {
  const ms = seconds * 1000
  const steps: RunScript['steps'] = [{ at: 0, status: 'ACTIVE' }]
  for (let at = 200; at < finalAt * 1000 - 100; at += every) {
    steps.push({ at, log: { message_type: 'ACTION', tool_name: 'run_command', thought: `step at ${at} ms` } })
  }
  steps.push({ at: finalAt * 1000, log: { message_type: 'FINAL_ANSWER', observation: 'done' } })
  steps.push({ at: ms, status: ending, result: `ended ${ending}` })
  return { steps }
}

async function matrix(jobs: number, pollInterval: string): Promise<RunnerResult[]> {
  return Promise.all(
    Array.from({ length: jobs }, (_, i) =>
      runAction({
        inputs: {
          'api-token': 'emulator-token',
          'org-id': '1',
          'base-url': emulator.baseUrl,
          'repo-id': '101',
          prompt: `job ${i}`,
          'poll-interval': pollInterval,
          'timeout-minutes': '3',
          'fail-on': 'timeout'
        },
        killAfterMs: 200_000
      })
    )
  )
}

interface Figures {
  requests: number
  rateLimited: number
  /** Per job: its requests in order (its creates, then those naming its run). */
  perJob: RecordedRequest[][]
  /** The longest a job took to see its run's end, in ms after the end. */
  worstLagMs: number
}

function figures(label: string, results: RunnerResult[], runMs: number): Figures {
  const requests = emulator.requests
  const rateLimited = requests.filter(request => request.status === 429).length
  const perJob = results.map((result, i) => {
    const runPath = `/agent/run/${result.outputs['agent-run-id']}`
    return requests.filter(request =>
      request.route === 'create'
        ? (request.body as { prompt?: string } | undefined)?.prompt === `job ${i}`
        : request.path.endsWith(runPath) || request.path.includes(`${runPath}/`)
    )
  })
  // The run started when its create was answered; its last read came after the end.
  const lags = perJob.map(own => {
    const created = own.find(request => request.route === 'create' && request.status === 200)
    return (own.at(-1)?.at ?? 0) - ((created?.at ?? 0) + runMs)
  })
  const worstLagMs = Math.max(...lags)
  // SHARED_TRACE=1: each job's requests, as "12.3 logs 429 (Retry-After 7)", seconds from the first.
  if (process.env.SHARED_TRACE) {
    const first = requests[0]?.at ?? 0
    const show = (r: RecordedRequest): string =>
      `${((r.at - first) / 1000).toFixed(1)} ${r.route} ${r.status}${r.retryAfter ? ` (Retry-After ${r.retryAfter})` : ''}`
    perJob.forEach((own, i) => console.log(`job ${i}: ${own.map(show).join(', ')}`))
  }
  const perJob429 = perJob.map(own => own.filter(request => request.status === 429).length).join('/')
  const slowest = Math.max(...results.map(result => result.durationMs))
  console.log(
    `${label}: ${results.length} jobs, ${requests.length} requests, ${rateLimited} answered 429 (${perJob429} per job), ` +
      `end seen at worst ${worstLagMs} ms late, slowest job ${slowest} ms`
  )
  return { requests: requests.length, rateLimited, perJob, worstLagMs }
}

function expectRightOutcomes(results: RunnerResult[], perJob: RecordedRequest[][]): void {
  // Each job's outcome is the one its own run ended with (odd jobs fail), and none failed otherwise.
  for (const result of results) {
    const run = emulator.run(Number(result.outputs['agent-run-id']))!
    expect(result.exitCode).toBe(0)
    expect(result.outputs['outcome']).toBe(run.status === 'COMPLETE' ? 'success' : 'failure')
    expect(result.outputs['log-count']).toBe(String(run.logs.length))
  }
  const ids = results.map(result => result.outputs['agent-run-id'])
  expect(new Set(ids).size).toBe(results.length)
  expect(emulator.runs()).toHaveLength(results.length)
  // Every request is one job's: none is lost to the grouping above.
  expect(perJob.flat()).toHaveLength(emulator.requests.length)
}

/** After a 429, the job's next request waits at least what it was told (Retry-After), or `minMs`. */
function expectWaitsAfter429(perJob: RecordedRequest[][], minMs: number): void {
  const early: string[] = []
  for (const own of perJob) {
    own.forEach((request, n) => {
      const next = own[n + 1]
      if (request.status !== 429 || !next) return
      const wanted = request.retryAfter === undefined ? minMs : request.retryAfter * 1000
      // The client's clock and the emulator's are the same; 5 ms for the timers' granularity.
      if (next.at - request.at < wanted - 5)
        early.push(
          `${request.path} at ${request.at}: next after ${next.at - request.at} ms, wanted ${wanted}`
        )
    })
  }
  expect(early).toEqual([])
}

test('six jobs on one token at the README settings (poll-interval 6) fill the documented windows with few 429s', async () => {
  // The worst case for the log window (60 reads per 60 s): every job polls each second from its
  // FINAL_ANSWER on, and here the six answers come together, 25 s before the runs end.
  emulator = new AgentRunEmulator({ rateLimits: DOCUMENTED_RATE_LIMITS, retryAfterHeader: true })
  await emulator.start()
  for (let i = 0; i < 6; i++) emulator.queueScript(run(35, i % 2 ? 'ERROR' : 'COMPLETE', 1_000, 10))
  const results = await matrix(6, '6')
  const { perJob, rateLimited, worstLagMs } = figures('documented limits', results, 35_000)
  expectRightOutcomes(results, perJob)
  expectWaitsAfter429(perJob, 0)
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

test('jobs refused together do not all come back together', async () => {
  // Retry-After tells every job the same moment; without jitter on top they meet the window again
  // in lockstep (and draw a 429 each, again). Five jobs, a window of 5 log reads per 10 s: their
  // first reads fill it, their second ones are refused. Each job's next request comes that long
  // after the moment Retry-After named: without jitter 0–10 ms (timers) for all of them; with a
  // jitter of up to 1 s, all five within 50 ms once in three million runs.
  emulator = new AgentRunEmulator({
    rateLimits: { ...DOCUMENTED_RATE_LIMITS, logs: { limit: 5, windowMs: 10_000 } },
    retryAfterHeader: true
  })
  await emulator.start()
  for (let i = 0; i < 5; i++) emulator.queueScript(run(6, 'COMPLETE', 1_000, 1))
  const results = await matrix(5, '1')
  const { perJob } = figures('refused together', results, 6_000)
  expectRightOutcomes(results, perJob)
  expectWaitsAfter429(perJob, 0)
  const jitter = perJob.flatMap(own => {
    const first = own.findIndex(request => request.status === 429)
    const refused = own[first] as RecordedRequest
    const next = own[first + 1]
    return first >= 0 && next ? [next.at - refused.at - (refused.retryAfter ?? 0) * 1000] : []
  })
  console.log(`refused together: after Retry-After, the jobs came back ${jitter.join(', ')} ms later`)
  expect(jitter).toHaveLength(5)
  expect(Math.max(...jitter)).toBeGreaterThanOrEqual(50)
}, 60_000)

test('five jobs against limits scaled down 6x collide, back off with jitter, and all finish right', async () => {
  // 10 requests per 5 s and 10 log reads per 10 s, shared: far below what five fast pollers ask for.
  emulator = new AgentRunEmulator({
    rateLimits: {
      general: { limit: 10, windowMs: 5_000 },
      create: { limit: 10, windowMs: 10_000 },
      logs: { limit: 10, windowMs: 10_000 }
    }
  })
  await emulator.start()
  for (let i = 0; i < 5; i++) emulator.queueScript(run(3, i % 2 ? 'ERROR' : 'COMPLETE'))
  const results = await matrix(5, '0.5')
  const { perJob, rateLimited, requests } = figures('limits scaled down', results, 3_000)
  expectRightOutcomes(results, perJob)
  // No Retry-After here: each 429 is followed by backoff, at least half of 1 s.
  expectWaitsAfter429(perJob, 500)
  // Congestion control: each 429 halves the job's budget; three take it to its floor (an eighth),
  // where five jobs fit in the shared window. So about three per job (15 in 6 of 7 runs, 18 once):
  // at most four per job on average, five for any one.
  for (const own of perJob)
    expect(own.filter(request => request.status === 429).length).toBeLessThanOrEqual(5)
  expect(rateLimited).toBeGreaterThan(0)
  expect(rateLimited).toBeLessThanOrEqual(20)
  expect(requests).toBeLessThan(60)
}, 90_000)
