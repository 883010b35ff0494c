import { readFileSync } from 'node:fs'
import { runAction } from './action.js'
import { checkInThread, type AnswerChecker } from './answer/check.js'
import { systemClock } from './clock.js'
import { openLogFile } from './runner/log-file.js'
import { ActionsRunner } from './runner/runner.js'

/**
 * Wires the real runner, clock and files to the action; the one place that fails the step. Named
 * `run` after the actions/typescript-action convention, which `@github/local-action` calls (it
 * checks answers in its own thread; the bundle hands in its worker: index.ts).
 */
export async function run(checkAnswer: AnswerChecker = checkInThread): Promise<void> {
  const runner = new ActionsRunner()
  const cancellation = new AbortController()
  const cancel = (signal: NodeJS.Signals): void => {
    if (cancellation.signal.aborted) return
    runner.warning(`${signal} received: the job is being cancelled; writing the summary and outputs now.`)
    cancellation.abort()
  }
  process.once('SIGINT', cancel)
  process.once('SIGTERM', cancel)

  let failure: string | undefined
  try {
    failure = await runAction({
      runner,
      env: process.env,
      clock: systemClock,
      signal: cancellation.signal,
      openLogFile,
      checkAnswer,
      readEventPayload: path => (path ? JSON.parse(readFileSync(path, 'utf8')) : {})
    })
  } catch (error) {
    // One line in the annotation; the stack for those who turn on debug logging.
    runner.debug(error instanceof Error ? (error.stack ?? '') : '')
    failure = `Unexpected error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`
  }
  if (failure) runner.fail(failure)
  // A cancelled job is given seconds to stop: do not wait for idle connections to close.
  if (cancellation.signal.aborted) process.exit(process.exitCode ?? 1)
}
