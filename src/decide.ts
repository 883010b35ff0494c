import type { Clock } from './clock.js'
import type { GitHubApi } from './github/api.js'
import { prepareCiFix } from './thread/ci-fix.js'
import { checkRunPlace, pullRequestHead, type CheckRunPlace } from './report/check-run.js'
import { prepareCommentRun, type CommentDeps } from './thread/comment-run.js'
import { toldImages, type SentImages } from './thread/comment-images.js'
import { imageHosts } from './thread/image-download.js'
import { withCommit } from './thread/thread-prompt.js'
import { TrackingComment } from './report/tracking-comment.js'
import { readTrigger, type ThreadTrigger } from './thread/trigger.js'
import type { TrackingSetup } from './thread/tracking.js'
import { readWorkflowRun } from './thread/workflow-run.js'
import { reportOf, type PlanBrief, type RunBrief, type RunReport } from './model.js'
import { PLAN_ASKED_BY } from './agent-run/plan-run.js'
import type { Console } from './runner/runner.js'
import type { RunItem, Settings } from './settings/settings.js'
import { CI_FIX_EVENT, originMetadata } from './settings/workflow-context.js'

/**
 * What the step does, decided once from the settings and the event: one run (from its inputs or a
 * thread's request), many runs (the `runs` input), the set-up check, or nothing (a report already);
 * with where its check run goes and the thread's tracking comment. The rest of the step follows
 * from this one decision, without asking again what kind it was.
 */

export type Work =
  | { kind: 'run'; brief: RunBrief }
  /** The `runs` input: a brief for each item. */
  | { kind: 'runs'; items: Array<{ name: string; brief: RunBrief }> }
  | { kind: 'setup-check' }
  /** Nothing to start (not a trigger, a refused author, GitHub unreadable): its report. */
  | { kind: 'none'; report: RunReport }

export interface Decision {
  work: Work
  /** What started the step's run (inputs, comment, label…), for the output; undefined for the set-up check. */
  trigger?: string
  tracking?: TrackingComment
  /** The step's check run: where it goes, and what its text says of the run. */
  /** `planning`: the run writes a plan (or revises one), as the check says while it works. */
  check?: { place: NonNullable<CheckRunPlace>; resumed: boolean; onThread: boolean; planning?: boolean }
  /**
   * The pull request the step's run is about and the head commit its prompt names, when findings
   * are asked for (their review goes there); undefined without a pull request.
   */
  pullRequest?: { number: number; sha: string }
}

/** What deciding needs of the step: the event's payload (read once), GitHub's client (made once), the clock. */
export interface DecideDeps {
  /** The webhook payload; read at most once. */
  payload: () => unknown
  github: () => Promise<GitHubApi>
  clock: Clock
  say: Pick<Console, 'notice' | 'warning'>
  /** Why the step may start nothing new any more (Deadlines.stopped). */
  stopped: () => 'cancelled' | 'timeout' | undefined
  /** Every secret in every form replaced (the step's redactor): for what the event shows on GitHub. */
  redact: <T>(value: T) => T
  /**
   * The thread's images' own fetch (Network.images), and the signal that ends their downloads: the
   * job's cancellation and timeout-minutes (Deadlines.startSignal).
   */
  images: { fetch: typeof fetch; signal: AbortSignal }
}

/**
 * What this step does: the set-up check, the brief from its inputs, or, on a triggering event, the
 * author's request (once they are found allowed to make it) with its tracking comment.
 */
