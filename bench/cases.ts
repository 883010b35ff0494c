/** The cases of the benchmark, each on emulators and tokens of its own; run.ts prints the table. */

import { setTimeout as sleep } from 'node:timers/promises'
import { DOCUMENTED_BUDGETS, RateBudget, type BudgetName } from '../src/api/rate-budget.js'
import {
  AgentRunEmulator,
  DOCUMENTED_RATE_LIMITS,
  systemServerClock,
  type RecordedRequest
} from '../emulator/index.js'
import {
  cleanUp,
  preciseNow,
  readLogFile,
  spawnAction,
  spawnBareNode,
  type ActionRun
} from './action-process.js'
import { naiveFollow, type NaiveResult } from './naive-client.js'
import {
  agentTimeline,
  busyRun,
  compressed,
  largeRun,
  REALISTIC_FINAL_GAP,
  type Timeline
} from './timelines.js'

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
const ORG_ID = 1

// ---------------------------------------------------------------------------------------------
// Small helpers

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
function check(condition: boolean, message: string): void {
  if (!condition) problems.push(message)
}

async function emulator(
  options: ConstructorParameters<typeof AgentRunEmulator>[0] = {}
): Promise<AgentRunEmulator> {
  const instance = new AgentRunEmulator({ clock: systemServerClock(preciseNow), ...options })
  await instance.start()
  return instance
}

/** Epoch ms of the run's creation, from its created_at (`2025-06-21 11:20:04.338000`, UTC). */
function createdAt(instance: AgentRunEmulator, runId: number): number {
  const text = instance.run(runId)?.created_at
  if (!text) throw new Error(`run ${runId} not found`)
  return Date.parse(`${text.slice(0, 23).replace(' ', 'T')}Z`)
}

