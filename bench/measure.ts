/**
 * What the cases of the benchmark share: their settings, the statistics, the anomalies the benchmark
 * fails on, an emulator of a case's own, and following one timeline with the action or the naive
 * client with the figures read from the emulator's record of requests.
 */

import { DOCUMENTED_BUDGETS, RateBudget, type BudgetName } from '../src/api/rate-budget.js'
import {
  AgentRunEmulator,
  DOCUMENTED_RATE_LIMITS,
  systemServerClock,
  type RecordedRequest
} from '../emulator/index.js'
import { cleanUp, preciseNow, spawnAction, type ActionRun } from './action-process.js'
import { naiveFollow, type NaiveResult } from './naive-client.js'
import type { Timeline } from './timelines.js'

export const DEFAULT_POLL_MS = 5_000
/**
 * How much faster than real time the realistic timeline is played (1: real time). Compression was
 * faithful while the pacing was a function of poll-interval alone; now the fast looks after a
 * FINAL_ANSWER (1 s) sit at the rate budget's pace (about 1 s, not time-scaled), so a compressed
 * run would have the budget hold them back and undercount them: the realistic case runs in real time.
 */
export const COMPRESSION = 1
export const LARGE_ENTRIES = 3_000
export const JOBS = 6
export const ORG_ID = 1

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number
}

export const mean = (values: number[]): number =>
  values.reduce((sum, value) => sum + value, 0) / values.length

/** Every anomaly of a run (wrong exit code, outcome, entry count): the benchmark fails on any. */
export const problems: string[] = []
export function check(condition: boolean, message: string): void {
  if (!condition) problems.push(message)
}

export async function emulator(
  options: ConstructorParameters<typeof AgentRunEmulator>[0] = {}
): Promise<AgentRunEmulator> {
  const instance = new AgentRunEmulator({ clock: systemServerClock(preciseNow), ...options })
  await instance.start()
  return instance
}

/** Epoch ms of the run's creation, from its created_at (`2025-06-21 11:20:04.338000`, UTC). */
export function createdAt(instance: AgentRunEmulator, runId: number): number {
  const text = instance.run(runId)?.created_at
  if (!text) throw new Error(`run ${runId} not found`)
  return Date.parse(`${text.slice(0, 23).replace(' ', 'T')}Z`)
}

export function actionInputs(
  baseUrl: string,
  token: string,
  extra: Record<string, string> = {}
): Record<string, string> {
  return {
    'api-token': token,
    'org-id': String(ORG_ID),
    'base-url': baseUrl,
    prompt: 'Fix the failing test',
    ...extra
  }
}

export const isLogRead = (request: RecordedRequest): boolean =>
  request.route === 'logs' || request.route === 'logs-alpha'
export const byToken = (token: string) => (request: RecordedRequest) =>
  request.authorization === `Bearer ${token}`

type Followed = { lagMs: number; requests: RecordedRequest[]; createdAt: number }

/**
 * Follows `timeline` on an emulator of its own with `token`: `follow` returns what it saw, with the
 * run's id and when it saw the end; the lag is from the run's scripted end to then.
 */
async function followOnEmulator<T>(
  timeline: Timeline,
  token: string,
  rateLimits: typeof DOCUMENTED_RATE_LIMITS | false,
  follow: (instance: AgentRunEmulator) => Promise<{ seen: T; runId: number; endSeenAt: number }>
): Promise<T & Followed> {
  const instance = await emulator({ tokens: { [token]: [ORG_ID] }, rateLimits })
  try {
    instance.queueScript(timeline.script)
    const { seen, runId, endSeenAt } = await follow(instance)
    const created = createdAt(instance, runId)
    return {
      ...seen,
      lagMs: endSeenAt - (created + timeline.endAt),
      requests: [...instance.requests],
      createdAt: created
    }
  } finally {
    await instance.stop()
  }
}

/** Spawns one action following `timeline` on an emulator of its own; returns the lag and the run. */
export async function followWithAction(
  timeline: Timeline,
  extraInputs: Record<string, string> = {},
  rateLimits: typeof DOCUMENTED_RATE_LIMITS | false = DOCUMENTED_RATE_LIMITS
): Promise<{ run: ActionRun } & Followed> {
  return followOnEmulator(timeline, 'bench-token', rateLimits, async instance => {
    const run = await spawnAction({ inputs: actionInputs(instance.baseUrl, 'bench-token', extraInputs) })
    const expected = timeline.script.steps.some(step => step.status === 'COMPLETE') ? 'success' : 'failure'
    check(
      run.outputs['outcome'] === expected,
      `a run ended ${run.outputs['outcome']}, not ${expected}: ${run.stderr}`
    )
    check(
      run.outputs['log-count'] === String(timeline.entryTimes.length),
      `a run mirrored ${run.outputs['log-count']} of ${timeline.entryTimes.length} entries`
    )
    cleanUp(run)
    return { seen: { run }, runId: Number(run.outputs['agent-run-id']), endSeenAt: run.exitedAt }
  })
}

/** The naive client on the same timeline, on an emulator of its own. */
export async function followNaively(
  timeline: Timeline,
  intervalMs: number,
  rateLimits: typeof DOCUMENTED_RATE_LIMITS | false = DOCUMENTED_RATE_LIMITS
): Promise<{ result: NaiveResult } & Followed> {
  return followOnEmulator(timeline, 'naive-token', rateLimits, async instance => {
    const result = await naiveFollow({
      baseUrl: instance.baseUrl,
      token: 'naive-token',
      orgId: ORG_ID,
      intervalMs,
      prompt: 'Fix the failing test',
      now: preciseNow
    })
    return { seen: { result }, runId: result.runId, endSeenAt: result.sawEndAt }
  })
}

/**
 * How long each entry waited before a client read it: the first log read after the entry appeared
 * whose page held it (reads are recorded with their skip; a page holds skip to skip + 99).
 */
export function mirrorDelays(requests: RecordedRequest[], created: number, timeline: Timeline): number[] {
  const reads = requests.filter(isLogRead)
  return timeline.entryTimes.map((at, index) => {
    const appeared = created + at
    const covers = (request: RecordedRequest): boolean => {
      const skip = Number(request.query.skip ?? 0)
      return skip <= index && index < skip + Number(request.query.limit ?? 100)
    }
    const read = reads.find(request => request.at >= appeared && covers(request))
    if (read) return read.at - appeared
    // The entry appeared between a read's arrival (when it is recorded) and its handling: that
    // read returned it at once.
    return reads.some(covers) ? 0 : Number.NaN
  })
}

/** The most log reads in any window of `windowMs` of wall time. */
export function busiestWindow(requests: RecordedRequest[], windowMs: number): number {
  const times = requests.filter(isLogRead).map(request => request.at)
  let best = 0
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] as number) - (times[j] as number) >= windowMs) j++
    best = Math.max(best, i - j + 1)
  }
  return best
}

/**
 * The least time the documented limits allow for these requests, sent back to back at no latency:
 * the service's windows, without the reserve the action keeps for the end.
 */
export function budgetMinimumMs(requests: BudgetName[][]): number {
  const budget = new RateBudget(DOCUMENTED_BUDGETS, { general: 0, create: 0, logs: 0 })
  let now = 0
  for (const names of requests) {
    now += budget.delayAt(names, now)
    budget.record(names, now)
  }
  return now
}
