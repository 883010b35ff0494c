import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { ACTION_ENTRY, parseOutputFile, prepareRunner } from '../scripts/runner-process.js'

/**
 * Spawns the bundled action as the runner does (the harness's environment: INPUT_*, GITHUB_OUTPUT,
 * GITHUB_STEP_SUMMARY, RUNNER_TEMP), with what the benchmark needs on top: the moment of the spawn
 * and of the exit on one high-resolution clock, and the process's own resource usage.
 */

/** Epoch milliseconds with sub-millisecond resolution: the clock the emulators are given too. */
export const preciseNow = (): number => performance.timeOrigin + performance.now()

/** Node binary that runs the action: ACTION_NODE (CI points it at Node 24), else this process's. */
export const ACTION_NODE = process.env.ACTION_NODE || process.execPath
/** The bundle: dist/index.js, or BENCH_ACTION_ENTRY (another commit's bundle, to compare the two). */
export const ACTION_ENTRY_PATH = process.env.BENCH_ACTION_ENTRY || ACTION_ENTRY

export interface Usage {
  /** Peak resident set size, bytes. */
  maxRssBytes: number
  /** User plus system CPU time, ms. */
  cpuMs: number
}

export interface ActionRun {
  /** The run's temporary folder: workspace, runner temp (the log file), outputs and summary. */
  folder: string
  spawnedAt: number
  exitedAt: number
  exitCode: number | null
  outputs: Record<string, string>
  summaryBytes: number
  stdoutBytes: number
  stderr: string
  /** With `measureUsage`. */
  usage?: Usage
}

/**
 * Written next to each measured run and loaded with --require: records the process's peak RSS and
 * CPU time as it exits (getrusage of the process itself; a parent cannot read it from node).
 */
const USAGE_PRELOAD = `'use strict'
process.on('exit', () => {
  const usage = process.resourceUsage()
  require('node:fs').writeFileSync(process.env.BENCH_USAGE_FILE, JSON.stringify({
    maxRssBytes: usage.maxRSS * 1024,
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000
  }))
})
`

export interface SpawnOptions {
  inputs: Record<string, string>
  measureUsage?: boolean
  killAfterMs?: number
  /** Extra environment. */
  env?: Record<string, string>
  /** Options of node itself, before the entry (--cpu-prof to profile a case, say). */
  nodeArgs?: string[]
}

export async function spawnAction(options: SpawnOptions): Promise<ActionRun> {
  const { root, workspace, outputPath, summaryPath, env } = prepareRunner(options)
  const usagePath = join(root, 'usage.json')
  if (options.measureUsage) {
    const preload = join(root, 'usage-preload.cjs')
    writeFileSync(preload, USAGE_PRELOAD)
    env.NODE_OPTIONS = `--require ${preload}`
    env.BENCH_USAGE_FILE = usagePath
  }

  const spawnedAt = preciseNow()
  const child = spawn(ACTION_NODE, [...(options.nodeArgs ?? []), ACTION_ENTRY_PATH], {
    env,
    cwd: workspace,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdoutBytes = 0
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdoutBytes += chunk.length))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 15 * 60_000)
  const closed = new Promise(resolve => child.once('close', resolve))
  const exitCode = await new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
  const exitedAt = preciseNow()
  clearTimeout(killer)
  // Let the pipes drain before reading the files the step wrote.
  await closed

  const outputs = parseOutputFile(readFileSync(outputPath, 'utf8'))
  const run: ActionRun = {
    folder: root,
    spawnedAt,
    exitedAt,
    exitCode,
    outputs,
    summaryBytes: statSync(summaryPath).size,
    stdoutBytes,
    stderr
  }
  if (options.measureUsage) run.usage = JSON.parse(readFileSync(usagePath, 'utf8')) as Usage
  return run
}

/** The log file the step wrote, as parsed lines; read before `cleanUp`. */
export function readLogFile(run: ActionRun): unknown[] {
  const path = run.outputs['log-file']
  if (!path) return []
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(line => line.trim())
    .map(line => JSON.parse(line) as unknown)
}

/** Removes the run's temporary folder (workspace, outputs, summary, log file). */
export function cleanUp(run: ActionRun): void {
  rmSync(run.folder, { recursive: true, force: true })
}

/** `node -e 0` with the same binary: what any node process costs (spawn to exit, and its usage). */
export async function spawnBareNode(measureUsage = false): Promise<{ ms: number; usage?: Usage }> {
  const root = mkdtempSync(join(tmpdir(), 'codegen-bench-'))
  const usagePath = join(root, 'usage.json')
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' }
  if (measureUsage) {
    const preload = join(root, 'usage-preload.cjs')
    writeFileSync(preload, USAGE_PRELOAD)
    env.NODE_OPTIONS = `--require ${preload}`
    env.BENCH_USAGE_FILE = usagePath
  }
  const started = preciseNow()
  const child = spawn(ACTION_NODE, ['-e', '0'], { env, stdio: 'ignore' })
  await new Promise(resolve => child.once('exit', resolve))
  const ms = preciseNow() - started
  const usage = measureUsage ? (JSON.parse(readFileSync(usagePath, 'utf8')) as Usage) : undefined
  rmSync(root, { recursive: true, force: true })
  return { ms, usage }
}
