import type { AgentRunApi, OrganizationApi } from '../api/client.js'
import { CancelledError, DeadlineError, ServiceError } from '../api/errors.js'
import type { AgentRun } from '../api/types.js'
import type { Clock } from '../runner/clock.js'
import { LogReader } from './log-reader.js'
import type { Outcome } from './outcome.js'
import {
  countLogEntries,
  createRunOnce,
  findRepoId,
  METADATA_KEY,
  newIdempotencyKey,
  resumeRunOnce
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

export async function runAgent(plan: RunPlan, deps: RunDeps): Promise<RunReport> {
  const startedAt = deps.clock.now()
  const deadline = startedAt + plan.timeoutMs
  const mode = plan.resumeRunId === undefined ? 'create' : 'resume'
  let repoId: number | undefined
  const report = (fields: Partial<RunReport> & Pick<RunReport, 'outcome'>): RunReport => ({
    mode,
    ...(repoId !== undefined ? { repoId } : {}),
    status: fields.run?.status ?? '',
    startedAt,
    endedAt: deps.clock.now(),
    entriesSeen: 0,
    ...fields
  })
  const notice = (message: string): void => deps.events.notice(message)
  const startDeps = { api: deps.api, clock: deps.clock, signal: deps.signal, notice, random: deps.random }

  let run: AgentRun
  let logs: LogReader
  let skipEntries = 0
  let earlierResult: string | null | undefined
  // A resume whose fate was unknown and that the run was then seen to act on: no staleness to wait out.
  let restarted = false
  try {
    if (plan.resumeRunId !== undefined) {
      logs = new LogReader(deps.api, plan.resumeRunId, notice)
      // The result it ended with: a new one proves the resume took effect.
      earlierResult = (await deps.api.getRun(plan.resumeRunId, { deadline })).result ?? null
      const before = await countLogEntries(logs, deadline)
      skipEntries = before.count
      const resumed = await resumeRunOnce(
        startDeps,
        logs,
        {
          agent_run_id: plan.resumeRunId,
          prompt: plan.prompt,
          ...(plan.images.length ? { images: plan.images } : {})
        },
        before,
        resumeGraceMs(plan.pollIntervalMs),
        deadline
      )
      run = resumed.run
      restarted = resumed.restarted
    } else if (plan.setupCommands) {
      repoId =
        plan.repoId ??
        (await lookUpRepository({ ...plan, repositoryRequired: true }, deps.api, deadline, notice))
      if (!deps.setupCommands) throw new Error('runAgent: a setup-commands plan needs deps.setupCommands')
      const answer = await deps.setupCommands.generateSetupCommands(
        { repo_id: repoId as number, ...(plan.prompt ? { prompt: plan.prompt } : {}) },
        { deadline }
      )
      run = await deps.api.getRun(answer.agent_run_id, { deadline })
      logs = new LogReader(deps.api, run.id, notice)
    } else {
      repoId = plan.repoId ?? (await lookUpRepository(plan, deps.api, deadline, notice))
      const key = newIdempotencyKey()
      const created = await createRunOnce(
        startDeps,
        {
          prompt: plan.prompt,
          ...(repoId !== undefined ? { repo_id: repoId } : {}),
          ...(plan.images.length ? { images: plan.images } : {}),
          ...(plan.model ? { model: plan.model } : {}),
          ...(plan.agentType ? { agent_type: plan.agentType } : {}),
          metadata: { ...plan.metadata, [METADATA_KEY]: { ...plan.origin, idempotency_key: key } }
        },
        key,
        deadline
      )
      run = created.run
      logs = new LogReader(deps.api, run.id, notice)
    }
  } catch (error) {
    return report(failedBeforeRun(error))
  }
  // What the step has shown so far: a failure after the run started still reports it.
  const seen = { status: run.status ?? null, entries: 0 }
  try {
    deps.events.started(run, mode)
    // A resume's answer may still carry the earlier ending: not the follow-up's.
    if (!plan.wait) return report({ outcome: 'started', run: mode === 'resume' ? withoutEnding(run) : run })

    const watcher = new RunWatcher(deps.api, logs, deps.clock, noting(deps.events, seen), deps.signal)
    const watched = await watcher.watch({
      runId: run.id,
      deadline,
      pollIntervalMs: plan.pollIntervalMs,
      skipEntries,
      initialStatus: run.status ?? null,
      ...(mode === 'resume' && !restarted ? { resumedAt: deps.clock.now(), earlierResult } : {})
    })
    const status = watched.status ?? ''
    if (!watched.restarted) return notRestarted(run, watched, report)
    const finalRun = watched.run ?? { ...run, status: watched.status }
    const statusClass = classifyStatus(status)
    // A run seen ended in the last read counts as ended, whatever stopped the wait.
    const outcome: Outcome =
      watched.ending === 'cancelled' ? 'cancelled' : statusClass === 'working' ? 'timeout' : statusClass
    return report({ outcome, run: finalRun, status, entriesSeen: watched.entriesSeen })
  } catch (error) {
    return report({
      ...failedAfterStart(error),
      run: { ...run, status: seen.status },
      status: seen.status ?? '',
      entriesSeen: seen.entries
    })
  }
}

/**
 * A resumed run that never showed a sign of restarting still carries its earlier ending: that is
 * reported as what it is, never as the follow-up's result.
 */
function notRestarted(
  run: AgentRun,
  watched: WatchResult,
  report: (fields: Partial<RunReport> & Pick<RunReport, 'outcome'>) => RunReport
): RunReport {
  const earlier = withoutEnding(watched.run ?? run)
  const status = watched.status ?? ''
  const common = { run: earlier, status, entriesSeen: watched.entriesSeen }
  if (watched.ending !== 'ended') return report({ outcome: watched.ending, ...common })
  return report({
    outcome: 'error',
    ...common,
    error: `Agent run ${run.id} did not restart after the resume: it still shows its earlier status ${(status || 'none').slice(0, 100)}, with no new log entries or result. Its earlier result is not reported as the follow-up's; look at the run${run.web_url ? ` (${run.web_url.slice(0, 500)})` : ''} or resume it again.`
  })
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
      throw new ServiceError(
        'No repository to act on: set the repo-id or repository input.',
        undefined,
        false
      )
    return undefined
  }
  const repoId = await findRepoId(api, plan.repository, deadline)
  if (repoId === undefined && plan.repositoryRequired) {
    // A 404 like the service's own "not found", so that the step says why (diagnosis).
    throw new ServiceError(
      `Repository ${plan.repository.slice(0, 200)} is not among the organization's repositories on Codegen.`,
      404,
      false
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
