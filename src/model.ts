import type { AnswerReport } from './answer/answer.js'
import type { AgentRun, LogEntry } from './api/types.js'
import type { StopTrigger } from './settings/settings.js'

/**
 * The plain data every part of the path shares: what to run (RunBrief), what happens as it runs
 * (RunEvents), and what became of it (RunReport). No behaviour but the report builders.
 */

/**
 * What became of the step: the run's ending (success, failure, paused), what its answer said when
 * one was asked (rejected: the verdict is fail; invalid-output: no valid answer, repairs included),
 * or the step's own (timeout, started when not waiting, skipped when not triggered, cancelled,
 * error when the service could not be used).
 */
export type Outcome =
  | 'success'
  | 'failure'
  | 'timeout'
  | 'paused'
  | 'rejected'
  | 'invalid-output'
  | 'started'
  | 'skipped'
  | 'cancelled'
  | 'error'
  /** A limit on new runs (daily-run-limit, daily-run-limit-per-author, max-fix-attempts) was reached: nothing was started. */
  | 'limited'
  /** A run asked for a plan only (plan, then approve) completed with one: the plan awaits approval. */
  | 'planned'

/** The input whose limit kept a run from starting (outcome limited). */
export type LimitName = 'daily-run-limit' | 'daily-run-limit-per-author' | 'max-fix-attempts'

/** A CI fix (a workflow_run's failure): what max-fix-attempts counts, and what its run's metadata records. */
export interface CiFixBrief {
  /** The head branch the fix is pushed to: CI-fix runs are counted by it. */
  branch: string
  /** max-fix-attempts: CI-fix runs for the branch in 24 hours, at most. */
  maxAttempts: number
  /** Recorded under metadata.github_action.ci_fix (the branch, the commit, the failed workflow run), with the attempt. */
  record: Record<string, string | number>
}

/** A CI fix's tracking: the failed workflow run it fixes, and which attempt for its commit it is. */
export interface CiFixState {
  /** The workflow's name ('' when the event gave none). */
  workflow: string
  runNumber: number
  /** The failed workflow run's page ('' when unknown). */
  url: string
  branch: string
  sha: string
  maxAttempts: number
  /** Known once the run is admitted, max-fix-attempts counted. */
  attempt?: number
}

/**
 * The run's brief: what to run and how to follow it (prompt, images, repository, metadata, wait…),
 * decided at the edge from the inputs, an item of `runs` or a thread trigger: plain data.
 */
export interface RunBrief {
  prompt: string
  images: string[]
  /** Resume this run instead of creating one. */
  resumeRunId?: number
  /** The organization to act on; undefined: the token's only one. */
  orgId?: number
  repoId?: number
  /** owner/name to look up among the organization's repositories when repoId is not given. */
  repository?: string
  /** The repository was named by the user: not finding it fails rather than going on without one. */
  repositoryRequired?: boolean
  /** Start the run that generates the repository's setup commands instead of creating one. */
  setupCommands?: boolean
  model?: string
  agentType?: string
  metadata: Record<string, unknown>
  /** Provenance recorded under metadata.github_action. */
  origin: Record<string, string>
  wait: boolean
  pollIntervalMs: number
  /**
   * A thread's follow-up (resumeRunId set): the prompt of the fresh run that carries the thread on
   * should the service refuse the resume (its instruction and the thread, as a new run has them).
   */
  carryOn?: {
    prompt: string
    /** Its images, when the thread's go with it (thread-images): the body's too, which its prompt quotes. */
    images?: string[]
    threadImages?: ThreadImages
  }
  /** stop-run-on: when the step stops while its run still works, whether to ask the service to stop it. */
  stopRunOn?: ReadonlySet<StopTrigger>
  /** A CI fix: the failure it fixes, counted by max-fix-attempts before it is created. */
  ciFix?: CiFixBrief
  /** Plan, then approve: a plan asked for (or revised), or an approved plan carried out. */
  plan?: PlanBrief
  /** The thread's images among `images` (thread-images): what was sent and what was left out. */
  threadImages?: ThreadImages
}

/**
 * Plan, then approve (issue 46): `plan` asks the run for a plan only (a revision resumes the plan's
 * run with what to change); `approve` carries out the plan the tracking comment showed.
 */
export type PlanBrief =
  | { kind: 'plan'; askedBy: string; revises?: ShownPlan }
  | {
      kind: 'approve'
      plan: ShownPlan
      approvedBy: string
      extra: string
      /**
       * allow-self-approval: false: who may approve instead, said when approvedBy turns out to be the
       * plan's asker (known once its run is read); absent: the asker may approve.
       */
      askerRefused?: string
    }

