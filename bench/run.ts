/**
 * `npm run bench`: the bundled action (dist/index.js, spawned as the runner spawns it) against the
 * emulator over real HTTP on loopback, beside a naive client. Prints a table of medians and writes
 * it as JSON to bench/results/latest.json, for comparing two commits. Figures, not pass/fail: the
 * process fails only when a run itself goes wrong.
 *
 * Time. Every case runs at real pace, the realistic 10-minute timeline included (about 15 minutes
 * in all, the other cases side by side with it): the fast looks after a FINAL_ANSWER (1 s) sit at
 * the client's rate budget's pace (about 1 s, not time-scaled), so a compressed run would have the
 * budget hold them back and undercount its requests (COMPRESSION in measure.ts). The table prints the
 * busiest wall minute of log reads to show the budget never bound there. The naive client runs
 * against an emulator without rate limits in the realistic case: its requests are counted, not
 * refused.
 */

import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ACTION_ENTRY_PATH, ACTION_NODE } from './action-process.js'
import { detectionLag, fastPollInterval, jobsOnOneToken, realistic, startUp } from './cases.js'
import { budgetBoundCatchUp, largeRunAndCatchUp } from './catch-up.js'
import { fanOutBeside, fanOutRows } from './fan-out.js'
import { ENDLESS_TIMEOUT_MINUTES, endlessLogRun, hugeResponseRun } from './hostile.js'
import { COMPRESSION, DEFAULT_POLL_MS, JOBS, LARGE_ENTRIES, problems } from './measure.js'
import {
  budgetBoundRows,
  catchUpRows,
  fastRows,
  hostileRows,
  jobRows,
  lagRows,
  largeRows,
  realisticRows,
  startRows
} from './rows.js'
import { megabytes, printTable, sortRows, type Row } from './table.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const RESULTS = join(ROOT, 'bench', 'results', 'latest.json')

function machine() {
  const version = (binary: string): string => execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim()
  const cpuModel =
    /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ??
    cpus()[0]?.model ??
    'unknown'
  return {
    actionNode: version(ACTION_NODE),
    actionNodePath: ACTION_NODE,
    benchNode: process.version,
    cpu: cpuModel,
    cores: cpus().length,
    memory: megabytes(totalmem()),
    platform: `${process.platform} ${process.arch}`
  }
}

function commit(): { sha: string; dirty: boolean } {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'src', 'dist'], {
        cwd: ROOT,
        encoding: 'utf8'
      }).trim() !== ''
    return { sha, dirty }
  } catch {
    return { sha: 'unknown', dirty: false }
  }
}

const CASES = ['startup', 'large', 'lag', 'realistic', 'jobs', 'fast', 'hostile', 'fanout'] as const
type CaseName = (typeof CASES)[number]

/** `node build/bench/run.js startup large` runs only those cases (and writes only-….json, not latest.json). */
function selectedCases(): Set<CaseName> {
  const asked = process.argv.slice(2).filter(arg => !arg.startsWith('-'))
  const unknown = asked.filter(name => !CASES.includes(name as CaseName))
  if (unknown.length > 0) throw new Error(`Unknown case ${unknown.join(', ')}: one of ${CASES.join(', ')}`)
  return new Set((asked.length > 0 ? asked : CASES) as CaseName[])
}

async function main(): Promise<void> {
  const started = Date.now()
  const cases = selectedCases()
  const host = machine()
  console.log(`Benchmark of ${ACTION_ENTRY_PATH} under node ${host.actionNode} (${host.actionNodePath})`)
  console.log(`${host.cpu}, ${host.cores} cores; figures are medians unless said otherwise\n`)

  const raw: Record<string, unknown> = {}
  const rows: Row[] = []
  await runOneByOne(cases, host.actionNode, raw, rows)
  await runSideBySide(cases, raw, rows)
  sortRows(rows, JOBS)

  console.log('')
  printTable(rows)
  const elapsed = Math.round((Date.now() - started) / 1000)
  console.log(
    `\n${elapsed} s in all. Lag: terminal status in the emulator to the step's exit (the naive client: to its`
  )
  console.log('loop seeing it). Every comparison side by side in this one run.')
  writeResults(cases, host, rows, raw)
  if (problems.length > 0) {
    console.error(
      `\n${problems.length} run(s) went wrong:\n${problems.map(problem => `- ${problem}`).join('\n')}`
    )
    process.exitCode = 1
  }
}

