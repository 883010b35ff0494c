import { randomUUID } from 'node:crypto'
import type { AgentRunApi, OrganizationApi } from '../api/client.js'
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

/**
 * Starting a run, in one place: the organization (org-id, else the token's only one), the
 * repository, then a create, a resume or the setup-commands run, each sent exactly once.
 */

/** Key of the metadata object in which every run records where it came from. */
export const METADATA_KEY = 'github_action'

/** A write whose fate was unknown is sent at most this many times in all, each after checking. */
const MAX_WRITE_SENDS = 3

/**
 * A create whose answer the cancellation cut off is looked for this long (the run then stopped as
 * stop-run-on says, and reported): the runner ends the job 7.5 s after cancelling it.
 */
export const CANCELLED_CREATE_LOOKUP_MS = 1_000

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
  { reason, limit }: Extract<Admission, { admitted: false }>,
  orgId: number,
  startedAt: number,
  deps: StartDeps
): Start {
  deps.notice(reason)
  return {
    kind: 'not-started',
    report: reportOf({ outcome: 'limited', reason, limit, orgId }, startedAt, deps.clock.now())
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
  for (let send = 1; ; send++) {
    try {
      return await api.createRun(request, { deadline })
    } catch (error) {
      if (error instanceof CancelledError && error.inFlight) return foundAfterCancel(api, key, deps, error)
      if (!(error instanceof AmbiguousWriteError)) throw error
      deps.warning(`${error.message}. Checking whether the run was created before sending again.`)
      await deps.clock.sleep(backoffDelay(send, (deps.random ?? Math.random)()), deps.signal)
      const found = await findRunByKey(api, key, deadline)
      if (found) {
        deps.warning(`Found agent run ${found.id}: the create had reached the service; it is not sent again.`)
        return found
      }
      if (send >= MAX_WRITE_SENDS)
        throw new ServiceError(`${error.message} (sent ${send} times; no run was created)`, error.httpStatus)
    }
  }
}

/**
 * The run a create cut off by the cancellation made, looked for by its key (not aborted by the
 * cancellation, within CANCELLED_CREATE_LOOKUP_MS): the step then stops and reports it as its own.
 * None found: the cancellation stands, nothing was created.
 */
async function foundAfterCancel(
  api: AgentRunApi,
  key: string,
  deps: StartDeps,
  cancelled: CancelledError
): Promise<AgentRun> {
  const deadline = Math.min(deps.deadline, deps.clock.now() + CANCELLED_CREATE_LOOKUP_MS)
  const found = await findRunByKey(api, key, deadline, true).catch(() => undefined)
  if (!found) throw cancelled
  deps.warning(`The job was cancelled while agent run ${found.id} was being created: the run is the step's.`)
  return found
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
      api.listRuns(skip, limit, { deadline, ...(lastRead ? { lastRead, maxAttempts: 1 } : {}) }),
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
  for (let send = 1; ; send++) {
    try {
      const run = await api.resumeRun(request, { deadline })
      // Not yet seen restarted: its earlier ending may linger, and only a sign of a restart ends the wait.
      const guard = { restarted: false, resumedAt: deps.clock.now(), earlierResult }
      return { ...resumed, run, guard }
    } catch (error) {
      // Sent and cut off by the cancellation: the run may have restarted; it is the step's to stop.
      if (error instanceof CancelledError && error.inFlight) {
        const guard = { restarted: false, resumedAt: deps.clock.now(), earlierResult }
        return { ...resumed, run: earlier, guard }
      }
      if (!(error instanceof AmbiguousWriteError)) throw error
      deps.warning(`${error.message}. Checking whether the run restarted before sending again.`)
      const window = resumeGraceMs(plan.pollIntervalMs)
      const restarted = await waitForRestart(api, logs, runId, before, window, deps)
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
    const page = await logs.read(before.count, 1, { deadline })
    const run = page ? undefined : await api.getRun(runId, { deadline })
    const status = page ? page.status : (run?.status ?? null)
    const result = page ? page.result : run?.result
    // Signs of a restart: a working status (null says nothing: the ALPHA endpoint drifts), new
    // entries, or a new result (a run may restart and end between two checks without an entry).
    const working = status !== null && classifyStatus(status) === 'working'
    const newResult = !!before.result && !!result && result !== before.result
    if (working || (page && page.logs.length > 0) || newResult)
      return run ?? (await api.getRun(runId, { deadline }))
  }
  return undefined
}
