import type { Clock } from '../clock.js'
import { paragraphs } from '../text.js'
import { reportOf, type PlanBrief, type ShownImages } from '../model.js'
import type { Settings } from '../settings/settings.js'
import type { Author, CommentSummary, GitHubApi, Permission, PullRequestInfo } from '../github/api.js'
import { workflowRunUrl } from '../settings/workflow-context.js'
import { approverRefusal, pinnedPlan, planRevisers, whoMayApprove } from './approval.js'
import { planOnlySection, revisionSection } from './plan-prompt.js'
import { buildCommentPrompt } from './thread-prompt.js'
import {
  byCreation,
  findTrackingComment,
  markerSignature,
  verifyMarker,
  type FoundTracking,
  type MarkerKey,
  type OpenedTracking,
  type ReviewThread,
  type TrackingSetup
} from './tracking.js'
import { isBot, type ThreadTrigger } from './trigger.js'
import {
  sentImages,
  shownImages,
  shownTexts,
  threadImages,
  type ImagesDeps,
  type SentImages
} from './comment-images.js'

/**
 * Who may trigger a run: the commenter could push to the repository anyway. A custom role's name
 * says nothing, so the legacy permission (write for a role based on write or maintain) decides then.
 */
const TRIGGERING_ROLES = new Set(['admin', 'maintain', 'write'])
const TRIGGERING_PERMISSIONS = new Set(['admin', 'write'])
const ALLOWED_BOT: Permission = { role: 'allowed-bots', permission: 'write' }

export interface CommentRun<T> {
  prompt: string
  /** Plan, then approve: a plan asked for or revised, or an approval (its plan read from its run before the start). */
  plan?: PlanBrief
  /** The run of the thread's tracking comment, unless `/codegen new`. */
  resumeRunId?: number
  /** With resumeRunId: a new run's prompt (the thread quoted), should the service refuse the resume. */
  freshPrompt?: string
  tracking?: T
  /** The pull request's branches and head commit as the prompt names them (its check run goes there). */
  pullRequest?: PullRequestInfo
  /** thread-images: the thread's images for the run, and for the fresh run that would carry it on. */
  images?: { run: SentImages; carryOn?: SentImages }
}

export interface CommentDeps<T extends OpenedTracking> {
  github: GitHubApi
  clock: Clock
  warn: (message: string) => void
  notice: (message: string) => void
  /** Opens the thread's tracking comment (report/tracking-comment.ts's, from decide.ts). */
  openTracking: (setup: TrackingSetup) => T
  /** thread-images: how the thread's images are downloaded, after the `images` input's; undefined: none. */
  images?: ImagesDeps['images']
}

/**
 * Checks who asked, acknowledges the comment, and decides between a new run and a resume. Returns
 * why not when the author may not trigger runs.
 */
export async function prepareCommentRun<T extends OpenedTracking>(
  trigger: ThreadTrigger,
  settings: Settings,
  deps: CommentDeps<T>
): Promise<CommentRun<T> | { refused: string }> {
  const refusal = await authorize(trigger, settings, deps.github)
  if (refusal) return { refused: refusal }
  await acknowledge(trigger, deps)
  const key: MarkerKey = {
    secret: settings.apiToken,
    repository: settings.context.repository,
    issueNumber: trigger.thread.number
  }
  const { found, comments } = await findTracking(trigger, settings, deps, key)
  if (trigger.ask === 'approve') return approvalRun(trigger, settings, deps, key, { found, comments })
  // A plan request revises the thread's plan (its run resumed); else (or `new`) a plan starts a run of its own.
  const resume = trigger.fresh
    ? undefined
    : trigger.ask === 'plan'
      ? found?.plan
        ? found
        : undefined
      : found
  const gathered = await threadImages(trigger, deps)
  const shown = gathered && shownTexts(trigger, gathered.sources, gathered.found)
  const prompts = await buildPrompts(trigger, settings, deps, resume !== undefined, shown)
  // The run's comment is edited where it is; a resume asked elsewhere (another review thread, the
  // pull request's conversation) gets a comment of its own there.
  const samePlace = resume !== undefined && resume.reviewThread === trigger.code?.threadId
  const images = gathered && sentImages(gathered.found, resume !== undefined)
  const tracking = settings.comment
    ? trackingComment(trigger, settings, deps, key, {
        commentId: samePlace ? resume.id : undefined,
        resumed: resume !== undefined,
        planning: trigger.ask === 'plan',
        images: shownImages(images)
      })
    : undefined
  const run = { ...prompts, resumeRunId: resume?.runId, tracking, ...(images ? { images } : {}) }
  return trigger.ask === 'plan' ? planRequest(run, trigger, settings.triggerPhrase, resume) : run
}

