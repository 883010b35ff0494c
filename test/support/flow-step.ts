import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkInThread } from '../../src/answer/check.js'
import { cancelJob, runStep } from '../../src/main.js'
import { openLogFile } from '../../src/runner/log-file.js'
import { ActionsRunner } from '../../src/runner/runner.js'
import {
  parseOutputFile,
  prepareRunner,
  type RunnerOptions,
  type RunnerResult
} from '../../scripts/runner-process.js'
import { stepSummaryFile } from './step-summary-file.js'
import type { VirtualClock } from './virtual-clock.js'

/**
 * One step of the action in process, as the runner runs the bundle but on the virtual clock: the
 * same runner folder, environment and event file as scripts/runner-process.ts prepares, the real
 * runner (@actions/core reading INPUT_* and writing GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and the
 * console), and main.ts's runStep, the path index.ts takes. Its result has the shape of the bundle's,
 * so a test reads the same outputs, summary and console lines (workflow commands included).
 *
 * @actions/core writes to process.stdout and to the files process.env names: for the length of the
 * step they are the step's. So steps of one test file run one at a time (no test.concurrent).
 */

export interface FlowOptions extends Pick<RunnerOptions, 'inputs' | 'env' | 'event' | 'files'> {
  /** Cancel the job (SIGTERM, or `terminateSignal`) this many virtual ms after the start. */
  terminateAfterMs?: number
  /** And not before this holds, looked at whenever the step waits on time alone. */
  terminateWhen?: () => boolean
  terminateSignal?: NodeJS.Signals
}

export interface FlowResult extends RunnerResult {
  /** Virtual epoch ms at the step's start and end. */
  startedAt: number
  endedAt: number
}

/** A step is under way: @actions/core's console and files are its. */
let stepUnderWay = false

export async function runFlowStep(clock: VirtualClock, options: FlowOptions): Promise<FlowResult> {
  if (stepUnderWay)
    throw new Error('A flow step is under way: steps of the real runner run one at a time (see flow-step.ts)')
  stepUnderWay = true
  try {
    return await stepAlone(clock, options)
  } finally {
    stepUnderWay = false
  }
}

async function stepAlone(clock: VirtualClock, options: FlowOptions): Promise<FlowResult> {
  const folder = prepareRunner(options)
  const summaryFile = stepSummaryFile()
  writeFileSync(summaryFile, '', { flag: 'a' })
  const summaryStart = statSync(summaryFile).size
  const env: Record<string, string> = { ...folder.env, GITHUB_STEP_SUMMARY: summaryFile }

  const savedEnv = process.env
  const savedWrite = process.stdout.write
  const savedErrorWrite = process.stderr.write
  const savedExitCode = process.exitCode
  let stdout = ''
  let stderr = ''
  process.env = { ...env }
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += String(chunk)
    return true
  }) as typeof process.stdout.write
  // What the step writes to stderr (a crash's trace, a warning of Node's) is the step's too.
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk)
    return true
  }) as typeof process.stderr.write
  process.exitCode = undefined

  const runner = new ActionsRunner()
  const cancellation = new AbortController()
  const startedAt = clock.now()
  let terminatedAtMs: number | undefined
  const terminate = (): void => {
    if (terminatedAtMs !== undefined) return
    terminatedAtMs = clock.now() - startedAt
    cancelJob(runner, cancellation, options.terminateSignal ?? 'SIGTERM')
  }
  const due = (): boolean =>
    options.terminateAfterMs !== undefined &&
    clock.now() - startedAt >= options.terminateAfterMs &&
    (options.terminateWhen?.() ?? true)
  let exitCode: number
  try {
    const step = runStep({
      runner,
      env: process.env,
      clock,
      network: clock.network,
      signal: cancellation.signal,
      openLogFile,
      checkAnswer: checkInThread,
      readEventPayload: path => (path ? JSON.parse(readFileSync(path, 'utf8')) : {})
    })
    // A moment to look at, at terminateAfterMs: time would otherwise jump past it with the step's waits.
    const moment = new AbortController()
    if (options.terminateAfterMs !== undefined)
      clock.sleep(options.terminateAfterMs, moment.signal).then(
        () => (due() ? terminate() : undefined),
        () => undefined
      )
    await clock
      .run(() => step, { onQuiet: () => (due() ? terminate() : undefined) })
      .finally(() => moment.abort())
    // main.ts: a cancelled job exits at once, 1 unless the step set its code.
    exitCode = Number(process.exitCode ?? (cancellation.signal.aborted ? 1 : 0))
  } finally {
    process.env = savedEnv
    process.stdout.write = savedWrite
    process.stderr.write = savedErrorWrite
    process.exitCode = savedExitCode
  }
  const summary = readFileSync(summaryFile).subarray(summaryStart).toString('utf8')
  const endedAt = clock.now()
  return {
    exitCode,
    stdout,
    stderr,
    outputs: parseOutputFile(readFileSync(folder.outputPath, 'utf8')),
    summary,
    summaryPath: writeSummaryCopy(folder.root, summary),
    workspace: folder.workspace,
    runnerTemp: env.RUNNER_TEMP ?? '',
    durationMs: endedAt - startedAt,
    ...(terminatedAtMs !== undefined ? { terminatedAtMs } : {}),
    startedAt,
    endedAt
  }
}

/** The step's own summary in its folder, where the bundle's would be. */
function writeSummaryCopy(root: string, summary: string): string {
  const path = join(root, 'step-summary.md')
  writeFileSync(path, summary)
  return path
}