export async function decide(settings: Settings, deps: DecideDeps): Promise<Decision> {
  if (settings.task === 'check') return { work: { kind: 'setup-check' } }
  const context = settings.context
  const event = { name: context.eventName, sha: context.sha, payload: deps.payload }
  // A check needs the run's ending: a step that does not wait writes none.
  const mode = settings.wait ? settings.checkRun : 'false'
  const fromInputs = (resumed: boolean): Pick<Decision, 'work' | 'trigger' | 'check' | 'pullRequest'> => {
    const place = checkRunPlace(mode, { kind: 'inputs' }, event)
    const check = place && { place, resumed, onThread: false }
    const pullRequest = settings.answer?.findings ? inputsPullRequest(event) : undefined
    // Settings refuse `runs` on a thread trigger's event: a fan-out starts from its inputs alone.
    const work: Work = settings.runs
      ? {
          kind: 'runs',
          items: settings.runs.map(item => ({ name: item.name, brief: briefFromItem(settings, item, place) }))
        }
      : // Findings are about the lines of one commit: the prompt names the head they go on.
        {
          kind: 'run',
          brief: briefFromInputs(
            settings,
            place ?? (pullRequest && { sha: pullRequest.sha, pullRequest: pullRequest.number })
          )
        }
    return { work, trigger: 'inputs', ...(check ? { check } : {}), ...(pullRequest ? { pullRequest } : {}) }
  }
  if (settings.runs) return fromInputs(false)
  // A completed workflow run asks for a CI fix; other tasks act on their inputs.
  if (context.eventName === CI_FIX_EVENT && settings.task === 'run')
    return fromWorkflowRun(settings, mode, deps)
  const trigger = readTrigger(context.eventName, settings.triggerEvent ? deps.payload() : undefined, {
    phrase: settings.triggerPhrase,
    labelTrigger: settings.labelTrigger,
    assigneeTrigger: settings.assigneeTrigger,
    allowedBots: settings.allowedBots,
    plan: settings.plan
  })
  // Only runs come from threads: other tasks act on their inputs.
  if (trigger.kind === 'inputs' || settings.task !== 'run')
    return fromInputs(settings.agentRunId !== undefined)
  if (trigger.kind === 'skip') return noRun(trigger.reason, deps)
  return fromThread(trigger, settings, mode, event, deps)
}

function noRun(reason: string, deps: DecideDeps): Decision {
  deps.say.notice(`No agent run: ${reason}`)
  return {
    work: { kind: 'none', report: reportOf({ outcome: 'skipped', reason, trigger: '' }, deps.clock.now()) }
  }
}

/** The report of a step stopped before its run started: nothing was started. */
function stoppedBeforeRun(why: 'cancelled' | 'timeout', deps: DecideDeps): RunReport {
  const error =
    why === 'cancelled'
      ? 'The job was cancelled before the run started: nothing was started.'
      : 'timeout-minutes was reached before the run started: nothing was started.'
  return reportOf({ outcome: why, error }, deps.clock.now())
}

/** A thread's request: its author checked, the comment acknowledged, the run to resume found, its tracking comment opened. */
async function fromThread(
  trigger: ThreadTrigger,
  settings: Settings,
  mode: Parameters<typeof checkRunPlace>[0],
  event: Parameters<typeof checkRunPlace>[2],
  deps: DecideDeps
): Promise<Decision> {
  const github = await deps.github()
  let prepared: Awaited<ReturnType<typeof prepareCommentRun<TrackingComment>>>
  try {
    prepared = await prepareCommentRun(trigger, settings, {
      github,
      clock: deps.clock,
      warn: deps.say.warning,
      notice: deps.say.notice,
      openTracking: openTracking(github, deps),
      ...(settings.threadImages ? { images: threadImageDeps(settings, deps) } : {})
    })
  } catch (error) {
    const fields = { outcome: 'error' as const, error: (error as Error).message, trigger: trigger.trigger }
    return { work: { kind: 'none', report: reportOf(fields, deps.clock.now()) } }
  }
  if ('refused' in prepared) return noRun(prepared.refused, deps)
  // Cancelled (or out of time) while it read the thread: no tracking comment, no check, no run.
  const stopped = deps.stopped()
  if (stopped)
    return { work: { kind: 'none', report: stoppedBeforeRun(stopped, deps) }, trigger: trigger.trigger }
  await prepared.tracking?.open()
  const fromInputs = briefFromInputs(settings)
  const { run: images, carryOn: carriedImages } = prepared.images ?? {}
  const brief: RunBrief = {
    ...fromInputs,
    // Who asked: what the per-author daily limit counts (the workflow's actor may be another).
    origin: { ...fromInputs.origin, author: trigger.author.login, ...planAsker(prepared.plan) },
    prompt: prepared.prompt,
    // The `images` input's first (the workflow's own), then the thread's.
    images: [...fromInputs.images, ...(images?.images ?? [])],
    ...told(images),
    resumeRunId: prepared.resumeRunId,
    ...(prepared.freshPrompt !== undefined
      ? {
          carryOn: {
            prompt: prepared.freshPrompt,
            ...(carriedImages
              ? { images: [...fromInputs.images, ...carriedImages.images], ...told(carriedImages) }
              : {})
          }
        }
      : {}),
    ...(prepared.plan ? { plan: prepared.plan } : {})
  }
  // On the head commit the prompt names.
  const place = checkRunPlace(mode, { ...trigger, pullRequest: prepared.pullRequest }, event)
  const sha = prepared.pullRequest?.headSha
  const pullRequest =
    settings.answer?.findings && trigger.thread.isPullRequest && sha
      ? { pullRequest: { number: trigger.thread.number, sha } }
      : {}
  return {
    work: { kind: 'run', brief },
    trigger: trigger.trigger,
    tracking: prepared.tracking,
    check: place && {
      place,
      resumed: prepared.resumeRunId !== undefined,
      onThread: true,
      ...(prepared.plan?.kind === 'plan' ? { planning: true } : {})
    },
    ...pullRequest
  }
}

