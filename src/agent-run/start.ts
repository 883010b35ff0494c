import { randomUUID } from 'node:crypto'
import { API_RUNS, type AgentRunApi, type CallOptions, type OrganizationApi } from '../api/client.js'
import { AmbiguousWriteError, CancelledError, DeadlineError, ServiceError } from '../api/errors.js'
import { searchPages } from '../api/paging.js'
import { backoffDelay } from '../api/retry.js'
import type { AgentRun, CreateRunRequest } from '../api/types.js'
import type { Clock } from '../clock.js'
import { reportOf, type CarriedFrom, type ReportFields, type RunPlan, type RunReport } from '../model.js'
import { diagnose, inspectSetup } from '../org/inspect.js'
import type { ServiceClients } from '../org/clients.js'
import type { Admission, FixCount } from '../org/daily-limit-read.js'
import { discoverOrganization, findRepository } from '../org/organizations.js'
import {
  carryOnNotice,
  carryOnPrompt,
  reasonLine,
  RefusedResume,
  refusesTheRun,
  serviceReason,
  type EarlierRun
} from './carry-on.js'
import { countLogEntries, LogReader, type LogBaseline } from './log-reader.js'
import { classifyStatus } from './status.js'
import { resumeGraceMs, type ResumeGuard } from './watch-step.js'
import { isCutShort } from './watcher.js'
import { SERVICE_AFTER_CANCEL_MS, STOP_AND_READ_KEPT_MS } from '../deadlines.js'

/**
 * Starting a run, in one place: the organization (org-id, else the token's only one), the
 * repository, then a create, a resume or the setup-commands run, each sent exactly once.
 */

/** Key of the metadata object in which every run records where it came from. */
export const METADATA_KEY = 'github_action'

/** A write whose fate was unknown is sent at most this many times in all, each after checking. */
const MAX_WRITE_SENDS = 3

/**
 * A create or a resume cut off by the cancellation or the deadline is looked for this often (by its
 * key; for a resume, a sign that the run restarted) until the service's last calls leave only the
 * stop and the last read (deadlines.ts): the service may do it a moment after the cut.
 */
export const LATE_LOOK_SPACING_MS = 500

export interface StartDeps {
  apis: ServiceClients
  clock: Clock
  signal?: AbortSignal
  random?: () => number
  /** Epoch ms at which the step stops waiting (timeout-minutes after it started). */
  deadline: number
  /** What the user should know of the start (a resend, a repository not found). */
  warning(message: string): void
  /** The organization chosen for the user, when org-id was empty. */
  notice(message: string): void
  /**
   * When the service's last calls must end once the step is cut short (Deadlines.lastCallsBy);
   * without it, SERVICE_AFTER_CANCEL_MS after the cut.
   */
  lastCallsBy?: () => number
  /** The daily limits and a CI fix's attempts (DailyGate.admit), asked before a create only. */
  dailyLimit?: (orgId: number, origin: Record<string, string>, fix?: FixCount) => Promise<Admission>
}

/** A run this step started or resumed, with what following it needs. */
export interface StartedRun {
  kind: 'started'
  run: AgentRun
  api: AgentRunApi
  logs: LogReader
  /** Entries written before this step (a resume's earlier ones): not mirrored again. */
  earlierEntries: number
  /** What makes an ending the resumed run's own (always restarted for a new run). */
  guard: ResumeGuard
  /** The report's fields known from the start: mode, times, organization, repository, the earlier run, a CI fix's attempt. */
  base: Pick<RunReport, 'mode' | 'startedAt' | 'orgId' | 'repoId' | 'carriedFrom' | 'fixAttempt'>
}

export type Start =
  | StartedRun
  | {
      kind: 'not-started'
      report: RunReport
      /** The service refused to resume the run itself (it may resume paused runs only): why, as the user is told it. */
      refusedResume?: string
    }

