import type { AgentRunApi, OrganizationApi } from '../api/client.js'
import { CancelledError, DeadlineError, ServiceError } from '../api/errors.js'
import type { AgentRun } from '../api/types.js'
import type { Clock } from '../clock.js'
import { LogReader } from './log-reader.js'
import type { Outcome } from './outcome.js'
import {
  countLogEntries,
  createRunOnce,
  findRepoId,
  METADATA_KEY,
  newIdempotencyKey,
  resumeRunOnce,
  type StartDeps
} from './start.js'
import { classifyStatus } from './status.js'
import { RunWatcher, resumeGraceMs, type WatchEvents, type WatchResult } from './watcher.js'

/** What to do, decided at the edge from the inputs (or from a comment): plain data. */
export interface RunPlan {
  prompt: string
  images: string[]
  /** Resume this run instead of creating one. */
  resumeRunId?: number
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
  timeoutMs: number
  pollIntervalMs: number
}

/** What happened, as plain data for the outputs, the summary and the tracking comment. */
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
  /** Why no run was started (outcome skipped). */
  reason?: string
  /** The repository the run was started on, when one was. */
  repoId?: number
  /** The HTTP status of the refusal that stopped the step before a run existed, if one did. */
  httpStatus?: number
}

/** Everything the run needs from outside, each behind its own small interface. */
export interface RunDeps {
  api: AgentRunApi
  clock: Clock
  signal?: AbortSignal
  random?: () => number
  /** For plans with setupCommands. */
  setupCommands?: Pick<OrganizationApi, 'generateSetupCommands'>
  /** Receives log entries, status changes, heartbeats and notices as they happen. */
  events: RunEvents
}

export interface RunEvents extends WatchEvents {
  started(run: AgentRun, mode: 'create' | 'resume'): void
}

/** A report's fields that the run decides; the rest (mode, times, repository) the step knows. */
type ReportFields = Partial<RunReport> & Pick<RunReport, 'outcome'>

/** What every report of this step carries, whatever became of the run. */
interface ReportBase {
  mode: RunReport['mode']
  startedAt: number
  repoId?: number
}

/** A run this step started or resumed, with what following it needs. */
interface StartedRun {
  run: AgentRun
  logs: LogReader
  /** Entries written before this step (a resume's earlier ones): not mirrored again. */
  skipEntries: number
  repoId?: number
  /** A resume not yet seen to act on: its earlier result, which a new one replaces. */
  earlierResult?: string | null
  /** A resume whose fate was unknown and that the run was then seen to act on: no staleness to wait out. */
  restarted: boolean
}

type StartAttempt =
  ({ kind: 'started' } & StartedRun) | { kind: 'not-started'; fields: ReportFields; repoId?: number }

/** Starts the run the plan asks for, then follows it to its end (or the plan's wait), as plain data. */
export async function runAgent(plan: RunPlan, deps: RunDeps): Promise<RunReport> {
  const startedAt = deps.clock.now()
  const deadline = startedAt + plan.timeoutMs
  const mode = plan.resumeRunId === undefined ? 'create' : 'resume'
  const attempt = await startRun(plan, deps, deadline)
  const base: ReportBase = {
    mode,
    startedAt,
    ...(attempt.repoId !== undefined ? { repoId: attempt.repoId } : {})
  }
  const fields =
    attempt.kind === 'started' ? await followRun(plan, deps, deadline, mode, attempt) : attempt.fields
  return toReport(base, deps.clock.now(), fields)
}

function toReport(base: ReportBase, endedAt: number, fields: ReportFields): RunReport {
  return {
    mode: base.mode,
    ...(base.repoId !== undefined ? { repoId: base.repoId } : {}),
    status: fields.run?.status ?? '',
    startedAt: base.startedAt,
    endedAt,
    entriesSeen: 0,
    ...fields
  }
}

// ---------------------------------------------------------------------------------------------
// Starting: create, resume or setup-commands, each sent exactly once

/** What sending a create or resume needs: the service, the clock, the cancellation and notices. */
function startDepsOf(deps: RunDeps): StartDeps {
  const notice = (message: string): void => deps.events.notice(message)
  return { api: deps.api, clock: deps.clock, signal: deps.signal, notice, random: deps.random }
}