/**
 * A plan request's prompts and brief: a plan only; a revision (the thread's plan shown, its run
 * resumed) asks for the whole plan again with what to change, its fresh run should the service
 * refuse the resume asks for a plan (plan-run.ts adds the plan to revise, read from its run).
 */
function planRequest<T>(
  run: CommentRun<T>,
  trigger: ThreadTrigger,
  phrase: string,
  revised: FoundTracking['found']
): CommentRun<T> {
  const askedBy = trigger.author.login
  const shown = revised?.plan && revised.plan !== 'working' ? revised.plan : undefined
  const revises = shown && { text: '', digest: shown, askedBy: '', runId: revised?.runId ?? 0 }
  const planOnly = planOnlySection(phrase)
  return {
    ...run,
    prompt: paragraphs(run.prompt, revised ? revisionSection(trigger.instruction, phrase) : planOnly),
    ...(run.freshPrompt !== undefined ? { freshPrompt: paragraphs(run.freshPrompt, planOnly) } : {}),
    plan: { kind: 'plan', askedBy, ...(revises ? { revises } : {}) }
  }
}

/**
 * `/codegen approve [extra]`: the plan the thread's tracking comment showed when it was written, by
 * someone who may approve, carried out by resuming the plan's run (plan-run.ts reads the plan whole
 * and writes the prompts), followed in a tracking comment of its own: the plan's stays as it was
 * read, and a second approval finds no plan awaiting. Else nothing starts, and a reply says why.
 */
async function approvalRun<T extends OpenedTracking>(
  trigger: ThreadTrigger,
  settings: Settings,
  deps: CommentDeps<T>,
  key: MarkerKey,
  { found, comments }: { found: FoundTracking['found']; comments: CommentSummary[] }
): Promise<CommentRun<T> | { refused: string }> {
  const pinned = pinnedPlan(found, trigger.writtenAt, settings.triggerPhrase)
  if ('refused' in pinned) return refuseApproval(trigger, settings, deps, key, pinned.refused)
  const notApprover = await approverRefusal(trigger.author.login, settings, deps.github)
  if (notApprover) return refuseApproval(trigger, settings, deps, key, notApprover)
  const reviser = settings.allowSelfApproval
    ? undefined
    : await revisionRefusal(trigger, settings, deps.github, { found, comments })
  if (reviser) return refuseApproval(trigger, settings, deps, key, reviser)
  // The thread as a fresh run has it, should the service refuse the resume; the resume's prompt is the plan's alone.
  const prompts = await buildPrompts({ ...trigger, instruction: '' }, settings, deps, false)
  const tracking = settings.comment
    ? trackingComment(trigger, settings, deps, key, { commentId: undefined, resumed: true })
    : undefined
  const approvedBy = trigger.author.login
  const plan: PlanBrief = {
    kind: 'approve',
    plan: { text: '', digest: pinned.digest, askedBy: '', runId: pinned.runId },
    approvedBy,
    extra: trigger.instruction,
    ...(settings.allowSelfApproval ? {} : { askerRefused: whoMayApprove(settings) })
  }
  return { ...prompts, prompt: '', freshPrompt: prompts.prompt, resumeRunId: pinned.runId, tracking, plan }
}

/**
 * allow-self-approval false: why the approver may not approve as one who asked for a revision of the
 * plan, in a comment or, on a pull request, in a review's text (a review asks as a comment does).
 * Reviews GitHub will not list refuse the approval: who revised the plan is then unknown.
 */
