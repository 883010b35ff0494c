/**
 * The fan-out case: one step following `count` runs of the realistic timelines (the `runs` input),
 * beside `count` single-run jobs on the same token's limits (a matrix), each on an emulator of its
 * own with the documented limits. Figures: 429s, how soon each end was seen, the step's end after
 * the last run's, requests per run-minute, peak RSS and runner-minutes.
 */

import {
  AgentRunEmulator,
  DOCUMENTED_RATE_LIMITS,
  systemServerClock,
  type RecordedRequest
} from '../emulator/index.js'
import { cleanUp, preciseNow, spawnAction, type ActionRun } from './action-process.js'
import type { Row } from './table.js'
import { agentTimeline, REALISTIC_FINAL_GAP, type Timeline } from './timelines.js'

const ORG_ID = 1
const FIRST_RUN_ID = 5_000
export const FAN_OUT_RUNS = 20
export const FAN_OUT_POLL_MS = 5_000

export interface FanOutFigures {
  runs: number
  refused: number
  /** For each run: from its end to the first request that showed it (a list read or a read of the run). */
  endSeenMs: number[]
  /** From the last run's end to the step's (or the last job's) exit. */
  stepEndMs: number
  requestsPerRunMinute: number
  /** The fan-out's one process; for the jobs, the largest and the sum of their processes. */
  peakRssBytes: number
  peakRssSumBytes: number
  /** Runner time held: the step's wall time, or the sum of the jobs'. */
  runnerMinutes: number
  allEnded: boolean
}

async function emulator(): Promise<AgentRunEmulator> {
  const instance = new AgentRunEmulator({
    clock: systemServerClock(preciseNow),
    tokens: { 'bench-token': [ORG_ID] },
    rateLimits: DOCUMENTED_RATE_LIMITS,
    firstRunId: FIRST_RUN_ID
  })
  await instance.start()
  return instance
}

function createdAt(instance: AgentRunEmulator, runId: number): number {
  const text = instance.run(runId)?.created_at
  if (!text) throw new Error(`run ${runId} not found`)
  return Date.parse(`${text.slice(0, 23).replace(' ', 'T')}Z`)
}

function inputs(baseUrl: string, extra: Record<string, string>): Record<string, string> {
  return {
    'api-token': 'bench-token',
    'org-id': String(ORG_ID),
    'base-url': baseUrl,
    'poll-interval': String(FAN_OUT_POLL_MS / 1000),
    ...extra
  }
}

/** Whether the answer to `request` showed run `runId`'s status: a list of the runs, or a read of that run. */
function shows(request: RecordedRequest, runId: number): boolean {
  if (request.status !== 200) return false
  if (request.route === 'list-runs') return true
  return request.path.endsWith(`/agent/run/${runId}`) || request.path.includes(`/agent/run/${runId}/`)
}

function figures(
  instance: AgentRunEmulator,
  timelines: Timeline[],
  processes: ActionRun[],
  exitedAt: number
): FanOutFigures {
  const ends = timelines.map((timeline, i) => {
    const runId = FIRST_RUN_ID + i
    return { runId, endAt: createdAt(instance, runId) + timeline.endAt }
  })
  const requests = [...instance.requests]
  const endSeenMs = ends.map(({ runId, endAt }) => {
    const seen = requests.find(request => request.at >= endAt && shows(request, runId))
    return seen ? seen.at - endAt : Number.NaN
  })
  const runMinutes = timelines.reduce((sum, timeline) => sum + timeline.endAt, 0) / 60_000
  const rss = processes.map(run => run.usage?.maxRssBytes ?? 0)
  return {
    runs: timelines.length,
    refused: requests.filter(request => request.status === 429).length,
    endSeenMs,
    stepEndMs: exitedAt - Math.max(...ends.map(end => end.endAt)),
    requestsPerRunMinute: requests.length / runMinutes,
    peakRssBytes: Math.max(...rss),
    peakRssSumBytes: rss.reduce((sum, bytes) => sum + bytes, 0),
    runnerMinutes: processes.reduce((sum, run) => sum + (run.exitedAt - run.spawnedAt), 0) / 60_000,
    allEnded: endSeenMs.every(ms => Number.isFinite(ms))
  }
}

/** The realistic 10-minute timelines, ending with a FINAL_ANSWER 2-10 s before the end. */
function timelinesOf(count: number): Timeline[] {
  return Array.from({ length: count }, (_, i) =>
    agentTimeline(600 + i, {
      durationMs: 600_000,
      ending: { kind: 'final-answer', finalGapMs: REALISTIC_FINAL_GAP }
    })
  )
}

