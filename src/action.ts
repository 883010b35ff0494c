import { runPlan, type PlanDeps } from './agent-run/run-plan.js'
import type { StartDeps } from './agent-run/start.js'
import type { AnswerChecker } from './answer/check.js'
import type { Clock } from './clock.js'
import { Deadlines } from './deadlines.js'
import { decide, gitHubClient, once, type Decision, type Work } from './decide.js'
import type { GitHubApi } from './github/api.js'
import { openCheckRun, type CheckRun } from './github/check-run.js'
import { FindingsReview } from './github/review.js'
import type { FindingsPlace } from './report/findings-text.js'
import { isTriggerEvent } from './github/trigger.js'
import { aggregateOutcome, reportOf, type RunPlan, type RunReport } from './model.js'
import { runSetupCheck } from './org/setup-check.js'
import { DailyGate } from './org/daily-limit-read.js'
import type { Network } from './network.js'
import { serviceClients, type ServiceClients } from './org/clients.js'
import { stepFailMessage } from './report/step-fail.js'
import { JobSummary } from './report/job-summary.js'
import { LogMirror } from './report/log-mirror.js'
import { OutputsReporter } from './report/outputs.js'
import { redactor, Reporters, type Redact, type Reporter } from './report/reporters.js'
import { namedConsole, runsStateLine } from './report/runs-report.js'
import { totalUsage } from './report/usage.js'
import { UsageCount } from './report/usage-count.js'
import type { LogFile } from './runner/log-file.js'
import type { Console, Runner } from './runner/runner.js'
import { runFanOut } from './runs/fan-out.js'
import { readSettings } from './settings/read-settings.js'
import { InputError, type Settings } from './settings/settings.js'
import { readWorkflowContext, workflowRunUrl, type Env } from './settings/workflow-context.js'

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

/**
 * Runs the action: reads the settings, decides what the step does, opens its reporters, starts and
 * follows what it decided, and hands the one report to every reporter. Returns why the step fails,
 * or undefined when it passes.
 */
export async function runAction(environment: ActionEnvironment): Promise<string | undefined> {
  const { runner, clock, signal } = environment
  const read = readStep(environment)
  if (typeof read === 'string') return read
  const { settings, redact, say } = read
  // timeout-minutes counts from here: GitHub's calls before the run come out of it too.
  const deadlines = new Deadlines(clock, signal, settings.timeoutMs)
  const github = gitHubClient(settings, deadlines, say, {
    clock,
    fetch: environment.network.github,
    cancellation: signal
  })
  const payload = once(() => environment.readEventPayload(settings.context.eventPath))
  try {
    const stopped = () => deadlines.stopped()
    const decision = await decide(settings, { payload, github, clock, say, stopped, redact })
    // Once the job is cancelled (or out of time), nothing new is started: a check left in progress blocks merging.
    const checkRun =
      decision.check && !stopped()
        ? await openStepCheck(decision.check, settings, github, environment, say)
        : undefined
    const mirror = logMirror(runner, settings, environment)
    const usage = new UsageCount()
    const reporters = new Reporters(
      [
        mirror,
        usage,
        new OutputsReporter(runner, mirror),
        new JobSummary(runner, mirror, settings.mirrorToSummary, findingsPlace(settings, decision)),
        // The check's conclusion goes to GitHub first: a required check left in progress blocks merging.
        ...optional<Reporter>(
          checkRun,
          decision.tracking,
          findingsReview(settings, decision, github, say, line => runner.info(redact(line)))
        )
      ],
      redact,
      () => deadlines.afterCancelled()
    )
    const apis = serviceClients(settings, clock, signal, say.debug, environment.network.service)
    const gate = dailyGate(settings, decision.work, apis, clock, deadlines.step)
    const step: Step = { settings, environment, deadlines, redact, say, reporters, gate }
    const performed = await perform(decision.work, step, apis)
    // A fan-out's items counted their own usage; a run alone's is counted here.
    const report = performed.runs ? performed : usage.counted(performed)
    // The outputs name the check once GitHub created it, unless the job is cancelled (they go first then).
    const checkRunId = await checkRun?.whenCreated(signal)
    const ended = { ...report, ...triggerOf(decision), checkRunId }
    return stepFailMessage(await reporters.finish(ended), settings)
  } finally {
    deadlines.dispose()
  }
}