/** The thread's images as the reports tell them (toldImages), in a brief. */
function told(images: SentImages | undefined): Pick<RunBrief, 'threadImages'> {
  const report = toldImages(images)
  return report ? { threadImages: report } : {}
}

/** thread-images: the downloads' fetch, hosts and signal, and the room the `images` input took. */
function threadImageDeps(
  settings: Settings,
  deps: DecideDeps
): NonNullable<CommentDeps<TrackingComment>['images']> {
  return {
    ...deps.images,
    hosts: imageHosts(settings.context.serverUrl),
    taken: { count: settings.images.length, bytes: settings.images.reduce((sum, uri) => sum + uri.length, 0) }
  }
}

/** A plan's run records who asked for it: an approval by them is refused with allow-self-approval false. */
function planAsker(plan: PlanBrief | undefined): Record<string, string> {
  return plan?.kind === 'plan' ? { [PLAN_ASKED_BY]: plan.askedBy } : {}
}

/** Opens the tracking comment thread/ decided on, its GitHub failures the step's warnings. */
function openTracking(github: GitHubApi, deps: DecideDeps): (setup: TrackingSetup) => TrackingComment {
  return setup => new TrackingComment({ ...setup, github, clock: deps.clock, warn: deps.say.warning })
}

/** The pull request of a `pull_request*` event and its head, for a run from the inputs. */
function inputsPullRequest(event: { name: string; payload: () => unknown }): Decision['pullRequest'] {
  if (!/^pull_request/.test(event.name)) return undefined
  const head = pullRequestHead(event.payload)
  return head?.pullRequest !== undefined ? { number: head.pullRequest, sha: head.sha } : undefined
}

/**
 * A workflow run that completed: when it failed on a branch of this repository, one CI fix whose
 * prompt the action builds from the failure (its jobs and logs read from GitHub), with its tracking
 * comment on the pull request; else nothing, with a notice saying why.
 */
async function fromWorkflowRun(
  settings: Settings,
  mode: Parameters<typeof checkRunPlace>[0],
  deps: DecideDeps
): Promise<Decision> {
  const read = readWorkflowRun(deps.payload(), settings.context.repository)
  if (read.kind === 'skip') return noRun(read.reason, deps)
  const { run } = read
  const github = await deps.github()
  const prepared = await prepareCiFix(run, settings, {
    github,
    warn: deps.say.warning,
    redact: deps.redact,
    openTracking: openTracking(github, deps)
  })
  // Cancelled (or out of time) while it read the failure: no tracking comment, no run.
  const stopped = deps.stopped()
  if (stopped)
    return { work: { kind: 'none', report: stoppedBeforeRun(stopped, deps) }, trigger: CI_FIX_TRIGGER }
  await prepared.tracking?.open()
  const brief: RunBrief = { ...briefFromInputs(settings), prompt: prepared.prompt, ciFix: prepared.ciFix }
  // check-run: true writes the check on the commit that failed (auto: none, no one asked on a pull request).
  const place = mode === 'true' ? { sha: run.headSha, pullRequest: run.pullRequest } : undefined
  return {
    work: { kind: 'run', brief },
    trigger: CI_FIX_TRIGGER,
    ...(prepared.tracking ? { tracking: prepared.tracking } : {}),
    ...(place ? { check: { place, resumed: false, onThread: false } } : {})
  }
}

/** The `trigger` output of a CI fix. */
export const CI_FIX_TRIGGER = 'workflow-run'

/**
 * The brief of a workflow step that starts or resumes a run from its inputs; with its check on a pull
 * request's head (`checkPlace`), the prompt names that commit.
 */
export function briefFromInputs(settings: Settings, checkPlace?: CheckRunPlace): RunBrief {
  return {
    prompt: withCommit(settings.prompt, checkPlace),
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
    pollIntervalMs: settings.pollIntervalMs,
    stopRunOn: settings.stopRunOn
  }
}

/** The brief of one item of `runs`: its own prompt and fields, the step's inputs for the rest. */
export function briefFromItem(settings: Settings, item: RunItem, checkPlace?: CheckRunPlace): RunBrief {
  const own = item.repoId !== undefined || item.repository !== undefined
  return {
    ...briefFromInputs(settings),
    prompt: withCommit(item.prompt, checkPlace),
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
