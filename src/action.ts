import { runPlan } from './agent-run/run-plan.js'
import type { AnswerChecker } from './answer/check.js'
import { withAnswerFormat } from './answer/prompt.js'
import type { Clock } from './clock.js'
import { Deadlines } from './deadlines.js'
import { prepareCommentRun } from './github/comment-run.js'
import { withCommit } from './github/prompt.js'
import type { GitHubApi } from './github/api.js'
import { checkRunPlace, openCheckRun, type CheckRun, type CheckRunPlace } from './github/check-run.js'
import type { TrackingComment } from './github/tracking-comment.js'
import { isTriggerEvent, readTrigger } from './github/trigger.js'
import { reportOf, type RunPlan, type RunReport } from './model.js'
import { checkSetup } from './org/check.js'
import { serviceClients, type ServiceClients } from './org/clients.js'
import { namedConsole, runsStateLine } from './report/runs-report.js'
import { runFanOut } from './runs/fan-out.js'
import { aggregateOutcome } from './runs/outcome.js'
import { failureMessage } from './report/failure.js'
import { JobSummary } from './report/job-summary.js'
import { LogMirror } from './report/log-mirror.js'
import { redactor, Reporters, type Redact } from './report/reporters.js'
import type { LogFile } from './runner/log-file.js'
import type { Console, Runner } from './runner/runner.js'
import { readSettings } from './settings/read-settings.js'
import { InputError, type RunItem, type Settings } from './settings/settings.js'
import { originMetadata, readWorkflowContext, type Env } from './settings/workflow-context.js'

/** The action's surroundings: every I/O boundary, handed in by main.ts (or by a test). */
export interface ActionEnvironment {
  runner: Runner
  env: Env
  clock: Clock
  /** Aborted when the job is cancelled. */
  signal: AbortSignal
  openLogFile: (directory: string, runId: number) => LogFile
  /** The webhook payload at GITHUB_EVENT_PATH. */
  readEventPayload: (path: string) => unknown
  /** Checks an answer against the schema where it can be stopped (a worker thread in the bundle). */
  checkAnswer: AnswerChecker
}

/**
 * Runs the action: reads the settings, decides what to start, starts it, follows it, and hands the
 * report to every reporter. Returns why the step fails, or undefined when it passes.
 */
export async function runAction(environment: ActionEnvironment): Promise<string | undefined> {
  const { runner, env, clock, signal } = environment
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
  if (settings.githubToken) runner.mask(settings.githubToken)
  const redact = redactor([...secrets, settings.githubToken])
  const say = redacted(runner, redact)
  // timeout-minutes counts from here: GitHub's calls before the run come out of it too.
  const deadlines = new Deadlines(clock, signal, settings.timeoutMs)
  const apis = serviceClients(settings, clock, signal, say.debug, env)
  try {
    const start = await decideStart(settings, environment, deadlines, say)
    const mirror = new LogMirror(runner, {
      toConsole: settings.mirrorToConsole,
      keepEntries: settings.mirrorToSummary,
      openLogFile: runId => environment.openLogFile(settings.context.runnerTemp, runId),
      policy: settings
    })
    const tracking = start.kind === 'run' && start.tracking ? [start.tracking] : []
    const checkRun =
      start.kind === 'run' || start.kind === 'runs'
        ? await stepCheckRun(start, settings, deadlines, say, clock)
        : undefined
    // The outputs name the check once GitHub created it, unless the job is cancelled (they go first then).
    const checkRunId = async (): Promise<number | undefined> => checkRun?.whenCreated(signal)
    const reporters = new Reporters(
      [
        mirror,
        new JobSummary(runner, mirror, settings.mirrorToSummary),
        // The check's conclusion goes to GitHub first: a required check left in progress blocks merging.
        ...(checkRun ? [checkRun] : []),
        ...tracking
      ],
      redact,
      () => deadlines.afterCancelled()
    )
    let report: RunReport
    if (start.kind === 'none') report = start.report
    else if (start.kind === 'runs') {
      report = await runMany(start.items, settings, { environment, deadlines, apis, redact, say })
      report = { ...report, checkRunId: await checkRunId() }
    } else if (start.kind === 'check') {
      const target = { orgId: settings.orgId, repoId: settings.repoId, repository: settings.repository }
      report = await checkSetup(apis, target, { deadline: deadlines.step, clock })
    } else {
      const deadline = deadlines.step
      const warning = (message: string): void => reporters.warning(message)
      const last = await runPlan(start.plan, {
        start: { apis, clock, signal, deadline, warning, notice: say.notice },
        follow: { clock, signal, deadline, events: reporters },
        ...(settings.answer ? { answer: { spec: settings.answer, check: environment.checkAnswer } } : {})
      })
      report = { ...last, trigger: start.trigger, checkRunId: await checkRunId() }
    }
    return failureMessage(await reporters.finish(report), settings)
  } finally {
    deadlines.dispose()
  }
}