/** The settings, the secrets masked before anything else is read or printed; or the input error. */
function readStep({
  runner,
  env
}: ActionEnvironment): string | { settings: Settings; redact: Redact; say: Say } {
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
  return { settings, redact, say: redacted(runner, redact) }
}

/** The runner's annotations and debug lines, redacted: what GitHub or the service answers may echo a token. */
type Say = Pick<Console, 'notice' | 'warning' | 'debug'>

function redacted(runner: Console, redact: Redact): Say {
  return {
    notice: message => runner.notice(redact(message)),
    warning: message => runner.warning(redact(message)),
    debug: message => runner.debug(redact(message))
  }
}

/** What starting and following need of the step. */
interface Step {
  settings: Settings
  environment: ActionEnvironment
  deadlines: Deadlines
  redact: Redact
  say: Say
  reporters: Reporters
  /** The daily limits on new runs, when any is set: read once for the step. */
  gate?: DailyGate
}

/** Does what was decided: the one place that asks what kind of work it is. */
async function perform(work: Work, step: Step, apis: ServiceClients): Promise<RunReport> {
  const { settings, deadlines, environment } = step
  switch (work.kind) {
    case 'none':
      return work.report
    case 'setup-check': {
      const target = { orgId: settings.orgId, repoId: settings.repoId, repository: settings.repository }
      return runSetupCheck(apis, target, { deadline: deadlines.step, clock: environment.clock })
    }
    case 'run':
      return runPlan(work.plan, planDeps(step, apis))
    case 'runs':
      return runMany(work.items, step, apis)
  }
}

/** The step's check run: its create sent before the run starts, never waited for (issue #26). */
async function openStepCheck(
  { place, resumed, onThread }: NonNullable<Decision['check']>,
  settings: Settings,
  github: () => Promise<GitHubApi>,
  { clock, signal }: Pick<ActionEnvironment, 'clock' | 'signal'>,
  say: Say
): Promise<CheckRun> {
  return openCheckRun(place, {
    github: await github(),
    settings,
    resumed,
    onThread,
    clock,
    warn: say.warning,
    cancellation: signal
  })
}

/** What runPlan needs for one run: the service, the step's deadline and cancellation, its reporters. */
function planDeps(step: Step, apis: ServiceClients): PlanDeps {
  const { clock, signal } = step.environment
  const deadline = step.deadlines.step
  const events = step.reporters
  const warning = (message: string): void => events.warning(message)
  return {
    start: { apis, clock, signal, deadline, warning, notice: step.say.notice, ...dailyLimit(step) },
    follow: { clock, signal, deadline, events },
    ...answerAsked(step)
  }
}

/** The daily limits (and a CI fix's attempts) asked before each create, when any applies. */
function dailyLimit({ gate }: Step): Pick<StartDeps, 'dailyLimit'> {
  return gate ? { dailyLimit: (orgId, origin, fix) => gate.admit(orgId, origin, fix) } : {}
}

/**
 * The step's daily limits (daily-run-limit, daily-run-limit-per-author), and a CI fix's attempts
 * (max-fix-attempts, always counted); undefined when none applies.
 */
function dailyGate(
  settings: Settings,
  work: Work,
  clients: ServiceClients,
  clock: Clock,
  deadline: number
): DailyGate | undefined {
  const limits = settings.dailyLimits
  const fixing = work.kind === 'run' && work.plan.ciFix !== undefined
  if (limits.perRepository <= 0 && limits.perAuthor <= 0 && !fixing) return undefined
  return new DailyGate({ clients, limits, clock, deadline })
}

/** verdict or output-schema: each run's answer read as it ends, and asked again while it is not valid. */
function answerAsked({ settings, environment }: Step): Pick<PlanDeps, 'answer'> {
  return settings.answer ? { answer: { spec: settings.answer, check: environment.checkAnswer } } : {}
}

