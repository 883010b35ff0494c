import type { AgentRunApi, OrganizationApi } from '../api/client.js'
import { CancelledError, DeadlineError, ServiceError } from '../api/errors.js'
import type { AgentRun } from '../api/types.js'
import { reportOf, type CarriedFrom, type ReportFields, type RunBrief, type RunReport } from '../model.js'
import { diagnose } from '../org/inspect.js'
import type { ServiceClients } from '../org/clients.js'
import type { Admission, FixCount } from '../org/daily-limit-read.js'
import { discoverOrganization, findRepository } from '../org/organizations.js'
import { carryOnNotice, carryOnPrompt, RefusedResume } from './carry-on.js'
import { LogReader } from './log-reader.js'
import { resumeRefusal, type RunToFollow } from './resume.js'
import { createOnce, type SendDeps } from './send-once.js'

/**
 * Starting a run, in one place: the organization (org-id, else the token's only one), the
 * repository, then a create (send-once.ts), a resume (resume.ts) or the setup-commands run, each
 * sent exactly once.
 */

export interface StartDeps extends SendDeps {
  apis: ServiceClients
  /** The organization chosen for the user, when org-id was empty. */
  notice(message: string): void
  /** The daily limits and a CI fix's attempts (DailyGate.admit), asked before a create only. */
  dailyLimit?: (orgId: number, origin: Record<string, string>, fix?: FixCount) => Promise<Admission>
}

/** A run this step started or resumed, with what following it needs. */
export interface StartedRun extends RunToFollow {
  kind: 'started'
  api: AgentRunApi
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

/** Starts the run the brief asks for; a refusal (401, 403, 404) before it existed is explained. */
export async function startRun(brief: RunBrief, deps: StartDeps): Promise<Start> {
  const startedAt = deps.clock.now()
  let mode: RunReport['mode'] = brief.resumeRunId === undefined ? 'create' : 'resume'
  const options = { deadline: deps.deadline }
  const found =
    brief.orgId === undefined
      ? await discoverOrganization(deps.apis, options, deps.notice)
      : { orgId: brief.orgId }
  if ('error' in found) {
    const report = reportOf({ outcome: 'error', ...found }, startedAt, deps.clock.now())
    return { kind: 'not-started', report: await diagnose(report, deps.apis, { repository: '' }, options) }
  }
  const api = deps.apis(found.orgId)
  let repoId: number | undefined
  try {
    let carriedFrom: CarriedFrom | undefined
    let prompt = brief.prompt
    if (brief.resumeRunId !== undefined) {
      const refusal = await resumeRefusal(brief, brief.resumeRunId, api, deps, found.orgId)
      if ('resumed' in refusal)
        return { kind: 'started', api, ...refusal.resumed, base: { mode, startedAt, orgId: found.orgId } }
      // Refused: a thread's follow-up carries the thread on in one fresh run; an input resume fails.
      if (!brief.carryOn) throw refusal.error
      carriedFrom = refusal.carriedFrom
      // A shown plan's run's result is that plan, whole in the prompt already (plan-run.ts): not again, cut.
      const shown = brief.plan?.kind === 'approve' || brief.plan?.revises !== undefined
      const earlier = shown ? { ...refusal.earlier, result: null } : refusal.earlier
      prompt = carryOnPrompt(brief.carryOn.prompt, earlier, carriedFrom.reason)
      mode = 'create'
    }
    const fix = brief.ciFix && { branch: brief.ciFix.branch, maxAttempts: brief.ciFix.maxAttempts }
    const admission = brief.setupCommands
      ? undefined
      : await deps.dailyLimit?.(found.orgId, brief.origin, fix)
    if (admission && !admission.admitted) return limitedStart(admission, found.orgId, startedAt, deps)
    const fixAttempt = admission?.fixAttempt
    repoId = brief.repoId ?? (await lookUpRepository(brief, api, deps))
    const run = brief.setupCommands
      ? await startSetupCommands(brief, repoId, api, deps.deadline)
      : await createOnce({ ...brief, prompt }, repoId, api, deps, fixAttempt)
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
            repoId: repoId ?? brief.repoId,
            repository: brief.repositoryRequired || brief.setupCommands ? (brief.repository ?? '') : ''
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
  brief: RunBrief,
  api: AgentRunApi,
  deps: StartDeps
): Promise<number | undefined> {
  const required = brief.repositoryRequired || brief.setupCommands
  if (!brief.repository) {
    if (required) throw new ServiceError('No repository to act on: set the repo-id or repository input.')
    return undefined
  }
  const repoId = (await findRepository(api, { repository: brief.repository }, { deadline: deps.deadline }))
    ?.id
  if (repoId === undefined && required) {
    // A 404 like the service's own "not found", so that the step says why (diagnosis).
    throw new ServiceError(
      `Repository ${brief.repository.slice(0, 200)} is not among the organization's repositories on Codegen.`,
      404
    )
  }
  if (repoId === undefined) {
    deps.warning(
      `Repository ${brief.repository} is not among the organization's repositories on Codegen: the run is created without repo_id (set the repo-id input to choose one).`
    )
  }
  return repoId
}

async function startSetupCommands(
  brief: RunBrief,
  repoId: number | undefined,
  api: AgentRunApi & Pick<OrganizationApi, 'generateSetupCommands'>,
  deadline: number
): Promise<AgentRun> {
  const answer = await api.generateSetupCommands(
    { repo_id: repoId as number, ...(brief.prompt ? { prompt: brief.prompt } : {}) },
    { deadline }
  )
  return api.getRun(answer.agent_run_id, { deadline })
}
