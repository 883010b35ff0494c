import type { RunDeps } from './agent-run/run-brief.js'
import type { StartDeps } from './agent-run/start.js'
import type { AnswerChecker } from './answer/check.js'
import type { Clock } from './clock.js'
import type { Deadlines } from './deadlines.js'
import type { Network } from './network.js'
import type { DailyGate } from './org/daily-limit-read.js'
import type { ServiceClients } from './org/clients.js'
import { LogMirror } from './report/log-mirror.js'
import type { Redact, Reporters } from './report/reporters.js'
import type { LogFile } from './runner/log-file.js'
import type { Console, Runner } from './runner/runner.js'
import { ITEM_KEPT, type ManyRunsDeps } from './runs/many-runs.js'
import type { Settings } from './settings/settings.js'
import type { Env } from './settings/workflow-context.js'

/**
 * The step as runAction (action.ts) holds it once its settings are read: its surroundings, its
 * deadlines, redaction and reporters; and what a run (runBrief) and the runs input (runMany) need
 * of it.
 */

/** The action's surroundings: every I/O boundary, handed in by main.ts (or by a test). */
export interface ActionEnvironment {
  runner: Runner
  env: Env
  clock: Clock
  /** The service's and GitHub's HTTP. */
  network: Network
  /** Aborted when the job is cancelled. */
  signal: AbortSignal
  openLogFile: (directory: string, runId: number) => LogFile
  /** The webhook payload at GITHUB_EVENT_PATH. */
  readEventPayload: (path: string) => unknown
  /** Checks an answer against the schema where it can be stopped (a worker thread in the bundle). */
  checkAnswer: AnswerChecker
}

/** The runner's annotations and debug lines, redacted: what GitHub or the service answers may echo a token. */
export type Say = Pick<Console, 'notice' | 'warning' | 'debug'>

export function redacted(runner: Console, redact: Redact): Say {
  return {
    notice: message => runner.notice(redact(message)),
    warning: message => runner.warning(redact(message)),
    debug: message => runner.debug(redact(message))
  }
}

/** What starting and following need of the step. */
export interface Step {
  settings: Settings
  environment: ActionEnvironment
  deadlines: Deadlines
  redact: Redact
  say: Say
  reporters: Reporters
  /** The daily limits on new runs, when any is set: read once for the step. */
  gate?: DailyGate
}

/** What runBrief needs for one run: the service, the step's deadline and cancellation, its reporters. */
export function runDeps(step: Step, apis: ServiceClients): RunDeps {
  const { clock, signal } = step.environment
  const deadline = step.deadlines.step
  const events = step.reporters
  const warning = (message: string): void => events.warning(message)
  const lastCallsBy = (): number => step.deadlines.lastCallsBy()
  return {
    start: {
      apis,
      clock,
      signal,
      deadline,
      lastCallsBy,
      warning,
      notice: step.say.notice,
      ...dailyLimit(step)
    },
    follow: { clock, signal, deadline, lastCallsBy, events },
    ...answerAsked(step)
  }
}

/** The daily limits (and a CI fix's attempts) asked before each create, when any applies. */
function dailyLimit({ gate }: Step): Pick<StartDeps, 'dailyLimit'> {
  return gate ? { dailyLimit: (orgId, origin, fix) => gate.admit(orgId, origin, fix) } : {}
}

/** What the runs input needs of the step: its budget and reporters, each item's mirror keeping fewer entries. */
export function manyRunsDeps(step: Step, apis: ServiceClients): ManyRunsDeps {
  const { settings, environment, deadlines, redact } = step
  const { runner, clock, signal } = environment
  return {
    apis,
    clock,
    signal,
    deadline: deadlines.step,
    lastCallsBy: () => deadlines.lastCallsBy(),
    maxParallel: settings.maxParallel,
    liveLog: settings.mirrorToConsole,
    notice: step.say.notice,
    ...answerAsked(step),
    ...dailyLimit(step),
    console: runner,
    keepEntries: settings.mirrorToSummary,
    mirror: named => logMirror(named, settings, environment, ITEM_KEPT),
    redact,
    afterCancelled: () => deadlines.afterCancelled()
  }
}

/** verdict or output-schema: each run's answer read as it ends, and asked again while it is not valid. */
function answerAsked({ settings, environment }: Step): Pick<RunDeps, 'answer'> {
  return settings.answer ? { answer: { spec: settings.answer, check: environment.checkAnswer } } : {}
}

/** The console mirror of a run (or of the step's runs), with its log file: one builder for both. */
export function logMirror(
  console: Console,
  settings: Settings,
  environment: ActionEnvironment,
  kept?: { first: number; last: number }
): LogMirror {
  return new LogMirror(console, {
    toConsole: settings.mirrorToConsole,
    keepEntries: settings.mirrorToSummary,
    openLogFile: runId => environment.openLogFile(settings.context.runnerTemp, runId),
    policy: settings,
    ...(kept ? { kept } : {})
  })
}
