import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeFailure, replayCommand, runSchedule, type ScheduleResult } from './faults/execute.js'
import { faultSchedule, REQUEST_TIMEOUT_MS, type FaultSchedule } from './faults/schedule.js'

/**
 * The fault-injection suite: the bundled action against seeded fault schedules (429s with and without
 * Retry-After, 5xx, resets before and after the handler, slow answers past the request time limit,
 * malformed and truncated JSON, the log endpoint's drift, and permanent faults), a few at a time.
 * The schedules whose answers outlive the client's request time limit (30 s), and those that time
 * out, run the step in process on the virtual clock, where waiting costs no real time and a deadline
 * is held to the millisecond: one at a time, beside the bundles.
 *
 *   FAULT_SCHEDULES=500 npm run test:faults   more seeds (1..500)
 *   FAULT_SEEDS=17,40-45 npm run test:faults  these seeds only
 *   FAULT_CONCURRENCY=4                       bundles at a time (default 10)
 *   FAULT_TRACE=1     each step's console and requests to <tmp>/codegen-fault-seed-<seed>.log
 */

const DEFAULT_SCHEDULES = 200
const CONCURRENCY = Number(process.env.FAULT_CONCURRENCY) || 10

function chosenSeeds(): number[] {
  const listed = process.env.FAULT_SEEDS?.trim()
  if (!listed)
    return Array.from({ length: Number(process.env.FAULT_SCHEDULES) || DEFAULT_SCHEDULES }, (_, n) => n + 1)
  return listed.split(',').flatMap(part => {
    const [from, to] = part.split('-').map(Number) as [number, number | undefined]
    return to === undefined ? [from] : Array.from({ length: to - from + 1 }, (_, n) => from + n)
  })
}

/** Runs `work` over `items`, `limit` at a time; a schedule that throws counts as a failed one. */
async function pool(items: FaultSchedule[], limit: number): Promise<ScheduleResult[]> {
  const results: ScheduleResult[] = []
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const schedule = items[next++] as FaultSchedule
      try {
        results.push(await runSchedule(schedule))
      } catch (error) {
        results.push({
          seed: schedule.seed,
          description: schedule.description,
          violations: [`the harness failed: ${(error as Error).stack ?? String(error)}`],
          durationMs: 0,
          outcome: '',
          requests: 0,
          retries: 0,
          rateLimited: 0,
          faults: {},
          consoleTail: []
        })
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results.sort((a, b) => a.seed - b.seed)
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0
}

/** The suite's figures, as the closing note quotes them. */
function figures(schedules: FaultSchedule[], results: ScheduleResult[], wallMs: number): string {
  const count = (test: (schedule: FaultSchedule) => boolean): number => schedules.filter(test).length
  const permanent = new Map<string, number>()
  for (const schedule of schedules) {
    if (schedule.permanent)
      permanent.set(schedule.permanent.kind, (permanent.get(schedule.permanent.kind) ?? 0) + 1)
  }
  const faults = new Map<string, number>()
  for (const result of results) {
    for (const [label, hits] of Object.entries(result.faults))
      faults.set(label, (faults.get(label) ?? 0) + hits)
  }
  const sum = (pick: (result: ScheduleResult) => number): number =>
    results.reduce((total, r) => total + pick(r), 0)
  const durations = results.map(result => result.durationMs).sort((a, b) => a - b)
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`
  const width = Math.max(...[...faults.keys()].map(label => label.length), 10) + 2
  return [
    `Fault-injection suite: ${results.length} schedules in ${seconds(wallMs)} wall time (${CONCURRENCY} at a time)`,
    `  schedules: ${count(s => s.mode === 'create')} create, ${count(s => s.mode === 'resume')} resume; ` +
      `${count(s => s.expect === 'success')} transient-only, ${count(s => s.expect === 'timeout')} timing out, ` +
      `${count(s => s.expect === 'error')} permanent (${[...permanent].map(([kind, n]) => `${kind} ${n}`).join(', ')}); ` +
      `${count(s => s.virtualTime === true)} in process on the virtual clock (timing out, or answers past the ${REQUEST_TIMEOUT_MS} ms request time limit)`,
    `  requests: ${sum(r => r.requests)}; retries: ${sum(r => r.retries)}; 429 answers: ${sum(r => r.rateLimited)}`,
    `  faults injected (requests hit): ${sum(r => Object.values(r.faults).reduce((a, b) => a + b, 0))}`,
    ...[...faults]
      .sort((a, b) => b[1] - a[1])
      .map(([label, hits]) => `    ${label.padEnd(width, '.')} ${String(hits).padStart(5)}`),
    `  step duration (virtual for those in process): median ${seconds(percentile(durations, 0.5))}, p90 ${seconds(percentile(durations, 0.9))}, max ${seconds(durations.at(-1) ?? 0)}`,
    `  failed schedules: ${results.filter(result => result.violations.length > 0).length}`
  ].join('\n')
}

const seeds = chosenSeeds()

test(
  `the action keeps its promises under ${seeds.length} seeded fault schedules (the bundle, or in process on the virtual clock)`,
  async () => {
    const started = Date.now()
    // The longest first, so that the slow ones do not end up alone at the end.
    const schedules = seeds.map(faultSchedule).sort((a, b) => b.estimateMs - a.estimateMs)
    // The bundles a few at a time; beside them, the steps in process one at a time (they own the
    // process's environment and console while they run).
    const results = (
      await Promise.all([
        pool(
          schedules.filter(schedule => !schedule.virtualTime),
          CONCURRENCY
        ),
        pool(
          schedules.filter(schedule => schedule.virtualTime),
          1
        )
      ])
    )
      .flat()
      .sort((a, b) => a.seed - b.seed)
    const failed = results.filter(result => result.violations.length > 0)
    const report = [
      figures(schedules, results, Date.now() - started),
      ...failed.map(describeFailure),
      ...(failed.length > 1
        ? [`Replay every failed seed: ${replayCommand(failed.map(result => result.seed))}`]
        : [])
    ].join('\n\n')
    const path = join(tmpdir(), 'codegen-fault-suite.txt')
    const perSeed = results.map(
      r =>
        `seed ${String(r.seed).padStart(4)}  ${String(r.durationMs).padStart(6)} ms  ${r.outcome.padEnd(8)} ` +
        `${String(r.requests).padStart(3)} requests, ${r.retries} retries, ${r.rateLimited} × 429` +
        `${r.violations.length ? '  FAILED' : ''}`
    )
    writeFileSync(path, `${report}\n\n${perSeed.join('\n')}\n`)
    console.log(`${report.split('\n\n')[0]}\n(report: ${path})`)
    if (failed.length > 0) {
      throw new Error(`${failed.length} of ${results.length} fault schedules failed:\n\n${report}`)
    }
  },
  Math.max(5 * 60_000, seeds.length * 4_000)
)