function actionInputs(
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

const isLogRead = (request: RecordedRequest): boolean =>
  request.route === 'logs' || request.route === 'logs-alpha'
const byToken = (token: string) => (request: RecordedRequest) => request.authorization === `Bearer ${token}`

/** Spawns one action following `timeline` on an emulator of its own; returns the lag and the run. */
async function followWithAction(
  timeline: Timeline,
  extraInputs: Record<string, string> = {},
  rateLimits: typeof DOCUMENTED_RATE_LIMITS | false = DOCUMENTED_RATE_LIMITS
): Promise<{ lagMs: number; run: ActionRun; requests: RecordedRequest[]; createdAt: number }> {
  const instance = await emulator({ tokens: { 'bench-token': [ORG_ID] }, rateLimits })
  try {
    instance.queueScript(timeline.script)
    const run = await spawnAction({ inputs: actionInputs(instance.baseUrl, 'bench-token', extraInputs) })
    const runId = Number(run.outputs['agent-run-id'])
    const expected = timeline.script.steps.some(step => step.status === 'COMPLETE') ? 'success' : 'failure'
    check(
      run.outputs['outcome'] === expected,
      `a run ended ${run.outputs['outcome']}, not ${expected}: ${run.stderr}`
    )
    check(
      run.outputs['log-count'] === String(timeline.entryTimes.length),
      `a run mirrored ${run.outputs['log-count']} of ${timeline.entryTimes.length} entries`
    )
    const created = createdAt(instance, runId)
    cleanUp(run)
    return {
      lagMs: run.exitedAt - (created + timeline.endAt),
      run,
      requests: [...instance.requests],
      createdAt: created
    }
  } finally {
    await instance.stop()
  }
}

/** The naive client on the same timeline, on an emulator of its own. */
async function followNaively(
  timeline: Timeline,
  intervalMs: number,
  rateLimits: typeof DOCUMENTED_RATE_LIMITS | false = DOCUMENTED_RATE_LIMITS
): Promise<{ lagMs: number; result: NaiveResult; requests: RecordedRequest[]; createdAt: number }> {
  const instance = await emulator({ tokens: { 'naive-token': [ORG_ID] }, rateLimits })
  try {
    instance.queueScript(timeline.script)
    const result = await naiveFollow({
      baseUrl: instance.baseUrl,
      token: 'naive-token',
      orgId: ORG_ID,
      intervalMs,
      prompt: 'Fix the failing test',
      now: preciseNow
    })
    const created = createdAt(instance, result.runId)
    return {
      lagMs: result.sawEndAt - (created + timeline.endAt),
      result,
      requests: [...instance.requests],
      createdAt: created
    }
  } finally {
    await instance.stop()
  }
}

/**
 * How long each entry waited before a client read it: the first log read after the entry appeared
 * whose page held it (reads are recorded with their skip; a page holds skip to skip + 99).
 */
function mirrorDelays(requests: RecordedRequest[], created: number, timeline: Timeline): number[] {
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
function busiestWindow(requests: RecordedRequest[], windowMs: number): number {
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
function budgetMinimumMs(requests: BudgetName[][]): number {
  const budget = new RateBudget(DOCUMENTED_BUDGETS, { general: 0, create: 0, logs: 0 })
  let now = 0
  for (const names of requests) {
    now += budget.delayAt(names, now)
    budget.record(names, now)
  }
  return now
}

// ---------------------------------------------------------------------------------------------
// The cases

export async function startUp(rounds = 21) {
  const instance = await emulator({ rateLimits: false })
  const action: number[] = []
  const bare: number[] = []
  try {
    for (let round = -1; round < rounds; round++) {
      const node = await spawnBareNode()
      instance.queueScript({ steps: [{ at: 0, status: 'COMPLETE', result: 'done' }] })
      const before = instance.requests.length
      const run = await spawnAction({ inputs: actionInputs(instance.baseUrl, 'emulator-token') })
      const first = instance.requests[before]
      check(run.exitCode === 0 && first !== undefined, `start-up run ${round} failed: ${run.stderr}`)
      cleanUp(run)
      if (round < 0 || !first) continue // the first round warms the file cache
      bare.push(node.ms)
      action.push(first.at - run.spawnedAt)
    }
  } finally {
    await instance.stop()
  }
  return { firstRequestMs: action, bareNodeMs: bare }
}

export async function largeRunAndCatchUp(rounds = 5) {
  const samples: Array<{
    catchUpMs: number
    floorMs: number
    naiveMs: number
    maxRssBytes: number
    cpuMs: number
    summaryBytes: number
    logFileComplete: boolean
    stepMs: number
  }> = []
  const timeline = largeRun(LARGE_ENTRIES)
  for (let round = 0; round < rounds; round++) {
    const instance = await emulator({
      tokens: { 'bench-token': [ORG_ID], 'floor-token': [ORG_ID], 'naive-token': [ORG_ID] }
    })
    try {
      instance.queueScript(timeline.script)
      const run = await spawnAction({
        inputs: actionInputs(instance.baseUrl, 'bench-token'),
        measureUsage: true
      })
      check(run.exitCode === 0 && run.outputs['outcome'] === 'success', `large run failed: ${run.stderr}`)
      const reads = instance.requests.filter(byToken('bench-token')).filter(isLogRead)
      const last = reads.find(request => request.query.skip === String(LARGE_ENTRIES))
      const lines = readLogFile(run) as Array<{ thought?: string; observation?: string }>
      const numbers = lines.map(line =>
        Number(/Entry (\d+) of/.exec(line.thought ?? line.observation ?? '')?.[1])
      )
      const logFileComplete = numbers.length === LARGE_ENTRIES && numbers.every((n, i) => n === i + 1)
      cleanUp(run)

      const floorMs = await plainRead(
        instance,
        'floor-token',
        Number(run.outputs['agent-run-id']),
        LARGE_ENTRIES
      )

      instance.queueScript(timeline.script)
      await naiveFollow({
        baseUrl: instance.baseUrl,
        token: 'naive-token',
        orgId: ORG_ID,
        intervalMs: DEFAULT_POLL_MS,
        prompt: 'naive',
        now: preciseNow
      })
      const naiveReads = instance.requests.filter(byToken('naive-token')).filter(isLogRead)
      const naiveLast = naiveReads.find(request => request.query.skip === String(LARGE_ENTRIES))

      samples.push({
        catchUpMs: (last?.at ?? Number.NaN) - (reads[0]?.at ?? Number.NaN),
        floorMs,
        naiveMs: (naiveLast?.at ?? Number.NaN) - (naiveReads[0]?.at ?? Number.NaN),
        maxRssBytes: run.usage?.maxRssBytes ?? Number.NaN,
        cpuMs: run.usage?.cpuMs ?? Number.NaN,
        summaryBytes: run.summaryBytes,
        logFileComplete,
        stepMs: run.exitedAt - run.spawnedAt
      })
    } finally {
      await instance.stop()
    }
  }
  const bareUsage = (await spawnBareNode(true)).usage
  return {
    samples,
    budgetWaitMs: catchUpBudgetMs(LARGE_ENTRIES),
    bareRssBytes: bareUsage?.maxRssBytes ?? Number.NaN
  }
}

/** The least time the documented budget allows the action's requests: lookup, create, every page. */
function catchUpBudgetMs(entries: number): number {
  const pages = Math.floor(entries / 100) + 1
  return budgetMinimumMs([
    ['general'],
    ['general', 'create'],
    ...Array.from({ length: pages }, (): BudgetName[] => ['general', 'logs'])
  ])
}

/**
 * The floor: the pages of a run read back to back by a plain loop that does nothing with them,
 * from the first read's arrival to the last's (the action's catch-up is measured the same way).
 */
async function plainRead(
  instance: AgentRunEmulator,
  token: string,
  runId: number,
  entries: number
): Promise<number> {
  const start = instance.requests.length
  for (let skip = 0; skip <= entries; skip += 100) {
    const url = `${instance.baseUrl}/v1/organizations/${ORG_ID}/agent/run/${runId}/logs?skip=${skip}&limit=100`
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
    JSON.parse(await response.text())
  }
  const reads = instance.requests.slice(start)
  return (reads.at(-1)?.at ?? Number.NaN) - (reads[0]?.at ?? Number.NaN)
}

/**
 * A backlog larger than one budget window reads (91 pages; the budget allows 60 log reads a
 * minute): here the budget, not the work, sets the pace, and the catch-up is compared with the
 * least time the documented budget allows plus the reads themselves.
 */
export async function budgetBoundCatchUp(entries = 9_000) {
  const timeline = largeRun(entries, 2)
  const instance = await emulator({ tokens: { 'bench-token': [ORG_ID] } })
  const unlimited = await emulator({ tokens: { 'floor-token': [ORG_ID] }, rateLimits: false })
  try {
    instance.queueScript(timeline.script)
    const run = await spawnAction({ inputs: actionInputs(instance.baseUrl, 'bench-token') })
    check(
      run.outputs['outcome'] === 'success',
      `budget-bound catch-up ended ${run.outputs['outcome']}: ${run.stderr}`
    )
    check(
      run.outputs['log-count'] === String(entries),
      `budget-bound catch-up mirrored ${run.outputs['log-count']}`
    )
    cleanUp(run)
    const reads = instance.requests.filter(isLogRead)
    const last = reads.find(request => request.query.skip === String(entries))

    unlimited.queueScript(timeline.script)
    const created = await fetch(`${unlimited.baseUrl}/v1/organizations/${ORG_ID}/agent/run`, {
      method: 'POST',
      headers: { authorization: 'Bearer floor-token', 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'floor' })
    })
    const runId = ((await created.json()) as { id: number }).id
    return {
      entries,
      catchUpMs: (last?.at ?? Number.NaN) - (reads[0]?.at ?? Number.NaN),
      floorMs: await plainRead(unlimited, 'floor-token', runId, entries),
      budgetWaitMs: catchUpBudgetMs(entries),
      rateLimited: instance.requests.filter(request => request.status === 429).length
    }
  } finally {
    await instance.stop()
    await unlimited.stop()
  }
}

const lagTimeline = (seed: number, kind: 'final-answer' | 'stress' | 'error'): Timeline =>
  agentTimeline(seed, {
    durationMs: kind === 'error' ? 70_000 : 60_000,
    ending:
      kind === 'error'
        ? { kind: 'error' }
        : { kind: 'final-answer', finalGapMs: kind === 'stress' ? [500, 2_000] : REALISTIC_FINAL_GAP }
  })

export async function detectionLag(
  kind: 'final-answer' | 'stress' | 'error',
  seeds: number[],
  staggerMs: number
) {
  const runs = seeds.map(async (seed, index) => {
    await sleep(index * staggerMs)
    const timeline = lagTimeline(seed, kind)
    const [action, naive] = await Promise.all([
      followWithAction(timeline),
      followNaively(timeline, DEFAULT_POLL_MS)
    ])
    return { action: action.lagMs, naive: naive.lagMs }
  })
  const lags = await Promise.all(runs)
  return { action: lags.map(lag => lag.action), naive: lags.map(lag => lag.naive) }
}

export async function realistic(seeds: number[]) {
  const runs = seeds.map(async seed => {
    const timeline = agentTimeline(seed, {
      durationMs: 600_000,
      ending: { kind: 'final-answer', finalGapMs: REALISTIC_FINAL_GAP }
    })
    const fast = compressed(timeline, COMPRESSION)
    const runMinutes = timeline.endAt / 60_000
    const [action, naive] = await Promise.all([
      followWithAction(fast, { 'poll-interval': String(DEFAULT_POLL_MS / COMPRESSION / 1000) }),
      followNaively(fast, DEFAULT_POLL_MS / COMPRESSION, false)
    ])
    return {
      entries: timeline.entryTimes.length,
      actionPerMinute: action.requests.length / runMinutes,
      naivePerMinute: naive.requests.length / runMinutes,
      actionMirrorMs: mean(mirrorDelays(action.requests, action.createdAt, fast)) * COMPRESSION,
      naiveMirrorMs: mean(mirrorDelays(naive.requests, naive.createdAt, fast)) * COMPRESSION,
      busiestWallMinute: busiestWindow(action.requests, 60_000)
    }
  })
  return Promise.all(runs)
}

/**
 * `jobs` actions on one token at once (a matrix), each following its own 90 s run, beside as many
 * naive clients; `pollMs` undefined: default settings.
 */
export async function jobsOnOneToken(jobs: number, staggerMs: number, pollMs?: number) {
  // Started `staggerMs` apart, the runs all end at the same moment, 90 s after the first create.
  const timelines = Array.from({ length: jobs }, (_, i) =>
    agentTimeline(400 + i, {
      durationMs: 90_000,
      endAtMs: 90_000 - i * staggerMs,
      ending: { kind: 'final-answer', finalGapMs: REALISTIC_FINAL_GAP }
    })
  )
  const firstRunId = 1000

  const ours = await emulator({ tokens: { 'shared-token': [ORG_ID] }, firstRunId })
  const naive = await emulator({ tokens: { 'shared-token': [ORG_ID] }, firstRunId })
  try {
    timelines.forEach(timeline => ours.queueScript(timeline.script))
    timelines.forEach(timeline => naive.queueScript(timeline.script))
    // The i-th create that arrives takes the i-th script and the id firstRunId + i.
    const endOf = (instance: AgentRunEmulator, runId: number): number =>
      createdAt(instance, runId) + (timelines[runId - firstRunId] as Timeline).endAt
    const [actionRuns, naiveRuns] = await Promise.all([
      Promise.all(
        timelines.map(async (_, i) => {
          await sleep(i * staggerMs)
          const extra: Record<string, string> =
            pollMs === undefined ? {} : { 'poll-interval': String(pollMs / 1000) }
          return spawnAction({
            inputs: actionInputs(ours.baseUrl, 'shared-token', { ...extra, prompt: `job ${i}` })
          })
        })
      ),
      Promise.all(
        timelines.map(async (_, i) => {
          await sleep(i * staggerMs)
          return naiveFollow({
            baseUrl: naive.baseUrl,
            token: 'shared-token',
            orgId: ORG_ID,
            intervalMs: pollMs ?? DEFAULT_POLL_MS,
            prompt: `job ${i}`,
            now: preciseNow
          })
        })
      )
    ])
    // Each job's own requests: its create (by its prompt) and those naming its run.
    const refusedPerJob = actionRuns.map((run, i) => {
      const runPath = `/agent/run/${run.outputs['agent-run-id']}`
      return ours.requests.filter(
        request =>
          request.status === 429 &&
          (request.route === 'create'
            ? (request.body as { prompt?: string } | undefined)?.prompt === `job ${i}`
            : request.path.endsWith(runPath) || request.path.includes(`${runPath}/`))
      ).length
    })
    for (const run of actionRuns) {
      const runId = Number(run.outputs['agent-run-id'])
      check(
        run.outputs['outcome'] === 'success',
        `job of run ${runId} ended ${run.outputs['outcome']}: ${run.stderr}`
      )
      check(
        run.outputs['log-count'] === String(ours.run(runId)?.logs.length),
        `job of run ${runId} mirrored ${run.outputs['log-count']} entries`
      )
      cleanUp(run)
    }
    return {
      action: {
        requests: ours.requests.length,
        rateLimited: ours.requests.filter(request => request.status === 429).length,
        most429PerJob: Math.max(...refusedPerJob),
        allSucceeded: actionRuns.every(run => run.exitCode === 0 && run.outputs['outcome'] === 'success'),
        worstLagMs: Math.max(
          ...actionRuns.map(run => run.exitedAt - endOf(ours, Number(run.outputs['agent-run-id'])))
        )
      },
      naive: {
        requests: naive.requests.length,
        rateLimited: naive.requests.filter(request => request.status === 429).length,
        worstLagMs: Math.max(...naiveRuns.map(result => result.sawEndAt - endOf(naive, result.runId)))
      }
    }
  } finally {
    await ours.stop()
    await naive.stop()
  }
}

/**
 * `poll-interval: 0.05` on a busy 25 s run of 200 entries, against the documented limits: far
 * faster than the budget allows. The action must keep to the budget's pace (no 429), say so once,
 * and still see the end at once (the reserve). `runs` side by side, each on a token of its own.
 */
export async function fastPollInterval(runs = 3) {
  const timeline = busyRun(200, 25_000)
  const samples = await Promise.all(
    Array.from({ length: runs }, async (_, i) => {
      await sleep(i * 700)
      const instance = await emulator({ tokens: { 'bench-token': [ORG_ID] } })
      try {
        instance.queueScript(timeline.script)
        const run = await spawnAction({
          inputs: actionInputs(instance.baseUrl, 'bench-token', { 'poll-interval': '0.05' })
        })
        const runId = Number(run.outputs['agent-run-id'])
        check(
          run.outputs['outcome'] === 'success',
          `fast poll-interval run ended ${run.outputs['outcome']}: ${run.stderr}`
        )
        check(
          run.outputs['log-count'] === '200',
          `fast poll-interval run mirrored ${run.outputs['log-count']}`
        )
        cleanUp(run)
        const end = createdAt(instance, runId) + timeline.endAt
        const seen = instance.requests.find(
          request => request.at >= end && request.path.includes(`/agent/run/${runId}`)
        )
        return {
          rateLimited: instance.requests.filter(request => request.status === 429).length,
          endSeenMs: (seen?.at ?? Number.NaN) - end,
          stepEndMs: run.exitedAt - end,
          logReads: instance.requests.filter(isLogRead).length
        }
      } finally {
        await instance.stop()
      }
    })
  )
  return samples
}
