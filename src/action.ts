import { withThreadImages } from './agent-run/run-brief.js'
import { runWithPlan } from './agent-run/plan-run.js'
import { Deadlines } from './deadlines.js'
import { decide, type Decision, type Work } from './decide.js'
import { gitHubClient } from './github/connect.js'
import { once } from './once.js'
import type { GitHubApi } from './github/api.js'
import { openCheckRun, type CheckRun } from './report/check-run.js'
import { findingsReview } from './report/review.js'
import type { FindingsPlace } from './report/findings-text.js'
import { isTriggerEvent } from './thread/trigger.js'
import type { RunReport } from './model.js'
import { runSetupCheck } from './org/setup-check.js'
import { stepDailyGate } from './org/daily-limit-read.js'
import { serviceClients, type ServiceClients } from './org/clients.js'
import { stepFailMessage } from './report/step-fail.js'
import { JobSummary } from './report/job-summary.js'
import { OutputsReporter } from './report/outputs.js'
import { redactor, Reporters, type Redact, type Reporter } from './report/reporters.js'
import { UsageCount } from './report/usage-count.js'
import { runMany } from './runs/many-runs.js'
import { readSettings } from './settings/read-settings.js'
import {
  logMirror,
  manyRunsDeps,
  runDeps,
  redacted,
  type ActionEnvironment,
  type Say,
  type Step
} from './step.js'
import { InputError, type Settings } from './settings/settings.js'
import { readWorkflowContext } from './settings/workflow-context.js'

export type { ActionEnvironment }

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
    const images = { fetch: environment.network.images, signal: deadlines.startSignal }
    const decision = await decide(settings, { payload, github, clock, say, stopped, redact, images })
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
        new JobSummary(
          runner,
          mirror,
          settings.mirrorToSummary,
          findingsPlace(settings, decision),
          settings.triggerPhrase
        ),
        // The check's conclusion goes to GitHub first: a required check left in progress blocks merging.
        ...optional<Reporter>(
          checkRun,
          decision.tracking,
          findingsReview(
            settings,
            { oneRun: decision.work.kind === 'run', pullRequest: decision.pullRequest },
            github,
            say,
            line => runner.info(redact(line))
          )
        )
      ],
      redact,
      () => deadlines.afterCancelled()
    )
    const apis = serviceClients(settings, clock, signal, say.debug, environment.network.service)
    const fixing = decision.work.kind === 'run' && decision.work.brief.ciFix !== undefined
    const gate = stepDailyGate(settings.dailyLimits, fixing, apis, clock, deadlines.step)
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
      return withThreadImages(await runWithPlan(work.brief, runDeps(step, apis)), work.brief)
    case 'runs':
      return runMany(work.items, manyRunsDeps(step, apis))
  }
}

/** The step's check run: its create sent before the run starts, never waited for (issue #26). */
async function openStepCheck(
  { place, resumed, onThread, planning }: NonNullable<Decision['check']>,
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
    ...(planning ? { planning } : {}),
    clock,
    warn: say.warning,
    cancellation: signal
  })
}

/** The commit the findings are about, for links to their lines: the pull request's head, else the workflow's. */
function findingsPlace(settings: Settings, decision: Decision): FindingsPlace | undefined {
  if (!settings.answer?.findings) return undefined
  const { serverUrl, repository, sha } = settings.context
  const head = decision.pullRequest?.sha ?? decision.check?.place.sha ?? sha
  return repository && head ? { serverUrl, repository, sha: head } : undefined
}

/** The decision's trigger, for the report: undefined (the set-up check) leaves the report's own. */
function triggerOf(decision: Decision): Pick<RunReport, 'trigger'> {
  return decision.trigger === undefined ? {} : { trigger: decision.trigger }
}

function optional<T>(...values: Array<T | undefined>): T[] {
  return values.filter((value): value is T => value !== undefined)
}