/** The runner's annotations and debug lines, redacted: what GitHub or the service answers may echo a token. */
function redacted(runner: Console, redact: Redact): Pick<Console, 'notice' | 'warning' | 'debug'> {
  return {
    notice: message => runner.notice(redact(message)),
    warning: message => runner.warning(redact(message)),
    debug: message => runner.debug(redact(message))
  }
}

/** What the step starts: a run (from its inputs or a thread trigger), many runs, the set-up check, or nothing. */
type Start =
  | {
      kind: 'run'
      plan: RunPlan
      trigger: string
      tracking?: TrackingComment
      /** Where its check run goes, if it gets one; and the GitHub client made for the trigger. */
      checkPlace?: CheckRunPlace
      github?: GitHubApi
    }
  /** The `runs` input: a plan for each item, and one check run for the step. */
  | { kind: 'runs'; items: Array<{ name: string; plan: RunPlan }>; checkPlace?: CheckRunPlace }
  | { kind: 'check' }
  /** Nothing to start (not a trigger, a refused author, GitHub unreadable): its report. */
  | { kind: 'none'; report: RunReport }

/**
 * What this step starts: the set-up check, the plan from its inputs, or, on a triggering event, the
 * author's request (once they are found allowed to make it) with its tracking comment.
 */
async function decideStart(
  settings: Settings,
  environment: ActionEnvironment,
  deadlines: Deadlines,
  say: Pick<Console, 'notice' | 'warning'>
): Promise<Start> {
  const { clock } = environment
  if (settings.task === 'check') return { kind: 'check' }
  const context = settings.context
  const event = {
    name: context.eventName,
    sha: context.sha,
    payload: () => environment.readEventPayload(context.eventPath)
  }
  // A check needs the run's ending: a step that does not wait writes none.
  const checkMode = settings.wait ? settings.checkRun : 'false'
  // Settings refuse `runs` on a thread trigger's event: a fan-out starts from its inputs alone.
  if (settings.runs) {
    const checkPlace = checkRunPlace(checkMode, { kind: 'inputs' }, event)
    return {
      kind: 'runs',
      items: settings.runs.map(item => ({ name: item.name, plan: planFromItem(settings, item, checkPlace) })),
      checkPlace
    }
  }
  const triggerEvent = isTriggerEvent(context.eventName, settings.labelTrigger)
  const payload = triggerEvent ? environment.readEventPayload(context.eventPath) : undefined
  const trigger = readTrigger(context.eventName, payload, {
    phrase: settings.triggerPhrase,
    labelTrigger: settings.labelTrigger,
    assigneeTrigger: settings.assigneeTrigger,
    allowedBots: settings.allowedBots
  })
  // Only runs come from threads: other tasks act on their inputs.
  if (trigger.kind === 'inputs' || settings.task !== 'run') {
    const checkPlace = checkRunPlace(checkMode, { kind: 'inputs' }, event)
    return { kind: 'run', plan: planFromInputs(settings, checkPlace), trigger: 'inputs', checkPlace }
  }
  const plan = planFromInputs(settings)
  const noRun = (reason: string): Start => {
    say.notice(`No agent run: ${reason}`)
    return { kind: 'none', report: reportOf({ outcome: 'skipped', reason, trigger: '' }, clock.now()) }
  }
  if (trigger.kind === 'skip') return noRun(trigger.reason)

  const github = await gitHubClient(settings, deadlines, say)
  let prepared: Awaited<ReturnType<typeof prepareCommentRun>>
  try {
    prepared = await prepareCommentRun(trigger, settings, {
      github,
      clock,
      warn: say.warning,
      notice: say.notice
    })
  } catch (error) {
    const report = reportOf(
      { outcome: 'error', error: (error as Error).message, trigger: trigger.trigger },
      clock.now()
    )
    return { kind: 'none', report }
  }
  if ('refused' in prepared) return noRun(prepared.refused)
  await prepared.tracking?.open()
  return {
    kind: 'run',
    trigger: trigger.trigger,
    plan: {
      ...plan,
      prompt: withAnswerFormat(prepared.prompt, settings.answer),
      resumeRunId: prepared.resumeRunId,
      ...(prepared.freshPrompt !== undefined
        ? { carryOn: { prompt: withAnswerFormat(prepared.freshPrompt, settings.answer) } }
        : {})
    },
    tracking: prepared.tracking,
    // On the head commit the prompt names.
    checkPlace: checkRunPlace(checkMode, { ...trigger, pullRequest: prepared.pullRequest }, event),
    github
  }
}

