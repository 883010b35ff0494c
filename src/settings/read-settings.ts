import { CI_FIX_EVENT, type Env, type WorkflowContext } from './workflow-context.js'
import { readAnswerInputs } from './answer-inputs.js'
import { readImages } from './images.js'
import { words } from './words.js'
import { readRunLimits } from './run-limits.js'
import { readPlans, readReporting, readThreads } from './thread-inputs.js'
import { boolean, optionalInteger, positiveInteger } from './values.js'
import { readMaxParallel, readRuns } from './runs.js'
import {
  defaultFailOn,
  FAIL_CONDITIONS,
  INPUT_DEFAULTS,
  InputError,
  TASKS,
  type FailCondition,
  type InputName,
  type Settings,
  type Task
} from './settings.js'

/** Reads one input as the runner gives it ('' when unset). */
export type InputReader = (name: InputName) => string

const AGENT_TYPES = ['codegen', 'claude_code']

/**
 * Whether the event is read as a request for a run, whose prompt comes from the comment, issue or
 * pull request rather than from the `prompt` input (thread/trigger.ts's isTriggerEvent, handed in:
 * the events are listed once, with their readers).
 */
export type IsTriggerEvent = (eventName: string, labelTrigger: string) => boolean

/**
 * The input reader with the defaults of action.yml, and the one list of problems. Every reader of
 * settings/ reports the same way: it pushes each problem it finds into `problems`, naming the input
 * and what was expected, and returns its value (a stand-in when the input is bad), so that one
 * failed step lists everything to fix, in the order read here.
 */
interface Reading {
  input: (name: InputName) => string
  /** An input as given, '' when unset (no default). */
  raw: InputReader
  problems: string[]
}

/**
 * Builds the validated settings from the inputs, the environment and the workflow context. Every
 * problem is collected, so one failed run tells the author everything to fix; nothing is sent first.
 */
export function readSettings(
  readInput: InputReader,
  env: Env,
  context: WorkflowContext,
  isTriggerEvent: IsTriggerEvent
): Settings {
  const problems: string[] = []
  const input = (name: InputName): string => readInput(name).trim() || INPUT_DEFAULTS[name]
  const reading: Reading = { input, raw: readInput, problems }
  const labelTrigger = input('label-trigger')
  const triggerEvent = isTriggerEvent(context.eventName, labelTrigger)

  const service = readService(reading, env)
  const work = readWork(reading, triggerEvent, context)
  const settings: Settings = {
    ...service,
    ...work,
    ...readFollowing(reading, work.answer !== undefined),
    ...readRunLimits(input, problems),
    labelTrigger,
    triggerEvent,
    ...readThreads(reading),
    ...readPlans(reading, { eventName: context.eventName, trigger: triggerEvent }),
    ...readReporting(reading),
    context
  }
  checkTokenNeeded(settings, problems)
  // The tracking comment shows the plan and holds the digest an approval is pinned to.
  if (settings.plan && !settings.comment)
    problems.push(
      'plan: true needs comment: true (the tracking comment shows the plan, and an approval is pinned to it); set comment to true, or plan to false'
    )
  // The plan is shown, and its digest written, once its run ends: a step that does not wait shows none.
  if (settings.plan && !settings.wait)
    problems.push(
      'plan: true needs wait: true (the plan is shown, to be approved, once its run ends, which a step with wait: false never sees); set wait to true, or plan to false'
    )
  checkFindingsInputs(settings, /^true$/i.test(input('findings')), problems)
  // A check is concluded with the run's ending, which a step that does not wait never sees.
  if (settings.task !== 'check' && settings.checkRun === 'true' && !settings.wait)
    problems.push(
      'check-run: true needs wait: true (a check run is concluded with the run’s ending, which a step with wait: false never sees); set wait to true, or check-run to auto or false'
    )
  if (problems.length > 0) throw new InputError(problems)
  return settings
}

/** The service: who the step is to it (the token, the organization) and where it is. */
function readService({ input, problems }: Reading, env: Env) {
  const apiToken = input('api-token') || env.CODEGEN_API_TOKEN?.trim() || ''
  if (!apiToken) problems.push('api-token: required; pass a Codegen API token or set CODEGEN_API_TOKEN')
  // Empty: the token's only organization is used (looked up before anything is created).
  const orgText = input('org-id') || env.CODEGEN_ORG_ID?.trim() || ''
  const orgId = orgText ? positiveInteger('org-id', orgText, problems) : undefined
  return { apiToken, orgId, baseUrl: baseUrl(input('base-url'), problems) }
}

