import {
  AgentRunEmulator,
  type EmulatorOptions,
  type RecordedRequest,
  type RunScript
} from '../../emulator/index.js'
import type { RunnerResult } from '../../scripts/runner-process.js'
import { runBundle } from '../support/bundle-world.js'

/**
 * The world of the long shared-token suites (shared-token-windows and shared-token-documented
 * .test.ts): several jobs of a matrix on one token, each the bundle as the runner runs it, side by
 * side in real time, against an emulator that enforces the limits across all of them: every job
 * ends with the right outcome, the 429s they draw are few, and after each one the job waits
 * (Retry-After when sent, else backoff) before its next request. All checked from the emulator's
 * own request log.
 */

export let emulator: AgentRunEmulator
afterEach(async () => {
  await emulator.stop()
})

/** Starts the emulator the next jobs share. */
export async function startEmulator(options: EmulatorOptions): Promise<void> {
  emulator = new AgentRunEmulator(options)
  await emulator.start()
}

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

export async function matrix(jobs: number, pollInterval: string): Promise<RunnerResult[]> {
  return Promise.all(
    Array.from({ length: jobs }, (_, i) =>
      runBundle({
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

export function figures(label: string, results: RunnerResult[], runMs: number): Figures {
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

export function expectRightOutcomes(results: RunnerResult[], perJob: RecordedRequest[][]): void {
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
export function expectWaitsAfter429(perJob: RecordedRequest[][], minMs: number): void {
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