/** The console mirror of a run (or of the step's runs), with its log file: one builder for both. */
function logMirror(
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

/** A fan-out keeps fewer entries of each run for its timeline: a hundred runs share one summary. */
const ITEM_KEPT = { first: 25, last: 25 }

/**
 * The `runs` input: every item run on one budget (runFanOut), each with reporters of its own (its
 * console lines named, its log file), then one report of them all.
 */
async function runMany(
  items: Array<{ name: string; plan: RunPlan }>,
  step: Step,
  apis: ServiceClients
): Promise<RunReport> {
  const { settings, environment, deadlines, redact, say } = step
  const { runner, clock, signal } = environment
  const startedAt = clock.now()
  const perItem = items.map(({ name, plan }) => {
    const named = namedConsole(runner, name)
    const mirror = logMirror(named, settings, environment, ITEM_KEPT)
    const usage = new UsageCount()
    const events = new Reporters([mirror, usage], redact, () => deadlines.afterCancelled())
    const notice = (message: string): void => named.notice(redact(message))
    return { name, plan, mirror, usage, events, notice }
  })
  const reports = await runFanOut(perItem, {
    apis,
    clock,
    signal,
    deadline: deadlines.step,
    maxParallel: settings.maxParallel,
    liveLog: settings.mirrorToConsole,
    notice: say.notice,
    ...answerAsked(step),
    ...dailyLimit(step),
    states: (states, elapsedMs) => runner.info(redact(runsStateLine(states, elapsedMs)))
  })
  const runs = await Promise.all(
    reports.map(async (item, i) => {
      const { mirror, usage, events } = perItem[i] as (typeof perItem)[number]
      const report = item.report && (await events.finish(usage.counted(item.report)))
      const entries = settings.mirrorToSummary
        ? { entries: mirror.entries, entriesLeftOut: mirror.entriesLeftOut }
        : {}
      return { ...item, ...(report ? { report } : {}), ...entries }
    })
  )
  const orgId = runs.map(run => run.report?.orgId).find(id => id !== undefined)
  const usages = runs.flatMap(run => (run.report?.usage ? [run.report.usage] : []))
  const fields = {
    outcome: aggregateOutcome(runs),
    runs,
    ...(orgId !== undefined ? { orgId } : {}),
    ...(usages.length > 0 ? { usage: totalUsage(usages) } : {})
  }
  return reportOf(fields, startedAt, clock.now())
}

/** The commit the findings are about, for links to their lines: the pull request's head, else the workflow's. */
function findingsPlace(settings: Settings, decision: Decision): FindingsPlace | undefined {
  if (!settings.answer?.findings) return undefined
  const { serverUrl, repository, sha } = settings.context
  const head = decision.pullRequest?.sha ?? decision.check?.place.sha ?? sha
  return repository && head ? { serverUrl, repository, sha: head } : undefined
}

/**
 * review-comments: the review of the findings on the step's pull request. A step about no pull
 * request (a workflow may serve both kinds of event) has nothing to review, and goes on.
 */
function findingsReview(
  settings: Settings,
  decision: Decision,
  github: () => Promise<GitHubApi>,
  say: Say,
  info: (line: string) => void
): FindingsReview | undefined {
  if (!settings.reviewComments || !settings.answer?.findings || decision.work.kind !== 'run') return undefined
  const place = decision.pullRequest
  if (!place) {
    info('review-comments: this step is about no pull request, so its findings get no review.')
    return undefined
  }
  if (!settings.githubToken) {
    say.warning(
      'review-comments: no github-token, so the findings get no review; leave github-token unset for the job’s GITHUB_TOKEN.'
    )
    return undefined
  }
  return new FindingsReview({
    github,
    place: { pullNumber: place.number, sha: place.sha },
    key: { secret: settings.apiToken, repository: settings.context.repository },
    workflowRunUrl: workflowRunUrl(settings.context),
    warn: say.warning,
    info
  })
}

/** The decision's trigger, for the report: undefined (the set-up check) leaves the report's own. */
function triggerOf(decision: Decision): Pick<RunReport, 'trigger'> {
  return decision.trigger === undefined ? {} : { trigger: decision.trigger }
}

function optional<T>(...values: Array<T | undefined>): T[] {
  return values.filter((value): value is T => value !== undefined)
}
