import { prepareCommentRun } from './github/comment-run.js'
import { readWorkflowContext, originMetadata, type Env } from './settings/workflow-context.js'
import type { TrackingComment } from './github/tracking-comment.js'
import { isTriggerEvent, readTrigger } from './github/trigger.js'
import { runCheck, runOnOrganization, serviceClients, type ServiceClients } from './org/tasks.js'
import { fanOut, redacting } from './agent-run/fan-out.js'
import { failureReason } from './agent-run/outcome.js'
import type { RunPlan, RunReport } from './agent-run/agent-run.js'
import { inlineText, statusText } from './report/console-text.js'
import { count, oneLine } from './report/entry-text.js'
import { LogMirror } from './report/log-mirror.js'
import { actionOutputs, OUTPUT_NAMES, type ResolvedSetup } from './report/outputs.js'
import { redactDeep, redactText } from './redact.js'
import { renderSummary } from './report/summary.js'
import type { Clock } from './clock.js'
import type { LogFile } from './runner/log-file.js'
import type { Runner } from './runner/runner.js'
import { InputError, type Settings } from './settings/settings.js'
import { readSettings } from './settings/read-settings.js'

/** The action's surroundings: every I/O boundary, handed in by main.ts (or by a test). */
export interface ActionEnvironment {
  runner: Runner
  env: Env
  clock: Clock
  signal: AbortSignal
  openLogFile: (directory: string, runId: number) => LogFile
  /** The webhook payload at GITHUB_EVENT_PATH. */
  readEventPayload: (path: string) => unknown
}

/** Runs the action; returns why the step fails, or undefined when it passes. */
export async function runAction(environment: ActionEnvironment): Promise<string | undefined> {
  const { runner, env } = environment
  // Masked before anything else is read or printed, even when the inputs turn out invalid.
  const secrets = [runner.input('api-token').trim(), env.CODEGEN_API_TOKEN?.trim() ?? ''].filter(Boolean)
  secrets.forEach(secret => runner.mask(secret))

  let settings: Settings
  try {
    settings = readSettings(name => runner.input(name), env, readWorkflowContext(env), isTriggerEvent)
  } catch (error) {
    if (error instanceof InputError) return error.message
    throw error
  }

  if (settings.githubToken) {
    runner.mask(settings.githubToken)
    secrets.push(settings.githubToken)
  }
  const apis = serviceClients(
    settings,
    environment.clock,
    environment.signal,
    message => runner.debug(redactText(message, secrets)),
    env
  )
  if (settings.task === 'check') return runCheck(settings, apis, environment.clock, runner, secrets)

  // timeout-minutes counts from here: GitHub's calls before the run come out of it too.
  const deadline = environment.clock.now() + settings.timeoutMs
  const githubStop = stopGitHub(environment, deadline)
  try {
    return await followRun(environment, settings, secrets, apis, deadline, githubStop)
  } finally {
    githubStop.dispose()
  }
}

async function followRun(
  environment: ActionEnvironment,
  settings: Settings,
  secrets: string[],
  apis: ServiceClients,
  deadline: number,
  githubStop: GitHubStop
): Promise<string | undefined> {
  const { runner } = environment
  const mirror = new LogMirror(runner, {
    toConsole: settings.mirrorToConsole,
    keepEntries: settings.mirrorToSummary,
    openLogFile: runId => environment.openLogFile(settings.context.runnerTemp, runId)
  })
  const start = await decideStart(settings, environment, githubStop, secrets)
  if ('report' in start)
    return publish(runner, redactDeep(start.report, secrets), mirror, settings, start.trigger, {})
  const { tracking } = start
  const plan = { ...start.plan, timeoutMs: Math.max(0, deadline - environment.clock.now()) }

  const events = redacting(tracking ? fanOut(mirror, tracking) : mirror, value => redactDeep(value, secrets))
  const { report: raw, orgId } = await runOnOrganization(plan, settings, {
    apis,
    clock: environment.clock,
    signal: environment.signal,
    notice: message => runner.notice(message),
    events
  })
  const report = redactDeep(raw, secrets)
  // Outputs and summary first: a cancelled job is killed seconds after it is told to stop, and
  // GitHub may hold a comment edit for longer than that (its secondary rate limits).
  const failure = await publish(runner, report, mirror, settings, start.trigger, { orgId })
  if (tracking)
    await Promise.race([tracking.finish(report), afterCancelled(environment, CANCELLED_COMMENT_MS)])
  return failure
}