async function revisionRefusal(
  trigger: ThreadTrigger,
  settings: Settings,
  github: GitHubApi,
  { found, comments }: { found: FoundTracking['found']; comments: CommentSummary[] }
): Promise<string | undefined> {
  let asked = comments
  if (trigger.thread.isPullRequest) {
    try {
      const reviews = await github.listReviews(trigger.thread.number)
      asked = [
        ...comments,
        ...reviews.map(({ submittedAt, ...review }) => ({ ...review, createdAt: submittedAt }))
      ]
    } catch (error) {
      return `Could not read the pull request's reviews to tell who asked for a revision of this plan (${(error as Error).message}), and allow-self-approval is false: ${whoMayApprove(settings)}`
    }
  }
  const rules = { phrase: settings.triggerPhrase, plan: settings.plan }
  if (!planRevisers(asked, found, trigger.writtenAt, rules).has(trigger.author.login.toLowerCase()))
    return undefined
  return `@${trigger.author.login} asked for a revision of this plan, and allow-self-approval is false: ${whoMayApprove(settings)}`
}

/** A refused approval: nothing starts, and a reply (a comment of its own, no run in it) says why. */
async function refuseApproval(
  trigger: ThreadTrigger,
  settings: Settings,
  deps: CommentDeps<OpenedTracking>,
  key: MarkerKey,
  reason: string
): Promise<{ refused: string }> {
  if (settings.comment) {
    const reply = trackingComment(trigger, settings, deps, key, { commentId: undefined, resumed: false })
    await reply.finish(reportOf({ outcome: 'skipped', reason }, deps.clock.now()))
  }
  return { refused: reason }
}

/** Why the author may not trigger a run, or undefined when they may. */
async function authorize(
  trigger: ThreadTrigger,
  settings: Settings,
  github: GitHubApi
): Promise<string | undefined> {
  const login = trigger.author.login
  // A bot that allowed-bots names is let in by the workflow's author: an app has no collaborator
  // permission to read.
  const permission = trigger.allowedBot
    ? ALLOWED_BOT
    : await github.permission(login).catch((error: Error) => {
        throw new Error(
          `Could not read @${login}'s permission on ${settings.context.repository} (${error.message}); the run is not started. The workflow needs the default token permissions, or a github-token that can read collaborators.`
        )
      })
  if (TRIGGERING_ROLES.has(permission.role) || TRIGGERING_PERMISSIONS.has(permission.permission))
    return undefined
  return `@${login} has ${permission.role} permission on ${settings.context.repository}; write, maintain or admin is needed to trigger a run.`
}

/** 👀 on the request (or on the thread when the event has no comment): a failure only warns. */
async function acknowledge(trigger: ThreadTrigger, deps: CommentDeps<OpenedTracking>): Promise<void> {
  const acknowledged =
    trigger.commentId === undefined
      ? { issueNumber: trigger.thread.number }
      : trigger.code
        ? { reviewCommentId: trigger.commentId }
        : { commentId: trigger.commentId }
  await deps.github
    .react(acknowledged, 'eyes')
    .catch((error: Error) => deps.warn(`Could not react to the comment: ${error.message}`))
}

function trackingComment<T extends OpenedTracking>(
  trigger: ThreadTrigger,
  settings: Settings,
  deps: CommentDeps<T>,
  key: MarkerKey,
  {
    commentId,
    resumed,
    planning,
    images
  }: { commentId: number | undefined; resumed: boolean; planning?: boolean; images?: ShownImages }
): T {
  // A request on the code is answered in its review thread; any other on the issue or pull request.
  const place: number | ReviewThread = trigger.code
    ? { pullNumber: trigger.thread.number, threadId: trigger.code.threadId }
    : trigger.thread.number
  const kind = trigger.code ? 'review' : 'issue'
  return deps.openTracking({
    place,
    commentId,
    state: {
      requestedBy: trigger.author,
      instruction: trigger.instruction,
      workflowRunUrl: workflowRunUrl(settings.context),
      repositoryUrl: `${settings.context.serverUrl}/${settings.context.repository}`,
      sign: (commentId, runId, plan) => markerSignature(key, commentId, runId, kind, plan),
      entriesSeen: 0,
      resumed,
      triggerPhrase: settings.triggerPhrase,
      ...(planning ? { planning: true } : {}),
      ...(images?.run || images?.carryOn ? { threadImages: images } : {})
    }
  })
}