/** Starts the run the plan asks for; a refusal (401, 403, 404) before it existed is explained. */
export async function startRun(plan: RunPlan, deps: StartDeps): Promise<Start> {
  const startedAt = deps.clock.now()
  let mode: RunReport['mode'] = plan.resumeRunId === undefined ? 'create' : 'resume'
  const options = { deadline: deps.deadline }
  const found =
    plan.orgId === undefined
      ? await discoverOrganization(deps.apis, options, deps.notice)
      : { orgId: plan.orgId }
  if ('error' in found) {
    const report = reportOf({ outcome: 'error', ...found }, startedAt, deps.clock.now())
    return { kind: 'not-started', report: await diagnose(report, deps.apis, { repository: '' }, options) }
  }
  const api = deps.apis(found.orgId)
  let repoId: number | undefined
  try {
    let carriedFrom: CarriedFrom | undefined
    let prompt = plan.prompt
    if (plan.resumeRunId !== undefined) {
      const refusal = await resumeRefusal(plan, plan.resumeRunId, api, deps, found.orgId)
      if ('resumed' in refusal)
        return { kind: 'started', api, ...refusal.resumed, base: { mode, startedAt, orgId: found.orgId } }
      // Refused: a thread's follow-up carries the thread on in one fresh run; an input resume fails.
      if (!plan.carryOn) throw refusal.error
      carriedFrom = refusal.carriedFrom
      prompt = carryOnPrompt(plan.carryOn.prompt, refusal.earlier, carriedFrom.reason)
      mode = 'create'
    }
    const fix = plan.ciFix && { branch: plan.ciFix.branch, maxAttempts: plan.ciFix.maxAttempts }
    const admission = plan.setupCommands ? undefined : await deps.dailyLimit?.(found.orgId, plan.origin, fix)
    if (admission && !admission.admitted) return limitedStart(admission, found.orgId, startedAt, deps)
    const fixAttempt = admission?.fixAttempt
    repoId = plan.repoId ?? (await lookUpRepository(plan, api, deps))
    const run = plan.setupCommands
      ? await startSetupCommands(plan, repoId, api, deps.deadline)
      : await create({ ...plan, prompt }, repoId, api, deps, fixAttempt)
    if (carriedFrom) deps.notice(carryOnNotice(carriedFrom.runId, run.id, carriedFrom.reason))
    const logs = new LogReader(api, run.id, deps.warning)
    const base = {
      mode,
      startedAt,
      orgId: found.orgId,
      ...(repoId !== undefined ? { repoId } : {}),
      ...(carriedFrom ? { carriedFrom } : {}),
      ...(fixAttempt !== undefined ? { fixAttempt } : {})
    }
    return { kind: 'started', run, api, logs, earlierEntries: 0, guard: { restarted: true }, base }
  } catch (error) {
    // A resume the service refused for the run itself: one error, naming the input, no diagnosis.
    if (error instanceof RefusedResume) {
      const fields = { outcome: 'error' as const, error: error.message, httpStatus: error.httpStatus, mode }
      return {
        kind: 'not-started',
        report: reportOf({ ...fields, orgId: found.orgId }, startedAt, deps.clock.now()),
        refusedResume: error.reason
      }
    }
    const fields = { ...errorBeforeRun(error), mode, orgId: found.orgId, repoId }
    const report = reportOf(fields, startedAt, deps.clock.now())
    // Only what the step used is questioned: a resume names no repository; a create, the one it
    // sent (or the one it was told to find).
    const used =
      mode === 'resume'
        ? { orgId: found.orgId, repository: '' }
        : {
            orgId: found.orgId,
            repoId: repoId ?? plan.repoId,
            repository: plan.repositoryRequired || plan.setupCommands ? (plan.repository ?? '') : ''
          }
    return { kind: 'not-started', report: await diagnose(report, deps.apis, used, options) }
  }
}

/** A limit reached: nothing started, the notice says which limit, how many runs and until when. */
function limitedStart(
  { reason, limit, uncounted }: Extract<Admission, { admitted: false }>,
  orgId: number,
  startedAt: number,
  deps: StartDeps
): Start {
  deps.notice(reason)
  return {
    kind: 'not-started',
    report: reportOf(
      { outcome: 'limited', reason, limit, orgId, ...(uncounted ? { limitUncounted: true } : {}) },
      startedAt,
      deps.clock.now()
    )
  }
}