/** The cases that run alone: start-up and the large run are timed, the hostile ones use much memory. */
async function runOneByOne(
  cases: Set<CaseName>,
  node: string,
  raw: Record<string, unknown>,
  rows: Row[]
): Promise<void> {
  if (cases.has('startup')) {
    console.log('start-up …')
    const start = await startUp()
    raw.start = start
    rows.push(...startRows(start, node))
  }
  if (cases.has('large')) {
    console.log('large run and catch-up …')
    const large = await largeRunAndCatchUp()
    raw.large = large
    rows.push(...catchUpRows(large), ...largeRows(large))
  }
  if (cases.has('hostile')) {
    console.log(`hostile service: an endless log for ${ENDLESS_TIMEOUT_MINUTES * 60} s, one 300 MB answer …`)
    const endless = await endlessLogRun()
    const huge = await hugeResponseRun()
    raw.hostile = { endless, huge }
    rows.push(...hostileRows(endless, huge))
  }
}

/** The cases that run at the same time: mostly waiting, on emulators and tokens of their own. */
async function runSideBySide(cases: Set<CaseName>, raw: Record<string, unknown>, rows: Row[]): Promise<void> {
  const concurrent = (['large', 'lag', 'realistic', 'jobs', 'fast', 'fanout'] as const).filter(name =>
    cases.has(name)
  )
  if (concurrent.length === 0) return
  const names = concurrent.map(name => (name === 'large' ? 'budget-bound catch-up' : name))
  const minutes = cases.has('fanout') ? 13 : cases.has('realistic') ? 11 : 3
  console.log(`${names.join(', ')}, side by side (about ${minutes} min) …`)
  const [bound, realisticRuns, jobs, advisedJobs, lagFinal, lagStress, lagError, fast, fanOut] =
    await Promise.all([
      cases.has('large') ? budgetBoundCatchUp() : undefined,
      cases.has('realistic') ? realistic([1, 2, 3, 4, 5]) : undefined,
      cases.has('jobs') ? jobsOnOneToken(JOBS, 300) : undefined,
      // The advice for a matrix (docs/limits.md): poll-interval N seconds for N jobs.
      cases.has('jobs') ? jobsOnOneToken(JOBS, 300, JOBS * 1000) : undefined,
      cases.has('lag') ? detectionLag('final-answer', range(101, 24), 300) : undefined,
      cases.has('lag') ? detectionLag('stress', range(201, 8), 700) : undefined,
      cases.has('lag') ? detectionLag('error', range(301, 20), 400) : undefined,
      cases.has('fast') ? fastPollInterval() : undefined,
      cases.has('fanout') ? fanOutBeside() : undefined
    ])
  if (fanOut) {
    raw.fanOut = fanOut
    rows.push(...fanOutRows(fanOut))
  }
  if (lagFinal && lagStress && lagError) {
    Object.assign(raw, { lagFinal, lagStress, lagError })
    rows.push(...lagRows(lagFinal, lagStress, lagError))
  }
  if (bound) {
    raw.budgetBoundCatchUp = bound
    rows.push(...budgetBoundRows(bound))
  }
  if (realisticRuns) {
    raw.realistic = realisticRuns
    rows.push(...realisticRows(realisticRuns))
  }
  if (fast) {
    raw.fastPollInterval = fast
    rows.push(...fastRows(fast))
  }
  if (jobs && advisedJobs) {
    Object.assign(raw, { jobs, advisedJobs })
    rows.push(
      ...jobRows(jobs, 'default settings', true),
      ...jobRows(advisedJobs, `poll-interval ${JOBS} as advised`, false)
    )
  }
}

/** The figures as JSON, for comparing two commits: latest.json for every case, only-….json for some. */
function writeResults(
  cases: Set<CaseName>,
  host: ReturnType<typeof machine>,
  rows: Row[],
  raw: Record<string, unknown>
): void {
  const results = {
    date: new Date().toISOString(),
    commit: commit(),
    machine: host,
    settings: {
      defaultPollMs: DEFAULT_POLL_MS,
      compression: COMPRESSION,
      largeEntries: LARGE_ENTRIES,
      jobs: JOBS
    },
    cases: [...cases],
    rows,
    raw,
    problems
  }
  const path =
    cases.size === CASES.length ? RESULTS : join(dirname(RESULTS), `only-${[...cases].join('-')}.json`)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`)
  console.log(`\nJSON: ${path}`)
}

function range(first: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => first + i)
}

void main()