/** How long a cancelled job waits for its tracking comment's last edit. */
const CANCELLED_COMMENT_MS = 4_000
/** How long past timeout-minutes the tracking comment's last edit may take. */
const DEADLINE_COMMENT_MS = 3_000

interface GitHubStop {
  /** Aborts at the deadline plus DEADLINE_COMMENT_MS, or CANCELLED_COMMENT_MS after a cancellation. */
  signal: AbortSignal
  /** The latest moment it aborts. */
  stopAt: number
  /** Clears its timers, once the step is done. */
  dispose(): void
}

/**
 * When GitHub's calls must end, whatever they wait for (an answer, a retry, a rate limit): the step
 * ends within timeout-minutes plus a few seconds, and within the runner's 7.5 s of a cancellation.
 */
function stopGitHub({ clock, signal }: ActionEnvironment, deadline: number): GitHubStop {
  const stop = new AbortController()
  const done = new AbortController()
  const stopAt = deadline + DEADLINE_COMMENT_MS
  const after = (ms: number, reason: string): void =>
    void clock.alarm(ms, done.signal).then(
      () => stop.abort(new Error(reason)),
      () => undefined
    )
  after(stopAt - clock.now(), 'timeout-minutes was reached')
  const cancelled = (): void => after(CANCELLED_COMMENT_MS, 'the job was cancelled')
  if (signal.aborted) cancelled()
  else signal.addEventListener('abort', cancelled, { once: true })
  return {
    signal: stop.signal,
    stopAt,
    dispose: () => {
      signal.removeEventListener('abort', cancelled)
      done.abort()
    }
  }
}

/** Resolves `ms` after the job is cancelled (at once counted from now if it already is); else never. */
function afterCancelled({ signal, clock }: ActionEnvironment, ms: number): Promise<void> {
  return new Promise(resolve => {
    const wait = (): void => void clock.alarm(ms).then(resolve)
    if (signal.aborted) wait()
    else signal.addEventListener('abort', wait, { once: true })
  })
}

/** `trigger`: what started the step's run, for the output ('' when nothing did). */
type Start = { trigger: string } & ({ plan: RunPlan; tracking?: TrackingComment } | { report: RunReport })

/**
 * What this step runs: the plan from its inputs, or, on a comment event, the commenter's request
 * (once they are found allowed to make it) with its tracking comment. A step that runs nothing
 * gets its report here.
 */
async function decideStart(
  settings: Settings,
  environment: ActionEnvironment,
  githubStop: GitHubStop,
  secrets: string[]
): Promise<Start> {
  const { runner, clock } = environment
  // What GitHub answers (an error's message, a comment it quotes) may carry a token: redacted too.
  const warn = (message: string): void => runner.warning(redactText(message, secrets))
  const notice = (message: string): void => runner.notice(redactText(message, secrets))
  const context = settings.context
  const trigger = readTrigger(
    context.eventName,
    isTriggerEvent(context.eventName, settings.labelTrigger)
      ? environment.readEventPayload(context.eventPath)
      : undefined,
    {
      phrase: settings.triggerPhrase,
      labelTrigger: settings.labelTrigger,
      assigneeTrigger: settings.assigneeTrigger,
      allowedBots: settings.allowedBots
    }
  )
  const plan = planFromInputs(settings)
  // Only runs come from comments: other tasks act on their inputs.
  if (trigger.kind === 'inputs' || settings.task !== 'run') return { plan, trigger: 'inputs' }
  const notStarted = (fields: Pick<RunReport, 'outcome' | 'reason' | 'error'>, name = ''): Start => ({
    trigger: name,
    report: {
      mode: 'create',
      status: '',
      startedAt: clock.now(),
      endedAt: clock.now(),
      entriesSeen: 0,
      ...fields
    }
  })
  const skip = (reason: string): Start => {
    notice(`No agent run: ${reason}`)
    return notStarted({ outcome: 'skipped', reason })
  }
  if (trigger.kind === 'skip') return skip(trigger.reason)

  // Loaded here only: octokit is a sixth of the bundle, and a step that is not on a comment never needs it.
  const { OctokitGitHubApi } = await import('./github/api.js')
  let prepared: Awaited<ReturnType<typeof prepareCommentRun>>
  try {
    const github = new OctokitGitHubApi({
      token: settings.githubToken,
      repository: context.repository,
      apiUrl: context.apiUrl,
      warn,
      signal: githubStop.signal,
      stopAt: githubStop.stopAt
    })
    prepared = await prepareCommentRun(trigger, settings, {
      github,
      clock,
      warn,
      notice
    })
  } catch (error) {
    return notStarted({ outcome: 'error', error: (error as Error).message }, trigger.trigger)
  }
  if ('skip' in prepared) return skip(prepared.skip)
  await prepared.tracking?.open()
  return {
    trigger: trigger.trigger,
    plan: { ...plan, prompt: prepared.prompt, resumeRunId: prepared.resumeRunId },
    tracking: prepared.tracking
  }
}

