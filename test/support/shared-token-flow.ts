import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  AgentRunEmulator,
  type EmulatorOptions,
  type RecordedRequest,
  type RunScript
} from '../../emulator/index.js'
import { runAction } from '../../src/action.js'
import { FakeRunner } from './fake-runner.js'
import { stepEnvironment } from './step-environment.js'
import { VirtualClock } from './virtual-clock.js'

/**
 * Several jobs of a matrix on one token, at once, against one emulator that enforces the limits
 * across all of them: in process, each job a runAction of its own (its own rate budget, as each
 * job's process has) with a FakeRunner, all on one virtual clock the emulator shares. Every job ends
 * with the right outcome, the 429s they draw are few, and after each one the job waits (Retry-After
 * when sent, else backoff) before its next request: checked from the emulator's own request log,
 * exactly, for the clock is one. (The same jobs as bundles in real time: shared-token-world.ts.)
 */

/** One job of the matrix: its runner, what failed it (undefined: it passed) and its virtual duration. */
export interface Job {
  runner: FakeRunner
  failure: string | undefined
  durationMs: number
}

/** The world of a test file: a new clock and folder for each test, the emulator stopped after it. */
export class SharedTokenFlow {
  clock = new VirtualClock()
  private temp = ''
  private started?: AgentRunEmulator

  constructor() {
    beforeEach(() => {
      this.clock = new VirtualClock()
      this.temp = mkdtempSync(join(tmpdir(), 'codegen-shared-token-'))
    })
    afterEach(async () => {
      await this.started?.stop()
      this.started = undefined
      rmSync(this.temp, { recursive: true, force: true })
    })
  }

  get emulator(): AgentRunEmulator {
    if (!this.started) throw new Error('startEmulator() first')
    return this.started
  }

  /** Starts the emulator the next jobs share, on the test's clock. */
  async startEmulator(options: EmulatorOptions): Promise<AgentRunEmulator> {
    this.started = new AgentRunEmulator({ ...options, clock: this.clock })
    await this.started.start()
    return this.started
  }

  /** `jobs` jobs started together, job i asking `job i`, each in a folder of its own. */
  async matrix(jobs: number, pollInterval: string): Promise<Job[]> {
    const environments = Array.from({ length: jobs }, (_, i) => {
      const runner = new FakeRunner({
        'api-token': 'emulator-token',
        'org-id': '1',
        'base-url': this.emulator.baseUrl,
        'repo-id': '101',
        prompt: `job ${i}`,
        'poll-interval': pollInterval,
        'timeout-minutes': '3',
        'fail-on': 'timeout'
      })
      const temp = mkdtempSync(join(this.temp, `job-${i}-`))
      return { runner, environment: stepEnvironment(runner, { clock: this.clock, temp }) }
    })
    const started = this.clock.now()
    return this.clock.run(() =>
      Promise.all(
        environments.map(async ({ runner, environment }) => {
          const failure = await runAction(environment)
          return { runner, failure, durationMs: this.clock.now() - started }
        })
      )
    )
  }
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

export interface Figures {
  requests: number
  rateLimited: number
  /** Per job: its requests in order (its creates, then those naming its run). */
  perJob: RecordedRequest[][]
  /** The longest a job took to see its run's end, in ms after the end. */
  worstLagMs: number
}

export function figures(emulator: AgentRunEmulator, label: string, jobs: Job[], runMs: number): Figures {
  const requests = emulator.requests
  const rateLimited = requests.filter(request => request.status === 429).length
  const perJob = jobs.map((job, i) => {
    const runPath = `/agent/run/${job.runner.outputs['agent-run-id']}`
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
      `${((r.at - first) / 1000).toFixed(3)} ${r.route} ${r.status}${r.retryAfter ? ` (Retry-After ${r.retryAfter})` : ''}`
    perJob.forEach((own, i) => console.log(`job ${i}: ${own.map(show).join(', ')}`))
  }
  const perJob429 = perJob.map(own => own.filter(request => request.status === 429).length).join('/')
  const slowest = Math.max(...jobs.map(job => job.durationMs))
  console.log(
    `${label}: ${jobs.length} jobs, ${requests.length} requests, ${rateLimited} answered 429 (${perJob429} per job), ` +
      `end seen at worst ${worstLagMs} ms late, slowest job ${slowest} ms (virtual)`
  )
  return { requests: requests.length, rateLimited, perJob, worstLagMs }
}

export function expectRightOutcomes(
  emulator: AgentRunEmulator,
  jobs: Job[],
  perJob: RecordedRequest[][]
): void {
  // Each job's outcome is the one its own run ended with (odd jobs fail), and none failed otherwise.
  for (const { runner, failure } of jobs) {
    const run = emulator.run(Number(runner.outputs['agent-run-id']))!
    expect(failure).toBeUndefined()
    expect(runner.outputs['outcome']).toBe(run.status === 'COMPLETE' ? 'success' : 'failure')
    expect(runner.outputs['log-count']).toBe(String(run.logs.length))
  }
  const ids = jobs.map(job => job.runner.outputs['agent-run-id'])
  expect(new Set(ids).size).toBe(jobs.length)
  expect(emulator.runs()).toHaveLength(jobs.length)
  // Every request is one job's: none is lost to the grouping above.
  expect(perJob.flat()).toHaveLength(emulator.requests.length)
}

/**
 * After a 429, the job's next request waits at least what it was told (Retry-After), or `minMs`: to
 * the millisecond, for the jobs and the emulator keep one virtual clock.
 */
export function expectWaitsAfter429(perJob: RecordedRequest[][], minMs: number): void {
  const early: string[] = []
  for (const own of perJob) {
    own.forEach((request, n) => {
      const next = own[n + 1]
      if (request.status !== 429 || !next) return
      const wanted = request.retryAfter === undefined ? minMs : request.retryAfter * 1000
      if (next.at - request.at < wanted)
        early.push(
          `${request.path} at ${request.at}: next after ${next.at - request.at} ms, wanted ${wanted}`
        )
    })
  }
  expect(early).toEqual([])
}
