import type { AnswerSpec } from '../answer/answer.js'
import type { WorkflowContext } from './workflow-context.js'

/** Outcomes that can fail the step (the `fail-on` input). */
export type FailCondition =
  'failure' | 'timeout' | 'paused' | 'no-pull-request' | 'rejected' | 'invalid-output' | 'limited' | 'planned'
export const FAIL_CONDITIONS: readonly FailCondition[] = [
  'failure',
  'timeout',
  'paused',
  'no-pull-request',
  'rejected',
  'invalid-output',
  'limited',
  'planned'
]

/**
 * What fails the step when `fail-on` is not written. A step that asks for no answer never ends
 * rejected or invalid-output, so its behaviour is as before them; a step that asks for one (a
 * verdict, an output-schema, findings) also fails on `paused`: a question is no answer, and a gate
 * that asked for one never goes green without it. A `fail-on` written is taken as written.
 */
export function defaultFailOn(answerAsked: boolean): Set<FailCondition> {
  const conditions: FailCondition[] = ['failure', 'timeout', 'rejected', 'invalid-output']
  return new Set(answerAsked ? [...conditions, 'paused'] : conditions)
}

/** When the step stopping asks the service to stop its run still working (the `stop-run-on` input). */
export type StopTrigger = 'cancel' | 'timeout'
export const STOP_TRIGGERS: readonly StopTrigger[] = ['cancel', 'timeout']

/** The daily limits on new runs (`daily-run-limit`, `daily-run-limit-per-author`); 0: no limit. */
export interface DailyLimits {
  /** Runs started from this repository in the last 24 hours. */
  perRepository: number
  /** Of those, runs started by this author. */
  perAuthor: number
}

/**
 * The largest daily limit (and max-fix-attempts): half of the organization's runs the action reads
 * of a day at most (org/daily-limits.ts, 20 pages of 100); a day with more runs starts nothing.
 */
export const MAX_DAILY_RUN_LIMIT = 1_000

/** What the step does (the `task` input). */
export type Task = 'run' | 'check' | 'setup-commands'
export const TASKS: readonly Task[] = ['run', 'check', 'setup-commands']

/** One item of the `runs` input: a run of a fan-out, named (by the user, or by its position). */
export interface RunItem {
  name: string
  prompt: string
  repoId?: number
  repository?: string
  model?: string
  agentType?: string
  metadata?: Record<string, unknown>
}

/**
 * Which runs get a check run on their commit (the `check-run` input): `auto` those asked for on a
 * pull request, `true` also those from the inputs, `false` none.
 */
export type CheckRunMode = 'auto' | 'true' | 'false'
export const CHECK_RUN_MODES: readonly CheckRunMode[] = ['auto', 'true', 'false']