/** One step with `runs`, beside `count` jobs of one run each; both at once, each on its own emulator. */
export async function fanOutBeside(
  count = FAN_OUT_RUNS
): Promise<{ fanOut: FanOutFigures; jobs: FanOutFigures }> {
  const timelines = timelinesOf(count)
  const [one, many] = await Promise.all([emulator(), emulator()])
  try {
    // The i-th create that arrives takes the i-th script and the id FIRST_RUN_ID + i.
    timelines.forEach(timeline => one.queueScript(timeline.script))
    timelines.forEach(timeline => many.queueScript(timeline.script))
    const runs = JSON.stringify(timelines.map((_, i) => ({ name: `service-${i}`, prompt: `job ${i}` })))
    const [step, jobs] = await Promise.all([
      spawnAction({
        inputs: inputs(one.baseUrl, { runs, 'max-parallel': String(count), 'timeout-minutes': '20' }),
        measureUsage: true,
        killAfterMs: 25 * 60_000
      }),
      Promise.all(
        timelines.map((_, i) =>
          spawnAction({
            inputs: inputs(many.baseUrl, { prompt: `job ${i}`, 'timeout-minutes': '20' }),
            measureUsage: true,
            killAfterMs: 25 * 60_000
          })
        )
      )
    ])
    const result = {
      fanOut: figures(one, timelines, [step], step.exitedAt),
      jobs: figures(many, timelines, jobs, Math.max(...jobs.map(job => job.exitedAt)))
    }
    const outputs = JSON.parse(step.outputs['runs'] || '[]') as Array<{ outcome?: string }>
    result.fanOut.allEnded &&= outputs.length === count && outputs.every(run => run.outcome === 'success')
    result.jobs.allEnded &&= jobs.every(job => job.outputs['outcome'] === 'success')
    ;[step, ...jobs].forEach(cleanUp)
    return result
  } finally {
    await Promise.all([one.stop(), many.stop()])
  }
}

/** The table's rows. */
export function fanOutRows(result: { fanOut: FanOutFigures; jobs: FanOutFigures }): Row[] {
  const { fanOut, jobs } = result
  const group = `Fan-out: ${fanOut.runs} realistic 10-minute runs in one step (runs), beside ${jobs.runs} single-run jobs on one token`
  const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`
  const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`
  const worstSeen = (figures: FanOutFigures): number =>
    Math.max(...figures.endSeenMs.filter(ms => Number.isFinite(ms)))
  // A job that gave up (an error after many 429s) never sees its run's end.
  const unseen = (figures: FanOutFigures): string => {
    const count = figures.endSeenMs.filter(ms => !Number.isFinite(ms)).length
    return count > 0 ? ` (${count} never seen)` : ''
  }
  const twoPolls = 2 * FAN_OUT_POLL_MS
  return [
    {
      group,
      figure: 'all ended as scripted (success)',
      action: fanOut.allEnded ? 'yes' : 'NO',
      beside: jobs.allEnded ? 'yes' : 'NO',
      target: 'yes',
      met: fanOut.allEnded,
      values: { action: fanOut.allEnded ? 1 : 0, beside: jobs.allEnded ? 1 : 0 }
    },
    {
      group,
      figure: 'answered 429',
      action: String(fanOut.refused),
      beside: String(jobs.refused),
      target: '0',
      met: fanOut.refused === 0,
      values: { action: fanOut.refused, beside: jobs.refused }
    },
    {
      group,
      figure: 'each end seen after it: worst',
      action: s(worstSeen(fanOut)) + unseen(fanOut),
      beside: s(worstSeen(jobs)) + unseen(jobs),
      target: `<= ${twoPolls / 1000} s (2 x poll-interval)`,
      met: worstSeen(fanOut) <= twoPolls && unseen(fanOut) === '',
      values: { action: worstSeen(fanOut), beside: worstSeen(jobs) }
    },
    {
      group,
      figure: "the step's exit after the last run's end (beside: the last job's)",
      action: s(fanOut.stepEndMs),
      beside: s(jobs.stepEndMs),
      target: `<= ${twoPolls / 1000} s`,
      met: fanOut.stepEndMs <= twoPolls,
      values: { action: fanOut.stepEndMs, beside: jobs.stepEndMs }
    },
    {
      group,
      figure: 'requests per run-minute',
      action: fanOut.requestsPerRunMinute.toFixed(2),
      beside: jobs.requestsPerRunMinute.toFixed(2),
      target: '<= half of a single run',
      met: fanOut.requestsPerRunMinute <= jobs.requestsPerRunMinute / 2,
      values: { action: fanOut.requestsPerRunMinute, beside: jobs.requestsPerRunMinute }
    },
    {
      group,
      figure: 'peak RSS (beside: the largest job, and all of them)',
      action: mb(fanOut.peakRssBytes),
      beside: `${mb(jobs.peakRssBytes)}, ${mb(jobs.peakRssSumBytes)} in all`,
      target: '< 200 MB',
      met: fanOut.peakRssBytes < 200 * 1024 * 1024,
      values: { action: fanOut.peakRssBytes, beside: jobs.peakRssSumBytes }
    },
    {
      group,
      figure: 'runner-minutes held',
      action: fanOut.runnerMinutes.toFixed(1),
      beside: jobs.runnerMinutes.toFixed(1),
      target: 'one runner',
      values: { action: fanOut.runnerMinutes, beside: jobs.runnerMinutes }
    }
  ]
}