async function startRun(plan: RunPlan, deps: RunDeps, deadline: number): Promise<StartAttempt> {
  let repoId: number | undefined
  try {
    if (plan.resumeRunId !== undefined)
      return { kind: 'started', ...(await resume(plan, plan.resumeRunId, deps, deadline)) }
    const { notice } = startDepsOf(deps)
    const lookUp = plan.setupCommands ? { ...plan, repositoryRequired: true } : plan
    repoId = plan.repoId ?? (await lookUpRepository(lookUp, deps.api, deadline, notice))
    const run = plan.setupCommands
      ? await startSetupCommands(plan, repoId, deps, deadline)
      : await create(plan, repoId, deps, deadline)
    return {
      kind: 'started',
      run,
      logs: new LogReader(deps.api, run.id, notice),
      skipEntries: 0,
      repoId,
      restarted: false
    }
  } catch (error) {
    return { kind: 'not-started', fields: failedBeforeRun(error), repoId }
  }
}

async function resume(plan: RunPlan, runId: number, deps: RunDeps, deadline: number): Promise<StartedRun> {
  const startDeps = startDepsOf(deps)
  const logs = new LogReader(deps.api, runId, startDeps.notice)
  // The result it ended with: a new one proves the resume took effect.
  const earlierResult = (await deps.api.getRun(runId, { deadline })).result ?? null
  const before = await countLogEntries(logs, deadline)
  const request = {
    agent_run_id: runId,
    prompt: plan.prompt,
    ...(plan.images.length ? { images: plan.images } : {})
  }
  const grace = resumeGraceMs(plan.pollIntervalMs)
  const resumed = await resumeRunOnce(startDeps, logs, request, before, grace, deadline)
  return { run: resumed.run, logs, skipEntries: before.count, earlierResult, restarted: resumed.restarted }
}

async function startSetupCommands(
  plan: RunPlan,
  repoId: number | undefined,
  deps: RunDeps,
  deadline: number
): Promise<AgentRun> {
  if (!deps.setupCommands) throw new Error('runAgent: a setup-commands plan needs deps.setupCommands')
  const answer = await deps.setupCommands.generateSetupCommands(
    { repo_id: repoId as number, ...(plan.prompt ? { prompt: plan.prompt } : {}) },
    { deadline }
  )
  return deps.api.getRun(answer.agent_run_id, { deadline })
}

async function create(
  plan: RunPlan,
  repoId: number | undefined,
  deps: RunDeps,
  deadline: number
): Promise<AgentRun> {
  const key = newIdempotencyKey()
  const request = {
    prompt: plan.prompt,
    ...(repoId !== undefined ? { repo_id: repoId } : {}),
    ...(plan.images.length ? { images: plan.images } : {}),
    ...(plan.model ? { model: plan.model } : {}),
    ...(plan.agentType ? { agent_type: plan.agentType } : {}),
    metadata: { ...plan.metadata, [METADATA_KEY]: { ...plan.origin, idempotency_key: key } }
  }
  return (await createRunOnce(startDepsOf(deps), request, key, deadline)).run
}

// ---------------------------------------------------------------------------------------------
// Following: watch the run, then say how it ended

async function followRun(
  plan: RunPlan,
  deps: RunDeps,
  deadline: number,
  mode: RunReport['mode'],
  started: StartedRun
): Promise<ReportFields> {
  const { run } = started
  // What the step has shown so far: a failure after the run started still reports it.
  const seen = { status: run.status ?? null, entries: 0 }
  try {
    deps.events.started(run, mode)
    // A resume's answer may still carry the earlier ending: not the follow-up's.
    if (!plan.wait) return { outcome: 'started', run: mode === 'resume' ? withoutEnding(run) : run }
    const watcher = new RunWatcher(deps.api, started.logs, deps.clock, noting(deps.events, seen), deps.signal)
    const watched = await watcher.watch({
      runId: run.id,
      deadline,
      pollIntervalMs: plan.pollIntervalMs,
      skipEntries: started.skipEntries,
      initialStatus: run.status ?? null,
      ...(mode === 'resume' && !started.restarted
        ? { resumedAt: deps.clock.now(), earlierResult: started.earlierResult }
        : {})
    })
    return watched.restarted ? howItEnded(run, watched) : notRestarted(run, watched)
  } catch (error) {
    return {
      ...failedAfterStart(error),
      run: { ...run, status: seen.status },
      status: seen.status ?? '',
      entriesSeen: seen.entries
    }
  }
}