/** The action's inputs, validated and typed: everything past the edge works from this. */
export interface Settings {
  task: Task
  apiToken: string
  /** Undefined: discovered from the token's organizations. */
  orgId?: number
  /** owner/name to act on when repoId is not given: the `repository` input, else the workflow's. */
  repository: string
  /** True when `repository` was named by the input rather than taken from the workflow. */
  repositoryNamed: boolean
  baseUrl: string
  prompt: string
  repoId?: number
  agentRunId?: number
  /** Data URIs, files already encoded. */
  images: string[]
  model?: string
  agentType?: string
  metadata: Record<string, unknown>
  wait: boolean
  timeoutMs: number
  pollIntervalMs: number
  failOn: ReadonlySet<FailCondition>
  /** When the step stops while following its run, whether to ask the service to stop the run too. */
  stopRunOn: ReadonlySet<StopTrigger>
  /** Checked before a new run is created (not before a resume). */
  dailyLimits: DailyLimits
  /**
   * A CI fix (workflow_run): at most this many CI-fix runs for one branch in 24 hours, counted as
   * the daily limits are; at least 1, so that a fix failing CI again cannot start fixes forever.
   */
  maxFixAttempts: number
  mirrorToConsole: boolean
  mirrorToSummary: boolean
  triggerPhrase: string
  /** A label name that starts (or resumes) a run on the thread it is added to; '' for none. */
  labelTrigger: string
  /**
   * The event asks for a run (a `/codegen` comment, an issue, a label or an assignment read as a
   * request, or a workflow_run to fix the CI run that failed): its prompt comes from the thread or
   * the failure, the `prompt` input adding to it. Decided once, here.
   */
  triggerEvent: boolean
  /** A login: an issue assigned to it starts (or resumes) a run; '' for none. */
  assigneeTrigger: string
  /** Bot logins (lower case, without `[bot]`) allowed to trigger; `'*'` for every bot. */
  allowedBots: ReadonlySet<string> | '*'
  /** `plan: true`: every thread trigger but an approval asks for a plan only (a `/codegen plan` comment does anyway). */
  plan: boolean
  /** Who alone may approve a plan; undefined: anyone who may trigger a run. */
  approvers?: Approvers
  /** Whether the person who asked for a plan may approve it. */
  allowSelfApproval: boolean
  githubToken: string
  comment: boolean
  /**
   * What the agent's final answer must hold (`verdict`, `findings`, `output-schema`, `output-retries`), the
   * schema compiled; undefined when nothing is asked, and the prompt is left as it is.
   */
  answer?: AnswerSpec
  /**
   * `review-comments`: the findings also go to one review of the pull request (inline where the
   * diff has their lines); nothing without a pull request.
   */
  reviewComments: boolean
  /** The `runs` input's items, in order: a fan-out instead of one run; undefined when empty. */
  runs?: RunItem[]
  /** How many of `runs` work at once. */
  maxParallel: number
  checkRun: CheckRunMode
  /** The check run's name, what branch protection requires. */
  checkName: string
  context: WorkflowContext
}

/** `approvers`: logins (lower case) and `org/team` slugs whose members may approve (read through GitHub). */
export interface Approvers {
  logins: ReadonlySet<string>
  teams: Array<{ org: string; slug: string }>
}

/** Defaults of the inputs, the same as action.yml's (a test keeps the two in step). */
export const INPUT_DEFAULTS = {
  task: 'run',
  'api-token': '',
  'org-id': '',
  prompt: '',
  'repo-id': '',
  repository: '',
  'agent-run-id': '',
  images: '',
  model: '',
  'agent-type': '',
  metadata: '',
  'base-url': 'https://api.codegen.com',
  wait: 'true',
  'timeout-minutes': '30',
  'poll-interval': '5',
  // Empty: defaultFailOn, which depends on whether an answer is asked (the runner fills in a default, so it must be empty to tell it from a fail-on written).
  'fail-on': '',
  'stop-run-on': 'cancel',
  'daily-run-limit': '0',
  'daily-run-limit-per-author': '0',
  'max-fix-attempts': '3',
  'mirror-logs': 'console,summary',
  'trigger-phrase': '/codegen',
  'label-trigger': '',
  'assignee-trigger': '',
  'allowed-bots': '',
  plan: 'false',
  approvers: '',
  'allow-self-approval': 'true',
  'github-token': '',
  comment: 'true',
  verdict: 'false',
  'output-schema': '',
  'output-retries': '1',
  findings: 'false',
  'review-comments': 'false',
  runs: '',
  'max-parallel': '10',
  'check-run': 'auto',
  'check-name': 'Codegen'
} as const

export type InputName = keyof typeof INPUT_DEFAULTS

/** poll-interval's default, in ms: for what reads the interval without Settings at hand. */
export const DEFAULT_POLL_INTERVAL_MS = Number(INPUT_DEFAULTS['poll-interval']) * 1000

/** Raised for bad inputs before any request is sent; its message lists every problem found. */
export class InputError extends Error {
  constructor(readonly problems: string[]) {
    super(
      problems.length === 1
        ? `Invalid input: ${problems[0]}`
        : `Invalid inputs:\n${problems.map(problem => `- ${problem}`).join('\n')}`
    )
    this.name = 'InputError'
  }
}
