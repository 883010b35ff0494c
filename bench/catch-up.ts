/**
 * The catch-up cases: a backlog in the log when the action starts, read within the documented
 * budget (a large run of 2 KB entries, with its memory, CPU, summary and log file; a backlog larger
 * than one budget window), beside a plain loop reading the same pages back to back.
 */

import type { BudgetName } from '../src/api/rate-budget.js'
import type { AgentRunEmulator } from '../emulator/index.js'
import { cleanUp, preciseNow, readLogFile, spawnAction, spawnBareNode } from './action-process.js'
import {
  actionInputs,
  budgetMinimumMs,
  byToken,
  check,
  DEFAULT_POLL_MS,
  emulator,
  isLogRead,
  LARGE_ENTRIES,
  ORG_ID
} from './measure.js'
import { naiveFollow } from './naive-client.js'
import { largeRun } from './timelines.js'

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