function howItEnded(run: AgentRun, watched: WatchResult): ReportFields {
  const status = watched.status ?? ''
  const finalRun = watched.run ?? { ...run, status: watched.status }
  const statusClass = classifyStatus(status)
  // A run seen ended in the last read counts as ended, whatever stopped the wait.
  const outcome: Outcome =
    watched.ending === 'cancelled' ? 'cancelled' : statusClass === 'working' ? 'timeout' : statusClass
  return { outcome, run: finalRun, status, entriesSeen: watched.entriesSeen }
}

/**
 * A resumed run that never showed a sign of restarting still carries its earlier ending: that is
 * reported as what it is, never as the follow-up's result.
 */
function notRestarted(run: AgentRun, watched: WatchResult): ReportFields {
  const earlier = withoutEnding(watched.run ?? run)
  const status = watched.status ?? ''
  const common = { run: earlier, status, entriesSeen: watched.entriesSeen }
  if (watched.ending !== 'ended') return { outcome: watched.ending, ...common }
  return {
    outcome: 'error',
    ...common,
    error: `Agent run ${run.id} did not restart after the resume: it still shows its earlier status ${(status || 'none').slice(0, 100)}, with no new log entries or result. Its earlier result is not reported as the follow-up's; look at the run${run.web_url ? ` (${run.web_url.slice(0, 500)})` : ''} or resume it again.`
  }
}

/** The run without what its earlier ending left: result, summary, pull requests. */
function withoutEnding(run: AgentRun): AgentRun {
  return { ...run, result: null, summary: null, github_pull_requests: [] }
}

/** Passes the watcher's events on, noting the last status and how many entries were mirrored. */
function noting(events: WatchEvents, seen: { status: string | null; entries: number }): WatchEvents {
  return {
    newEntries(entries, firstIndex) {
      seen.entries += entries.length
      events.newEntries(entries, firstIndex)
    },
    statusChanged(from, to) {
      seen.status = to
      events.statusChanged(from, to)
    },
    heartbeat: (elapsedMs, status, entriesSeen) => events.heartbeat(elapsedMs, status, entriesSeen),
    notice: message => events.notice(message)
  }
}

async function lookUpRepository(
  plan: RunPlan,
  api: AgentRunApi,
  deadline: number,
  notice: (message: string) => void
): Promise<number | undefined> {
  if (!plan.repository) {
    if (plan.repositoryRequired)
      throw new ServiceError('No repository to act on: set the repo-id or repository input.')
    return undefined
  }
  const repoId = await findRepoId(api, plan.repository, deadline)
  if (repoId === undefined && plan.repositoryRequired) {
    // A 404 like the service's own "not found", so that the step says why (diagnosis).
    throw new ServiceError(
      `Repository ${plan.repository.slice(0, 200)} is not among the organization's repositories on Codegen.`,
      404
    )
  }
  if (repoId === undefined) {
    notice(
      `Repository ${plan.repository} is not among the organization's repositories on Codegen: the run is created without repo_id (set the repo-id input to choose one).`
    )
  }
  return repoId
}

function failedBeforeRun(error: unknown): Pick<RunReport, 'outcome' | 'error' | 'httpStatus'> {
  if (error instanceof CancelledError) return { outcome: 'cancelled', error: error.message }
  if (error instanceof DeadlineError)
    return { outcome: 'timeout', error: `The wait ended: ${error.message}.` }
  if (error instanceof ServiceError)
    return {
      outcome: 'error',
      error: error.message,
      ...(error.httpStatus ? { httpStatus: error.httpStatus } : {})
    }
  throw error
}

/** Once a run exists its outputs are owed whatever went wrong: even an unexpected error ends as a report. */
function failedAfterStart(error: unknown): Pick<RunReport, 'outcome' | 'error'> {
  try {
    const { outcome, error: message } = failedBeforeRun(error)
    return { outcome, error: message }
  } catch {
    // The message only: the summary and the tracking comment are public.
    const detail = error instanceof Error ? error.message : String(error)
    return { outcome: 'error', error: `Unexpected error while following the run: ${detail}` }
  }
}