/**
 * A plan as the tracking comment showed it: its whole text, the marker's digest of it, who asked, its
 * run. The thread side knows the digest and run alone (text and askedBy ''); agent-run/plan-run.ts
 * reads the rest from the plan's run before anything is sent.
 */
export interface ShownPlan {
  text: string
  digest: string
  askedBy: string
  runId: number
}

/** Why one of the thread's images was not sent. */
export type ImageLeftOut = 'too-big' | 'not-an-image' | 'cap' | 'failed'

/**
 * The thread's images (issue 45) as the reports tell them: each sent one's place ("@alice's comment
 * of 2026-12-01"), and each left out with why. Never a URL: a signed one is a credential.
 */
export interface ThreadImages {
  sent: Array<{ where: string }>
  leftOut: Array<{ where: string; why: ImageLeftOut }>
}

/** A thread's images as its tracking comment tells them from the run's start: the run's, or the carried-on run's. */
export interface ShownImages {
  run?: ThreadImages
  carryOn?: ThreadImages
}

/** The step's request to stop its run (stop-run-on), when it sent one, and the status read after it. */
export interface RunStop {
  /** The service took the request and the run then read as ended. */
  stopped: boolean
  /** The status the service gave afterwards ('' when it could not be read). */
  status: string
  /** Why the run was not stopped, as the user is told it. */
  why?: string
}

/** The run a fresh one carries a thread on from, when the service refused to resume it. */
export interface CarriedFrom {
  runId: number
  webUrl: string | null
  /** The service's answer to the resume, as the user is told it. */
  reason: string
}

/** One line of `task: check`'s table. */
export interface SetupCheckRow {
  item: 'API token' | 'Organization' | 'Role' | 'GitHub integration' | 'Repository'
  /** not readable: information the service would not show (the role), which decides nothing. */
  state: 'ok' | 'problem' | 'not checked' | 'not readable'
  found: string
}

/** What the set-up reads found: a row per item, the first problem, and what was resolved. */
export interface Inspection {
  rows: SetupCheckRow[]
  /** The first thing missing or wrong, and how to fix it; undefined when all is well. */
  problem?: string
  orgId?: number
  organizationName?: string
  repoId?: number
  /** GitHub login, else e-mail, else id. */
  user?: string
}

/** What happened, as plain data for every reporter (outputs, summary, console, tracking comment). */
export interface RunReport {
  outcome: Outcome
  mode: 'create' | 'resume'
  run?: AgentRun
  /** Last raw status seen ('' when none). */
  status: string
  startedAt: number
  endedAt: number
  /** Log entries mirrored by this step. */
  entriesSeen: number
  /** Why the action could not follow the run, when it could not. */
  error?: string
  /** Why no run was started (outcome skipped or limited). */
  reason?: string
  /** Outcome limited: the input whose limit was reached. */
  limit?: LimitName
  /** Outcome limited: the runs of the last 24 hours could not all be counted, so `limit` was not known to be within. */
  limitUncounted?: boolean
  /** A CI fix: which attempt for its branch this run is (its CI-fix runs of the last 24 hours, and one). */
  fixAttempt?: number
  /** The organization, repository and token user as the step resolved them. */
  orgId?: number
  repoId?: number
  user?: string
  /** The HTTP status of the refusal that stopped the step before a run existed, if one did. */
  httpStatus?: number
  /** What started the step's run (inputs, comment, label...; '' when nothing did), for the output. */
  trigger?: string
  /** What the run answered, when the step asked for an answer (verdict, output-schema) and it completed. */
  answer?: AnswerReport
  /** The check run this step wrote on the pull request's head (check-run), if it wrote one. */
  checkRunId?: number
  /** `task: check`: what the reads found (no run is started then). */
  setupCheck?: { inspection: Inspection; error?: string }
  /** The thread's earlier run, when this run carries the thread on because it could not be resumed. */
  carriedFrom?: CarriedFrom
  /** A fan-out (the `runs` input): each item and what became of it; the report's outcome is theirs together. */
  runs?: ItemReport[]
  /** What the run did (its log, follow-ups, pull requests), once one was started or resumed; a fan-out's: their totals. */
  usage?: Usage
  /** The step asked the service to stop its run as it stopped following it (stop-run-on). */
  stop?: RunStop
  /** Plan, then approve: the plan (outcome planned) or the approved plan a run carried out, and who approved it. */
  plan?: PlanReport
  /** The thread's images sent with the run, and those left out (thread-images). */
  threadImages?: ThreadImages
}