/** The step's check run: its create sent before the run starts, never waited for (issue #26). */
async function stepCheckRun(
  start: Extract<Start, { kind: 'run' | 'runs' }>,
  settings: Settings,
  deadlines: Deadlines,
  say: Pick<Console, 'warning'>,
  clock: Clock
): Promise<CheckRun | undefined> {
  if (!start.checkPlace) return undefined
  return openCheckRun(start.checkPlace, {
    github: (start.kind === 'run' && start.github) || (await gitHubClient(settings, deadlines, say)),
    settings,
    resumed: start.kind === 'run' && start.plan.resumeRunId !== undefined,
    onThread: start.kind === 'run' && start.trigger !== 'inputs',
    clock,
    warn: say.warning
  })
}

/**
 * The GitHub client of the step, its calls ending with GitHub's deadline. Loaded here only: octokit
 * is a sixth of the bundle, and a step that neither answers a thread nor writes a check never needs it.
 */
async function gitHubClient(
  settings: Settings,
  deadlines: Deadlines,
  say: Pick<Console, 'warning'>
): Promise<GitHubApi> {
  const { OctokitGitHubApi } = await import('./github/api.js')
  return new OctokitGitHubApi({
    token: settings.githubToken,
    repository: settings.context.repository,
    apiUrl: settings.context.apiUrl,
    warn: say.warning,
    signal: deadlines.githubSignal,
    stopAt: deadlines.githubStopAt
  })
}

/**
 * The plan of a workflow step that starts or resumes a run from its inputs; with its check on a pull
 * request's head (`checkPlace`), the prompt names that commit.
 */
export function planFromInputs(settings: Settings, checkPlace?: CheckRunPlace): RunPlan {
  return {
    // The answer-format section ends the prompt when an answer is asked; else it is as written.
    prompt: withAnswerFormat(withCommit(settings.prompt, checkPlace), settings.answer),
    images: settings.images,
    resumeRunId: settings.agentRunId,
    orgId: settings.orgId,
    repoId: settings.repoId,
    repository: settings.repository || undefined,
    repositoryRequired: settings.repositoryNamed,
    setupCommands: settings.task === 'setup-commands',
    model: settings.model,
    agentType: settings.agentType,
    metadata: settings.metadata,
    origin: originMetadata(settings.context),
    wait: settings.wait,
    pollIntervalMs: settings.pollIntervalMs
  }
}