/**
 * What the step does and what to run: the task, the prompt or the run to resume, or many runs and
 * how many at once; where; with what; what answer to ask.
 */
function readWork(reading: Reading, triggerEvent: boolean, context: WorkflowContext) {
  const { input, raw, problems } = reading
  const taskText = input('task').toLowerCase()
  const task = taskText as Task
  if (!TASKS.includes(task)) problems.push(`task: expected one of ${TASKS.join(', ')}, got "${taskText}"`)
  const prompt = raw('prompt').trim()
  const agentRunId = optionalInteger('agent-run-id', input('agent-run-id'), problems)
  const repoId = optionalInteger('repo-id', input('repo-id'), problems)
  const repositoryInput = input('repository')
  if (repositoryInput && !REPOSITORY.test(repositoryInput)) {
    problems.push(`repository: expected owner/name such as octo-org/octo-repo, got "${repositoryInput}"`)
  }
  if (task === 'setup-commands' && agentRunId !== undefined) {
    problems.push('agent-run-id: not used with task setup-commands, which starts its own run; remove it')
  }
  if (task === 'run' && agentRunId !== undefined && context.eventName === CI_FIX_EVENT) {
    problems.push(
      `agent-run-id: not used on ${CI_FIX_EVENT} events, where each CI fix starts a new run; remove it`
    )
  }
  const runsInput = raw('runs').trim()
  const runs = readRuns(runsInput, context.workspace, problems)
  checkRunsAlone(runsInput, { task, prompt, agentRunId, triggerEvent, context }, problems)
  const maxParallel = readMaxParallel(input('max-parallel'), problems)
  if (task === 'run' && !prompt && !triggerEvent && !runsInput) {
    problems.push(
      agentRunId === undefined
        ? 'prompt: required; the instruction of the new agent run'
        : 'prompt: required; the follow-up instruction that resumes the agent run'
    )
  }
  return {
    task,
    prompt,
    agentRunId,
    repoId,
    repository: repositoryInput || context.repository,
    repositoryNamed: !!repositoryInput,
    ...(runs ? { runs } : {}),
    maxParallel,
    ...readRunExtras(reading, task, context)
  }
}

/** What a run is given besides its prompt: the agent, model, metadata, images, and the answer asked. */
function readRunExtras({ input, raw, problems }: Reading, task: Task, context: WorkflowContext) {
  const agentType = input('agent-type') || undefined
  if (agentType && !AGENT_TYPES.includes(agentType)) {
    problems.push(`agent-type: expected one of ${AGENT_TYPES.join(', ')}, got "${agentType}"`)
  }
  return {
    agentType,
    model: input('model') || undefined,
    metadata: metadataObject(input('metadata'), problems),
    images: readImages(raw('images'), context.workspace, problems),
    answer: readAnswerInputs(
      {
        verdict: boolean('verdict', input('verdict'), problems),
        findings: boolean('findings', input('findings'), problems),
        outputSchema: raw('output-schema').trim(),
        outputRetries: input('output-retries')
      },
      task,
      context.workspace,
      problems
    )
  }
}

/**
 * How the run is followed and when the step fails: waiting, its limits, the log's mirrors. fail-on
 * left empty is the default, which fails a paused run too when an answer is asked (`answerAsked`).
 */
function readFollowing({ input, problems }: Reading, answerAsked: boolean) {
  const failOnText = input('fail-on')
  const failOn = failOnText
    ? (words('fail-on', failOnText, [...FAIL_CONDITIONS], problems) as Set<FailCondition>)
    : defaultFailOn(answerAsked)
  const mirror = words('mirror-logs', input('mirror-logs'), ['console', 'summary'], problems)
  return {
    failOn,
    mirrorToConsole: mirror.has('console'),
    mirrorToSummary: mirror.has('summary'),
    wait: boolean('wait', input('wait'), problems),
    timeoutMs:
      positiveNumber('timeout-minutes', input('timeout-minutes'), problems, MAX_TIMEOUT_MINUTES) * 60_000,
    pollIntervalMs:
      positiveNumber('poll-interval', input('poll-interval'), problems, MAX_POLL_INTERVAL_SECONDS) * 1000
  }
}

