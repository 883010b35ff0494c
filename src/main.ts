import { readFileSync } from 'node:fs'
import { runAction, type ActionEnvironment } from './action.js'
import { checkInThread, type AnswerChecker } from './answer/check.js'
import { systemClock } from './clock.js'
import { systemNetwork } from './network.js'
import { openLogFile } from './runner/log-file.js'
import { ActionsRunner, type Console } from './runner/runner.js'

/**
 * Wires the real runner, clock, network and files to the step, and the job's cancellation (SIGINT,
 * SIGTERM). Named `run` after the actions/typescript-action convention, which `@github/local-action`
 * calls (it checks answers in its own thread; the bundle hands in its worker: index.ts).
 */
export async function run(checkAnswer: AnswerChecker = checkInThread): Promise<void> {
  const runner = new ActionsRunner()
  const cancellation = new AbortController()
  const cancel = (signal: NodeJS.Signals): void => cancelJob(runner, cancellation, signal)
  process.once('SIGINT', cancel)
  process.once('SIGTERM', cancel)
  await runStep({
    runner,
    env: process.env,
    clock: systemClock,
    network: systemNetwork,
    signal: cancellation.signal,
    openLogFile,
    checkAnswer,
    readEventPayload: path => (path ? JSON.parse(readFileSync(path, 'utf8')) : {})
  })
  // A cancelled job is given seconds to stop: do not wait for idle connections to close.
  if (cancellation.signal.aborted) process.exit(process.exitCode ?? 1)
}

/** The job is being cancelled: said once, and every wait of the step ends. */
export function cancelJob(console: Console, cancellation: AbortController, signal: NodeJS.Signals): void {
  if (cancellation.signal.aborted) return
  console.warning(`${signal} received: the job is being cancelled; writing the summary and outputs now.`)
  cancellation.abort()
}

/** The step in its surroundings: the one place that fails it. */
export async function runStep(environment: ActionEnvironment): Promise<void> {
  const { runner } = environment
  let failure: string | undefined
  try {
    failure = await runAction(environment)
  } catch (error) {
    // One line in the annotation; the stack for those who turn on debug logging.
    runner.debug(error instanceof Error ? (error.stack ?? '') : '')
    failure = `Unexpected error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`
  }
  if (failure) runner.fail(failure)
}