/** What a fan-out's start needs of the step: its surroundings, deadlines, clients and redaction. */
interface StepParts {
  environment: ActionEnvironment
  deadlines: Deadlines
  apis: ServiceClients
  redact: Redact
  say: Pick<Console, 'notice'>
}

/** A fan-out keeps fewer entries of each run for its timeline: a hundred runs share one summary. */
const ITEM_KEPT = { first: 25, last: 25 }

/**
 * The `runs` input: every item started and followed on one budget (runFanOut), each with reporters
 * of its own (its console lines named, its log file), then one report of them all.
 */
async function runMany(
  items: Array<{ name: string; plan: RunPlan }>,
  settings: Settings,
  { environment, deadlines, apis, redact, say }: StepParts
): Promise<RunReport> {
  const { runner, clock, signal } = environment
  const startedAt = clock.now()
  const perItem = items.map(({ name, plan }) => {
    const mirror = new LogMirror(namedConsole(runner, name), {
      toConsole: settings.mirrorToConsole,
      keepEntries: settings.mirrorToSummary,
      openLogFile: runId => environment.openLogFile(settings.context.runnerTemp, runId),
      policy: settings,
      kept: ITEM_KEPT
    })
    return { name, plan, mirror, events: new Reporters([mirror], redact, () => deadlines.afterCancelled()) }
  })
  const reports = await runFanOut(perItem, {
    apis,
    clock,
    signal,
    deadline: deadlines.step,
    maxParallel: settings.maxParallel,
    liveLog: settings.mirrorToConsole,
    notice: say.notice,
    // Asked for an answer: each run's is read as it ends, and asked again while it is not valid.
    ...(settings.answer ? { answer: { spec: settings.answer, check: environment.checkAnswer } } : {}),
    states: (states, elapsedMs) => runner.info(redact(runsStateLine(states, elapsedMs)))
  })
  const runs = await Promise.all(
    reports.map(async (item, i) => {
      const { mirror, events } = perItem[i] as (typeof perItem)[number]
      const report = item.report && (await events.finish(item.report))
      const entries = settings.mirrorToSummary
        ? { entries: mirror.entries, entriesLeftOut: mirror.entriesLeftOut }
        : {}
      return { ...item, ...(report ? { report } : {}), ...entries }
    })
  )
  const orgId = runs.map(run => run.report?.orgId).find(id => id !== undefined)
  const fields = {
    outcome: aggregateOutcome(runs),
    runs,
    trigger: 'inputs',
    ...(orgId !== undefined ? { orgId } : {})
  }
  return reportOf(fields, startedAt, clock.now())
}

/** The plan of one item of `runs`: its own prompt and fields, the step's inputs for the rest. */
export function planFromItem(settings: Settings, item: RunItem, checkPlace?: CheckRunPlace): RunPlan {
  const own = item.repoId !== undefined || item.repository !== undefined
  return {
    ...planFromInputs(settings),
    // The answer-format section ends each run's prompt when verdict or output-schema asks for one.
    prompt: withAnswerFormat(withCommit(item.prompt, checkPlace), settings.answer),
    resumeRunId: undefined,
    setupCommands: false,
    // The item's repository when it names one; else the step's.
    repoId: own ? item.repoId : settings.repoId,
    repository: own ? item.repository : settings.repository || undefined,
    repositoryRequired: own ? item.repository !== undefined : settings.repositoryNamed,
    model: item.model ?? settings.model,
    agentType: item.agentType ?? settings.agentType,
    metadata: { ...settings.metadata, ...item.metadata },
    origin: { ...originMetadata(settings.context), run_name: item.name }
  }
}