/** The GitHub token is needed where GitHub is written to: a thread's request, a check run. */
function checkTokenNeeded(settings: Settings, problems: string[]): void {
  const { githubToken, task, context, triggerEvent } = settings
  if (githubToken) return
  if (task === 'run' && triggerEvent)
    problems.push(
      `github-token: required on ${context.eventName} events (${context.eventName === CI_FIX_EVENT ? 'the failed jobs and their logs, the tracking comment' : 'permission check, reaction, tracking comment'}); leave it unset for the job's GITHUB_TOKEN`
    )
  else if (task !== 'check' && settings.checkRun === 'true' && !triggerEvent)
    problems.push(
      "github-token: required with check-run: true (the check run is written with it); leave it unset for the job's GITHUB_TOKEN, or set check-run to auto"
    )
}

/**
 * findings go with one run (the check, the review and the outputs are one run's), and a review needs
 * the findings it posts. A step without a pull request posts no review: not an error.
 */
function checkFindingsInputs(settings: Settings, findings: boolean, problems: string[]): void {
  const { task, runs, reviewComments } = settings
  if (findings && runs && task === 'run')
    problems.push(
      'findings: not used with runs (a step shows one run’s findings on the lines they are about); ask for them in a step of their own'
    )
  if (!reviewComments) return
  if (task !== 'run')
    problems.push(`review-comments: not used with task ${task}, which starts no review; remove it`)
  else if (!findings)
    problems.push(
      'review-comments: needs findings: true (the review is made of the findings); set it, or remove review-comments'
    )
}

/** `runs` starts new runs from the inputs alone: what else would name a run is an error naming `runs`. */
function checkRunsAlone(
  runsInput: string,
  given: { task: Task; prompt: string; agentRunId?: number; triggerEvent: boolean; context: WorkflowContext },
  problems: string[]
): void {
  if (!runsInput) return
  if (given.task !== 'run') problems.push(`runs: only with task run, not ${given.task}`)
  if (given.prompt)
    problems.push('runs: replaces prompt (each item has its own); give one or the other, not both')
  if (given.agentRunId !== undefined)
    problems.push(
      'runs: starts new runs and cannot be given with agent-run-id; resume a run in a step of its own'
    )
  if (given.triggerEvent)
    problems.push(
      `runs: not used on ${given.context.eventName} events, where ${given.context.eventName === CI_FIX_EVENT ? 'the failed CI run asks for one fix' : 'the thread asks for one run'}; start a fan-out from another event (push, workflow_dispatch, schedule)`
    )
}

/** GitHub's owner and repository name characters. */
const REPOSITORY = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/

/**
 * Node's timers hold at most 2^31 - 1 ms (about 24.8 days); a longer one fires at once. The
 * documented maxima stay below it: 35,000 minutes (about 24.3 days), and a day between polls.
 */
export const MAX_TIMEOUT_MINUTES = 35_000
export const MAX_POLL_INTERVAL_SECONDS = 86_400

function positiveNumber(name: string, text: string, problems: string[], max: number): number {
  const value = Number(text)
  if (!/^\d*\.?\d+$/.test(text) || !Number.isFinite(value) || value <= 0) {
    problems.push(`${name}: expected a positive number (fractions allowed), got "${text}"`)
    return 1
  }
  if (value > max) {
    problems.push(`${name}: expected at most ${max} (what the runner's timers can hold), got "${text}"`)
    return 1
  }
  return value
}

function metadataObject(text: string, problems: string[]): Record<string, unknown> {
  if (!text) return {}
  try {
    const value: unknown = JSON.parse(text)
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>
  } catch {
    // reported below
  }
  problems.push('metadata: expected a JSON object, such as {"team": "platform"}')
  return {}
}

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/

/** https only, but for loopback addresses: the token must not travel in clear text. */
function baseUrl(text: string, problems: string[]): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    problems.push(`base-url: expected an https URL such as https://api.codegen.com, got "${text}"`)
    return text
  }
  const loopback = LOOPBACK_HOSTS.test(url.hostname)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    problems.push(
      `base-url: expected an https URL (plain http only for loopback addresses, since the token would travel in clear text), got "${text}"`
    )
  } else if (url.username || url.password || url.search || url.hash) {
    problems.push('base-url: expected a plain address without credentials, query or fragment')
  }
  return url.origin + url.pathname.replace(/\/+$/, '')
}