/** The plan of a workflow step that starts or resumes a run from its inputs. */
export function planFromInputs(settings: Settings): RunPlan {
  return {
    prompt: settings.prompt,
    images: settings.images,
    resumeRunId: settings.agentRunId,
    repoId: settings.repoId,
    repository: settings.repository || undefined,
    repositoryRequired: settings.repositoryNamed,
    setupCommands: settings.task === 'setup-commands',
    model: settings.model,
    agentType: settings.agentType,
    metadata: settings.metadata,
    origin: originMetadata(settings.context),
    wait: settings.wait,
    timeoutMs: settings.timeoutMs,
    pollIntervalMs: settings.pollIntervalMs
  }
}

/** Sets the outputs, writes the summary, and says why the step fails (undefined: it passes). */
async function publish(
  runner: Runner,
  report: RunReport,
  mirror: LogMirror,
  settings: Settings,
  trigger: string,
  resolved: ResolvedSetup
): Promise<string | undefined> {
  mirror.finish()
  const outputs = actionOutputs(report, mirror.logFile, trigger, resolved)
  for (const name of OUTPUT_NAMES) runner.setOutput(name, outputs[name])
  runner.info(
    `Outcome: ${report.outcome}${report.status ? ` (status ${statusText(report.status)})` : ''}; ${count(report.entriesSeen, 'log entry', 'log entries')} mirrored${
      mirror.logFile ? ` to ${mirror.logFile}` : ''
    }`
  )
  const summary = renderSummary({
    report,
    entries: settings.mirrorToSummary ? mirror.entries : undefined,
    entriesLeftOut: mirror.entriesLeftOut,
    logFile: mirror.logFile
  })
  await runner.appendSummary(summary)
  const failure = failureMessage(report, settings)
  // An error that fail-on lets pass (a timeout before the run existed) is still said.
  if (!failure && report.error) runner.warning(report.error)
  // A paused run that fail-on lets pass still waits for someone: an annotation says so and how.
  if (!failure && report.outcome === 'paused' && report.run) runner.warning(pausedMessage(report, settings))
  return failure
}

/** Characters of the run's text an annotation quotes: its first line, so the annotation stays a line. */
const ANNOTATION_QUOTE_CHARS = 300

/** The first non-blank line of the run's text, one line, bounded, unable to issue commands. */
function firstLine(text: string | null | undefined): string {
  const line = (text ?? '').split(/\r\n|\r|\n/).find(candidate => candidate.trim()) ?? ''
  return inlineText(oneLine(line, ANNOTATION_QUOTE_CHARS))
}

/** Where the run is: its id, status and link (the link bounded: it is the service's text). */
function runWhere(report: RunReport): string {
  const run = report.run as NonNullable<RunReport['run']>
  const link = run.web_url ? `: ${inlineText(run.web_url).slice(0, 500)}` : ''
  return `Agent run ${run.id}, status ${statusText(report.status || 'unknown')}${link}`
}

/** The annotation of a paused run: it waits for an answer to its question, and how to give one. */
function pausedMessage(report: RunReport, settings: Settings): string {
  const run = report.run as NonNullable<RunReport['run']>
  const question = firstLine(run.result) || firstLine(run.summary)
  return [
    `The agent run paused, waiting for an answer${question ? `: ${question}` : '.'}`,
    `Answer with a comment \`${settings.triggerPhrase} <answer>\` on the issue or pull request that started it, or resume it in a step with \`agent-run-id: ${run.id}\` and the answer as \`prompt\`.`,
    runWhere(report)
  ].join('\n')
}

/**
 * The step's failure annotation: why it failed, the run's own reason (the first line of its result),
 * then where the run is.
 */
function failureMessage(report: RunReport, settings: Settings): string | undefined {
  const reason = failureReason(report.outcome, settings.failOn, report.run?.github_pull_requests?.length ?? 0)
  if (!reason) return undefined
  if (report.error) return report.error
  if (!report.run) return reason
  if (report.outcome === 'paused') return `${reason}\n${pausedMessage(report, settings)}`
  const why =
    report.outcome === 'failure' ? firstLine(report.run.result) || firstLine(report.run.summary) : ''
  return `${reason}${why ? ` Result: ${why}` : ''}\n${runWhere(report)}`
}