/** Why a run could not be started, as a report's fields; an unexpected error is thrown on. */
export function errorBeforeRun(error: unknown): ReportFields {
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

async function lookUpRepository(
  plan: RunPlan,
  api: AgentRunApi,
  deps: StartDeps
): Promise<number | undefined> {
  const required = plan.repositoryRequired || plan.setupCommands
  if (!plan.repository) {
    if (required) throw new ServiceError('No repository to act on: set the repo-id or repository input.')
    return undefined
  }
  const repoId = (await findRepository(api, { repository: plan.repository }, { deadline: deps.deadline }))?.id
  if (repoId === undefined && required) {
    // A 404 like the service's own "not found", so that the step says why (diagnosis).
    throw new ServiceError(
      `Repository ${plan.repository.slice(0, 200)} is not among the organization's repositories on Codegen.`,
      404
    )
  }
  if (repoId === undefined) {
    deps.warning(
      `Repository ${plan.repository} is not among the organization's repositories on Codegen: the run is created without repo_id (set the repo-id input to choose one).`
    )
  }
  return repoId
}

async function startSetupCommands(
  plan: RunPlan,
  repoId: number | undefined,
  api: AgentRunApi & Pick<OrganizationApi, 'generateSetupCommands'>,
  deadline: number
): Promise<AgentRun> {
  const answer = await api.generateSetupCommands(
    { repo_id: repoId as number, ...(plan.prompt ? { prompt: plan.prompt } : {}) },
    { deadline }
  )
  return api.getRun(answer.agent_run_id, { deadline })
}

/**
 * Creates the run exactly once. When a create's fate is unknown (reset, time-out, 5xx, unreadable
 * answer), the run is looked up by the idempotency key recorded in its metadata before any resend.
 */
async function create(
  plan: RunPlan,
  repoId: number | undefined,
  api: AgentRunApi,
  deps: StartDeps,
  fixAttempt: number | undefined
): Promise<AgentRun> {
  const key = randomUUID()
  // A CI fix records what it fixes (and which attempt it is): max-fix-attempts counts by it.
  const ciFix = plan.ciFix && {
    ci_fix: { ...plan.ciFix.record, ...(fixAttempt !== undefined ? { attempt: fixAttempt } : {}) }
  }
  const request: CreateRunRequest = {
    prompt: plan.prompt,
    ...(repoId !== undefined ? { repo_id: repoId } : {}),
    ...(plan.images.length ? { images: plan.images } : {}),
    ...(plan.model ? { model: plan.model } : {}),
    ...(plan.agentType ? { agent_type: plan.agentType } : {}),
    metadata: { ...plan.metadata, [METADATA_KEY]: { ...plan.origin, ...ciFix, idempotency_key: key } }
  }
  const { deadline } = deps
  // Whether a create may have reached the service: a cut then leaves a run to look for.
  let maybeSent = false
  for (let send = 1; ; send++) {
    try {
      return await api.createRun(request, { deadline })
    } catch (error) {
      if (cutAfterSending(error, maybeSent)) return foundLate(api, key, deps, error)
      if (!(error instanceof AmbiguousWriteError)) throw error
      maybeSent = true
      deps.warning(`${error.message}. Checking whether the run was created before sending again.`)
      try {
        await deps.clock.sleep(backoffWithin(send, deps), deps.signal)
        const found = await findRunByKey(api, key, deadline)
        if (found) {
          deps.warning(
            `Found agent run ${found.id}: the create had reached the service; it is not sent again.`
          )
          return found
        }
      } catch (cut) {
        if (!isCutShort(cut)) throw cut
        return foundLate(api, key, deps, cut)
      }
      if (send >= MAX_WRITE_SENDS)
        throw new ServiceError(`${error.message} (sent ${send} times; no run was created)`, error.httpStatus)
    }
  }
}

/** The cancellation or the deadline, with a write that may have reached the service: its effect is looked for. */
function cutAfterSending(error: unknown, maybeSent: boolean): error is CancelledError | DeadlineError {
  return isCutShort(error) && (maybeSent || (error instanceof CancelledError && error.inFlight))
}

/** The wait before a write whose fate is unknown is looked for: within the deadline (past it, none). */
function backoffWithin(send: number, deps: StartDeps): number {
  const left = deps.deadline - deps.clock.now()
  if (left <= 0) throw new DeadlineError()
  return Math.min(left, backoffDelay(send, (deps.random ?? Math.random)()))
}

/** Until when a write cut off is looked for: what the service's last calls leave past the stop and the last read. */
function lateLooksUntil(deps: StartDeps): number {
  const lastCallsBy = deps.lastCallsBy?.() ?? deps.clock.now() + SERVICE_AFTER_CANCEL_MS
  return lastCallsBy - STOP_AND_READ_KEPT_MS
}

/**
 * The run a create cut off by the cancellation or the deadline made, looked for by its key every
 * LATE_LOOK_SPACING_MS (not aborted by the cancellation) until the stop and the last read are all
 * the service's last calls have left: a run the service creates a moment late is found too. The
 * step then stops and reports it as its own. None found: the cut stands, nothing was created.
 */
async function foundLate(
  api: AgentRunApi,
  key: string,
  deps: StartDeps,
  cut: CancelledError | DeadlineError
): Promise<AgentRun> {
  const until = lateLooksUntil(deps)
  for (;;) {
    const found = await findRunByKey(api, key, until, true).catch(() => undefined)
    if (found) {
      const why = cut instanceof CancelledError ? 'The job was cancelled' : 'timeout-minutes was reached'
      deps.warning(`${why} while agent run ${found.id} was being created: the run is the step's.`)
      return found
    }
    if (deps.clock.now() + LATE_LOOK_SPACING_MS >= until) throw cut
    await deps.clock.sleep(LATE_LOOK_SPACING_MS)
  }
}

async function findRunByKey(
  api: AgentRunApi,
  key: string,
  deadline: number,
  lastRead = false
): Promise<AgentRun | undefined> {
  // The newest runs come first: the one we look for is among the first two pages. Runs created
  // meanwhile move the listing: only a short page ends it.
  return searchPages(
    (skip, limit) =>
      api.listRuns(skip, limit, API_RUNS, { deadline, ...(lastRead ? { lastRead, maxAttempts: 1 } : {}) }),
    run => {
      const origin = run.metadata?.[METADATA_KEY]
      return (
        typeof origin === 'object' &&
        origin !== null &&
        (origin as Record<string, unknown>).idempotency_key === key
      )
    },
    { maxPages: 2, trustPageCount: false }
  )
}

type Resumed = Pick<StartedRun, 'run' | 'logs' | 'earlierEntries' | 'guard'>

/**
 * Resumes the run, or says why the service refused it for the run itself: 400, 409 or 422 (the live
 * service may resume paused runs only), or 403 and 404 when the token, organization and integration
 * read fine. Any other failure is thrown as it is.
 */
async function resumeRefusal(
  plan: RunPlan,
  runId: number,
  api: AgentRunApi,
  deps: StartDeps,
  orgId: number
): Promise<{ resumed: Resumed } | { error: RefusedResume; earlier: EarlierRun; carriedFrom: CarriedFrom }> {
  const earlier: EarlierRun = { id: runId, webUrl: null, result: null }
  const refused = async (error: unknown) => {
    const carried = await refusalOfTheRun(error, runId, earlier, deps, orgId)
    if (!carried) throw error
    return carried
  }
  // Only the answers about the run itself count: reading it, and resuming it (not its log's reads).
  let run: AgentRun
  try {
    run = await api.getRun(runId, { deadline: deps.deadline })
  } catch (error) {
    return refused(error)
  }
  Object.assign(earlier, { webUrl: run.web_url ?? null, result: run.result ?? null })
  const logs = new LogReader(api, runId, deps.warning)
  const before = await countLogEntries(logs, deps.deadline)
  try {
    return { resumed: await resume(plan, run, logs, before, api, deps) }
  } catch (error) {
    return refused(error)
  }
}

/** The refusal of the run as the user is told it, or undefined when the error is not one. */
async function refusalOfTheRun(
  error: unknown,
  runId: number,
  earlier: EarlierRun,
  deps: StartDeps,
  orgId: number
): Promise<{ error: RefusedResume; earlier: EarlierRun; carriedFrom: CarriedFrom } | undefined> {
  if (!(error instanceof ServiceError) || error instanceof AmbiguousWriteError) return undefined
  const setupFine = async (): Promise<boolean> => {
    const target = { orgId, repository: '' }
    const inspection = await inspectSetup(deps.apis, target, { deadline: deps.deadline }).catch(
      () => undefined
    )
    return inspection !== undefined && !inspection.problem
  }
  if (!(await refusesTheRun(error.httpStatus, setupFine))) return undefined
  const said = reasonLine(serviceReason(error))
  const message =
    `agent-run-id ${runId}: the service refused to resume this run (${error.httpStatus}): "${said}". ` +
    'Nothing was created. To start a fresh run instead, leave agent-run-id empty: the prompt then starts a new run.'
  const reason = `the service answered ${error.httpStatus}: ${said}`
  const carriedFrom = { runId, webUrl: earlier.webUrl, reason }
  return { error: new RefusedResume(message, error.httpStatus, reason), earlier, carriedFrom }
}

/**
 * Resumes the run exactly once. When a resume's fate is unknown, the run is watched for a while for
 * a sign that it restarted (a working status, new entries or a new result) before it is sent again.
 */
async function resume(
  plan: RunPlan,
  earlier: AgentRun,
  logs: LogReader,
  before: LogBaseline,
  api: AgentRunApi,
  deps: StartDeps
): Promise<Resumed> {
  const { deadline } = deps
  const runId = earlier.id
  // The result it ended with: a new one proves the resume took effect.
  const earlierResult = earlier.result ?? null
  const request = {
    agent_run_id: runId,
    prompt: plan.prompt,
    ...(plan.images.length ? { images: plan.images } : {})
  }
  const resumed = { logs, earlierEntries: before.count }
  // Not yet seen restarted: its earlier ending may linger, and only a sign of a restart ends the wait.
  const unseen = () => ({ restarted: false, resumedAt: deps.clock.now(), earlierResult })
  // Whether a resume may have reached the service: a cut then leaves a restart to look for.
  let maybeSent = false
  for (let send = 1; ; send++) {
    try {
      return { ...resumed, run: await api.resumeRun(request, { deadline }), guard: unseen() }
    } catch (error) {
      // Cut off: the run may restart, now or a moment later; it is the step's to stop.
      if (cutAfterSending(error, maybeSent))
        return { ...resumed, ...(await restartedLate(api, logs, earlier, before, deps, unseen)) }
      if (!(error instanceof AmbiguousWriteError)) throw error
      maybeSent = true
      deps.warning(`${error.message}. Checking whether the run restarted before sending again.`)
      const window = resumeGraceMs(plan.pollIntervalMs)
      let restarted: AgentRun | undefined
      try {
        if (deps.clock.now() >= deadline) throw new DeadlineError()
        restarted = await waitForRestart(api, logs, runId, before, window, deps)
      } catch (cut) {
        if (!isCutShort(cut)) throw cut
        return { ...resumed, ...(await restartedLate(api, logs, earlier, before, deps, unseen)) }
      }
      if (restarted) {
        deps.warning(
          `Agent run ${restarted.id} restarted: the resume had reached the service; it is not sent again.`
        )
        return { ...resumed, run: restarted, guard: { restarted: true } }
      }
      if (send >= MAX_WRITE_SENDS)
        throw new ServiceError(
          `${error.message} (sent ${send} times; the run did not restart)`,
          error.httpStatus
        )
    }
  }
}

async function waitForRestart(
  api: AgentRunApi,
  logs: LogReader,
  runId: number,
  before: LogBaseline,
  windowMs: number,
  deps: StartDeps
): Promise<AgentRun | undefined> {
  const { clock, deadline } = deps
  const until = Math.min(deadline, clock.now() + windowMs)
  for (let check = 1; clock.now() < until; check++) {
    await clock.sleep(
      Math.min(backoffDelay(check, (deps.random ?? Math.random)()), until - clock.now()),
      deps.signal
    )
    const restarted = await restartSign(api, logs, runId, before, { deadline })
    if (restarted) return restarted
  }
  return undefined
}

/** The run when one check shows it restarted; else undefined. */
async function restartSign(
  api: AgentRunApi,
  logs: LogReader,
  runId: number,
  before: LogBaseline,
  options: CallOptions
): Promise<AgentRun | undefined> {
  const page = await logs.read(before.count, 1, options)
  const run = page ? undefined : await api.getRun(runId, options)
  const status = page ? page.status : (run?.status ?? null)
  const result = page ? page.result : run?.result
  // Signs of a restart: a working status (null says nothing: the ALPHA endpoint drifts), new
  // entries, or a new result (a run may restart and end between two checks without an entry).
  const working = status !== null && classifyStatus(status) === 'working'
  const newResult = !!before.result && !!result && result !== before.result
  if (working || (page && page.logs.length > 0) || newResult) return run ?? (await api.getRun(runId, options))
  return undefined
}

/**
 * A resume cut off by the cancellation or the deadline: the run checked for a sign of a restart
 * every LATE_LOOK_SPACING_MS (not aborted by the cancellation) until the stop and the last read are
 * all the service's last calls have left. Seen restarted, or not (it may show its earlier ending a
 * while yet), it is the step's: the watch stops it as stop-run-on says, as late as that allows.
 */
async function restartedLate(
  api: AgentRunApi,
  logs: LogReader,
  earlier: AgentRun,
  before: LogBaseline,
  deps: StartDeps,
  unseen: () => ResumeGuard
): Promise<Pick<StartedRun, 'run' | 'guard'>> {
  const until = lateLooksUntil(deps)
  const options = { deadline: until, lastRead: true, maxAttempts: 1 }
  for (;;) {
    const run = await restartSign(api, logs, earlier.id, before, options).catch(() => undefined)
    if (run) return { run, guard: { restarted: true } }
    if (deps.clock.now() + LATE_LOOK_SPACING_MS >= until) return { run: earlier, guard: unseen() }
    await deps.clock.sleep(LATE_LOOK_SPACING_MS)
  }
}