/** A plan in the report: its text and digest, who asked, who approved (an implementing run), the plan it revised. */
export interface PlanReport {
  text: string
  digest: string
  askedBy: string
  approvedBy?: string
  /** A revision: who asked for it (askedBy asked for the plan first, as its run's metadata says). */
  revisedBy?: string
  /** A revision: the plan shown before it, folded below the new one. */
  earlier?: string
  /** A plan run that opened pull requests anyway: how many (reported as a warning). */
  pullRequests?: number
}

/** One item of `runs` and what became of it. */
export interface ItemReport {
  name: string
  /** Its report once it started (or could not); undefined when it never got its turn. */
  report?: RunReport
  /** Its log entries kept by this step, for its timeline; entries left out of them, when a long log was cut. */
  entries?: LogEntry[]
  entriesLeftOut?: { after: number; count: number }
}

/** An item as the console's line of states shows it while the runs work. */
export interface ItemState {
  name: string
  phase: 'queued' | 'working' | 'ended'
  /** The last status seen (null: none yet). */
  status: string | null
  outcome?: Outcome
}

/**
 * From the most severe down: the step's outcome of many runs is the first of these that any run
 * has, `success` only when every run succeeded. `limited` (a daily limit), `started` (wait false)
 * and `skipped` come after `cancelled`. So does `planned`, first among them: a plan waits for a
 * person, as a paused run does, but it is what its run was asked for, where every outcome above it
 * says something went wrong; and a run waits, where none below it does.
 */
export const SEVERITY: readonly Outcome[] = [
  'error',
  'failure',
  'rejected',
  'invalid-output',
  'timeout',
  'paused',
  'cancelled',
  'planned',
  'limited',
  'started',
  'skipped',
  'success'
]

/** The outcome of an item: its report's, or `cancelled` when it never started (the step ended first). */
export function itemOutcome(item: ItemReport): Outcome {
  return item.report?.outcome ?? 'cancelled'
}

/** The outcome of many runs: `success` when every run succeeded, else the most severe among them. */
export function aggregateOutcome(items: readonly ItemReport[]): Outcome {
  if (items.length === 0) return 'error'
  const outcomes = new Set(items.map(itemOutcome))
  return SEVERITY.find(outcome => outcomes.has(outcome)) ?? 'error'
}

/** A report's fields that say what happened; the rest have defaults for a run that never started. */
export type ReportFields = Partial<RunReport> & Pick<RunReport, 'outcome'>

/** The report of a run that never started (or of a step that followed none): no status, no entries. */
export function reportOf(fields: ReportFields, startedAt: number, endedAt = startedAt): RunReport {
  return { mode: 'create', status: fields.run?.status ?? '', startedAt, endedAt, entriesSeen: 0, ...fields }
}

/** The report of a step whose path threw: the run as last seen, if any, and the error in one line. */
export function unexpectedEnding(error: unknown, last: RunReport | undefined, now: number): RunReport {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  const fields = {
    outcome: 'error' as const,
    error: `Unexpected error: ${message.split('\n')[0]?.slice(0, 300)}`
  }
  return last ? { ...last, ...fields, endedAt: now } : reportOf(fields, now)
}

/** What happens while a run is followed, as it happens: every reporter receives the same events. */
export interface RunEvents {
  /** The run started (or resumed); a fresh one carrying a thread on says from which run, a CI fix which attempt it is. */
  started(run: AgentRun, mode: RunReport['mode'], carriedFrom?: CarriedFrom, fixAttempt?: number): void
  newEntries(entries: LogEntry[], firstIndex: number): void
  statusChanged(from: string | null, to: string | null): void
  heartbeat(elapsedMs: number, status: string | null, entriesSeen: number): void
  /** Something the user should know while the run goes (shown as a warning annotation). */
  warning(message: string): void
  /** The run completed without a valid answer: it is resumed to ask for one (repair `attempt` of `retries`). */
  repairAsked(reason: string, attempt: number, retries: number): void
}

/** What a run did, from its log and its report (report/usage.ts counts it): no cost or token figures, the service publishes none. */
export interface Usage {
  durationMs: number
  logEntries: number
  /** ACTION entries: a tool executed. */
  toolCalls: number
  /** The tools used most, most used first (ties by name), at most TOP_TOOLS. */
  topTools: Array<{ name: string; count: number }>
  /** ERROR entries. */
  errors: number
  pullRequests: number
  /** Follow-ups the step sent: resumes (agent-run-id, a thread's follow-up) and repairs (a valid answer asked again). */
  resumes: number
  repairs: number
}
