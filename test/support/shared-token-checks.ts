import type { AgentRunEmulator, RecordedRequest, RunScript } from '../../emulator/index.js'

/**
 * Several jobs of a matrix on one token against one emulator that enforces the limits across all of
 * them: the runs they follow and the checks, read from the emulator's own request log. Every job
 * ends with the right outcome, the 429s they draw are few, and after each one the job waits
 * (Retry-After when sent, else backoff) before its next request. The jobs run in process on one
 * virtual clock with the emulator (shared-token-flow.ts) or as bundles in real time
 * (test/long/shared-token-jobs.ts).
 */

/** One job as the checks read it: its outputs, what failed it (undefined: it passed), how long it took. */
export interface JobEnd {
  outputs: Record<string, string>
  failure: string | undefined
  durationMs: number
}

/**
 * The jobs' time: one virtual clock with the emulator (every wait exact, in virtual ms), or the
 * system's (a timer may fire a few ms early against the emulator's reading).
 */
export type JobTime = 'virtual' | 'real'

/** How early a real timer may fire, as the emulator reads the time. */
const REAL_TIMER_SLACK_MS = 5

/**
 * A run of `seconds` with an entry every `every` ms until its FINAL_ANSWER (`finalAt` s, default just
 * before the end): traffic while entries flow, and the fast polling between the answer and the end.
 */
export function run(
  seconds: number,
  ending: 'COMPLETE' | 'ERROR',
  every = 400,
  finalAt = seconds - 0.2
): RunScript {
  const ms = seconds * 1000
  const steps: RunScript['steps'] = [{ at: 0, status: 'ACTIVE' }]
  for (let at = 200; at < finalAt * 1000 - 100; at += every) {
    steps.push({ at, log: { message_type: 'ACTION', tool_name: 'run_command', thought: `step at ${at} ms` } })
  }
  steps.push({ at: finalAt * 1000, log: { message_type: 'FINAL_ANSWER', observation: 'done' } })
  steps.push({ at: ms, status: ending, result: `ended ${ending}` })
  return { steps }
}

export interface Figures {
  requests: number
  rateLimited: number
  /** Per job: its requests in order (its creates, then those naming its run). */
  perJob: RecordedRequest[][]
  /** The longest a job took to see its run's end, in ms after the end. */
  worstLagMs: number
}

/** The jobs' requests (job i asked `job i`), counted and printed under `label`. */
export function figures(
  emulator: AgentRunEmulator,
  label: string,
  jobs: JobEnd[],
  runMs: number,
  time: JobTime
): Figures {
  const requests = emulator.requests
  const rateLimited = requests.filter(request => request.status === 429).length
  const perJob = jobs.map((job, i) => {
    const runPath = `/agent/run/${job.outputs['agent-run-id']}`
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
  // SHARED_TRACE=1: each job's requests, as "12.300 logs 429 (Retry-After 7)", seconds from the first.
  if (process.env.SHARED_TRACE) {
    const first = requests[0]?.at ?? 0
    const show = (r: RecordedRequest): string =>
      `${((r.at - first) / 1000).toFixed(3)} ${r.route} ${r.status}${r.retryAfter ? ` (Retry-After ${r.retryAfter})` : ''}`
    perJob.forEach((own, i) => console.log(`job ${i}: ${own.map(show).join(', ')}`))
  }
  const perJob429 = perJob.map(own => own.filter(request => request.status === 429).length).join('/')
  const slowest = Math.max(...jobs.map(job => job.durationMs))
  console.log(
    `${label}: ${jobs.length} jobs, ${requests.length} requests, ${rateLimited} answered 429 (${perJob429} per job), ` +
      `end seen at worst ${worstLagMs} ms late, slowest job ${slowest} ms${time === 'virtual' ? ' (virtual)' : ''}`
  )
  return { requests: requests.length, rateLimited, perJob, worstLagMs }
}

export function expectRightOutcomes(
  emulator: AgentRunEmulator,
  jobs: JobEnd[],
  perJob: RecordedRequest[][]
): void {
  // Each job's outcome is the one its own run ended with (odd jobs fail), and none failed otherwise.
  for (const { outputs, failure } of jobs) {
    const run = emulator.run(Number(outputs['agent-run-id']))!
    expect(failure).toBeUndefined()
    expect(outputs['outcome']).toBe(run.status === 'COMPLETE' ? 'success' : 'failure')
    expect(outputs['log-count']).toBe(String(run.logs.length))
  }
  const ids = jobs.map(job => job.outputs['agent-run-id'])
  expect(new Set(ids).size).toBe(jobs.length)
  expect(emulator.runs()).toHaveLength(jobs.length)
  // Every request is one job's: none is lost to the grouping above.
  expect(perJob.flat()).toHaveLength(emulator.requests.length)
}

/**
 * After a 429, the job's next request waits at least what it was told (Retry-After), or `minMs`: to
 * the millisecond on the virtual clock, within the timers' slack in real time.
 */
export function expectWaitsAfter429(perJob: RecordedRequest[][], minMs: number, time: JobTime): void {
  const slack = time === 'virtual' ? 0 : REAL_TIMER_SLACK_MS
  const early: string[] = []
  for (const own of perJob) {
    own.forEach((request, n) => {
      const next = own[n + 1]
      if (request.status !== 429 || !next) return
      const wanted = request.retryAfter === undefined ? minMs : request.retryAfter * 1000
      if (next.at - request.at < wanted - slack)
        early.push(
          `${request.path} at ${request.at}: next after ${next.at - request.at} ms, wanted ${wanted}`
        )
    })
  }
  expect(early).toEqual([])
}
