/**
 * The cases of the benchmark, each on emulators and tokens of its own (the catch-up cases in
 * catch-up.ts, what they share in measure.ts); run.ts prints the table.
 */

import { setTimeout as sleep } from 'node:timers/promises'
import type { AgentRunEmulator } from '../emulator/index.js'
import { cleanUp, preciseNow, spawnAction, spawnBareNode, type ActionRun } from './action-process.js'
import {
  actionInputs,
  busiestWindow,
  check,
  COMPRESSION,
  createdAt,
  DEFAULT_POLL_MS,
  emulator,
  followNaively,
  followWithAction,
  isLogRead,
  mean,
  mirrorDelays,
  ORG_ID
} from './measure.js'
import { naiveFollow } from './naive-client.js'
import { agentTimeline, busyRun, compressed, REALISTIC_FINAL_GAP, type Timeline } from './timelines.js'

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
    const refusedPerJob = checkJobs(ours, actionRuns)
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
 * Checks each job's run ended as scripted and mirrored every entry; returns the 429s each job drew
 * (its own requests: its create, by its prompt, and those naming its run).
 */
function checkJobs(ours: AgentRunEmulator, actionRuns: ActionRun[]): number[] {
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
  return refusedPerJob
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