/**
 * The thread's latest tracking comment, whose run a follow-up resumes (unless `/codegen new`) and
 * whose plan a revision or an approval names. Only markers
 * on comments of the action's own identity (or, when a GITHUB_TOKEN cannot tell it, of a bot) that
 * are signed for this thread with the API token are followed.
 */
async function findTracking(
  trigger: ThreadTrigger,
  settings: Settings,
  deps: CommentDeps<OpenedTracking>,
  key: MarkerKey
): Promise<{ found: FoundTracking['found']; comments: CommentSummary[] }> {
  const { github } = deps
  const identity = await github.identity()
  const trusted = (author: Author): boolean => (identity ? author.login === identity : isBot(author))
  let comments: CommentSummary[]
  try {
    comments = await threadComments(github, trigger.thread)
  } catch (error) {
    // Without the thread's comments the run to resume is unknown: starting a fresh one could fork it.
    const message = `Could not read the comments of #${trigger.thread.number} to find its tracking comment (${(error as Error).message}); the run is not started. The github-token needs permission to read the repository's issues and pull requests.`
    if (settings.comment) {
      const tracking = trackingComment(trigger, settings, deps, key, { commentId: undefined, resumed: false })
      await tracking.finish(reportOf({ outcome: 'error', error: message }, deps.clock.now()))
    }
    throw new Error(message, { cause: error })
  }
  const { found, ignored } = findTrackingComment(comments, trusted, (marker, commentId, comment) =>
    verifyMarker(key, commentId, marker, comment.reviewThread === undefined ? 'issue' : 'review')
  )
  const resume = found && !trigger.fresh ? found : undefined
  if (!trigger.fresh && trigger.ask === undefined && ignored.length > 0) {
    const which = ignored.slice(0, 3).map(i => `${i.id} (run ${i.runId})`)
    if (ignored.length > 3) which.push(`${ignored.length - 3} more`)
    deps.notice(
      `Not following the run marker of comment ${which.join(', ')}: its signature does not verify for this thread and API token, so this workflow did not write it. ${resume ? `Resuming run ${resume.runId} of an earlier tracking comment.` : 'Starting a fresh run.'}`
    )
  }
  return { found, comments }
}

/** A pull request's run may be tracked on the pull request or in a review thread of its code. */
async function threadComments(github: GitHubApi, thread: ThreadTrigger['thread']): Promise<CommentSummary[]> {
  const comments = await github.listComments(thread.number)
  if (!thread.isPullRequest) return comments
  return byCreation([...comments, ...(await github.listReviewComments(thread.number))])
}

/** The run's prompt; for a follow-up, also a new run's, should the service refuse the resume. */
async function buildPrompts(
  trigger: ThreadTrigger,
  settings: Settings,
  deps: CommentDeps<OpenedTracking>,
  followUp: boolean,
  shown?: { instruction: string; body: string }
): Promise<Pick<CommentRun<unknown>, 'prompt' | 'freshPrompt' | 'pullRequest'>> {
  // Events on a pull request carry its branches and head; a comment on one (issue_comment) does not.
  const checked = settings.checkRun !== 'false' && settings.wait
  const branches =
    (trigger.pullRequest?.headSha ? trigger.pullRequest : undefined) ??
    (trigger.thread.isPullRequest
      ? await deps.github.pullRequestBranches(trigger.thread.number).catch((error: Error) => {
          deps.warn(
            `Could not read the pull request's branches: ${error.message}${checked ? ' (without its head commit, no check run is written)' : ''}`
          )
          return trigger.pullRequest
        })
      : undefined)
  const input = {
    standing: settings.prompt,
    instruction: shown ? shown.instruction : trigger.instruction,
    thread: shown ? { ...trigger.thread, body: shown.body } : trigger.thread,
    shown: shown !== undefined,
    author: trigger.author,
    repository: settings.context.repository,
    branches,
    followUp,
    trigger: trigger.trigger,
    label: trigger.label,
    assignee: trigger.assignee,
    reviewState: trigger.reviewState,
    code: trigger.code,
    requestUrl: trigger.commentUrl
  }
  const prompt = buildCommentPrompt(input)
  const pullRequest = branches ? { pullRequest: branches } : {}
  return followUp
    ? { prompt, freshPrompt: buildCommentPrompt({ ...input, followUp: false }), ...pullRequest }
    : { prompt, ...pullRequest }
}
