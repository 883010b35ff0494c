import { HttpAgentRunApi, type CallOptions } from '../api/client.js'
import { CancelledError, DeadlineError, ServiceError } from '../api/errors.js'
import { RateBudget } from '../api/rate-budget.js'
import { renderCheckSummary } from './check-summary.js'
import { OUTPUT_NAMES, setupOutputs } from '../report/outputs.js'
import { redactDeep } from '../redact.js'
import { runAgent, type RunEvents, type RunPlan, type RunReport } from '../agent-run/agent-run.js'
import type { Clock } from '../clock.js'
import type { Runner } from '../runner/runner.js'
import type { Settings } from '../settings/settings.js'
import {
  inspectSetup,
  isRefusalStatus,
  type Inspection,
  type OrganizationApis,
  type SetupTarget
} from './inspect.js'
import { chooseOrganization, listOrganizations, oneLine } from './organizations.js'

/** `task: check`: the inspection, or the fault that cut it short (a 5xx, the deadline...). */
export async function checkSetup(
  apis: OrganizationApis,
  target: SetupTarget,
  options: CallOptions
): Promise<{ inspection: Inspection; error?: string }> {
  // What was found before a fault (a 5xx, the deadline) is shown with it.
  const inspection: Inspection = { rows: [] }
  try {
    return { inspection: await inspectSetup(apis, target, { ...options, role: true }, inspection) }
  } catch (error) {
    if (error instanceof ServiceError || error instanceof DeadlineError || error instanceof CancelledError) {
      return { inspection, error: `The check could not finish: ${error.message}` }
    }
    throw error
  }
}

/**
 * The organization to act on when org-id is empty: the token's only one (said in a notice). Several
 * or none is an error to fix before anything is created.
 */
export async function discoverOrganization(
  apis: OrganizationApis,
  options: CallOptions,
  notice: (message: string) => void
): Promise<{ orgId: number } | { error: string; httpStatus?: number }> {
  try {
    const choice = chooseOrganization(await listOrganizations(apis(undefined), options))
    if ('problem' in choice) return { error: choice.problem }
    const { id, name } = choice.organization
    notice(
      `Using organization ${id} (${oneLine(name)}), the token's only organization; set org-id to choose.`
    )
    return { orgId: id }
  } catch (error) {
    if (error instanceof ServiceError)
      return {
        error: `Could not find the organization to act on: ${error.message}`,
        httpStatus: error.httpStatus
      }
    if (error instanceof DeadlineError || error instanceof CancelledError) return { error: error.message }
    throw error
  }
}

/**
 * A step stopped by a 401, 403 or 404 before any run existed: the check's reads say why, in place
 * of the bare status. Only on that failure: the happy path sends none of these requests.
 */
export async function diagnose(
  report: RunReport,
  apis: OrganizationApis,
  target: SetupTarget,
  options: CallOptions
): Promise<RunReport> {
  if (report.run || report.outcome !== 'error' || !isRefusalStatus(report.httpStatus)) return report
  let inspection: Inspection
  try {
    inspection = await inspectSetup(apis, target, options)
  } catch {
    // The reads failed too: the service's own answer is all there is to say.
    return report
  }
  if (!inspection.problem) return report
  return {
    ...report,
    error: `${inspection.problem}\n(${report.error ?? `the service answered ${report.httpStatus}`})`
  }
}

/** The service's clients by organization id (undefined: the calls not scoped to one). */
export type ServiceClients = (orgId: number | undefined) => HttpAgentRunApi

/**
 * One client per organization id, sharing one rate budget: the limits are the token's, whatever the
 * organization.
 */
export function serviceClients(
  settings: Pick<Settings, 'baseUrl' | 'apiToken'>,
  clock: Clock,
  signal: AbortSignal,
  debug: (message: string) => void,
  env: Record<string, string | undefined>
): ServiceClients {
  const budget = new RateBudget()
  const clients = new Map<number, HttpAgentRunApi>()
  // Undocumented, for the fault-injection tests: a per-request time limit below the default 30 s.
  const requestTimeoutMs = Number(env.CODEGEN_REQUEST_TIMEOUT_MS)
  return orgId => {
    const key = orgId ?? 0
    let client = clients.get(key)
    if (!client) {
      client = new HttpAgentRunApi({
        baseUrl: settings.baseUrl,
        token: settings.apiToken,
        orgId: key,
        budget,
        clock,
        signal,
        requestTimeoutMs: requestTimeoutMs > 0 ? requestTimeoutMs : undefined,
        debug
      })
      clients.set(key, client)
    }
    return client
  }
}

/**
 * `task: check`: reads the set-up, shows it (console lines, the summary's table, the outputs) and
 * creates nothing. Returns the first problem, which fails the step.
 */
export async function runCheck(
  settings: Pick<Settings, 'orgId' | 'repoId' | 'repository' | 'timeoutMs'>,
  apis: OrganizationApis,
  clock: Clock,
  runner: Runner,
  secrets: string[]
): Promise<string | undefined> {
  const target: SetupTarget = {
    orgId: settings.orgId,
    repoId: settings.repoId,
    repository: settings.repository
  }
  const options = { deadline: clock.now() + settings.timeoutMs }
  const { inspection, error } = redactDeep(await checkSetup(apis, target, options), secrets)
  const failure = inspection.problem ?? error
  const outputs: Record<string, string> = {
    ...Object.fromEntries(OUTPUT_NAMES.map(name => [name, ''])),
    outcome: failure ? 'error' : 'success',
    ...setupOutputs(inspection)
  }
  for (const name of OUTPUT_NAMES) runner.setOutput(name, outputs[name] ?? '')
  for (const row of inspection.rows)
    runner.info(`${row.item}: ${row.state}${row.found ? ` (${row.found})` : ''}`)
  await runner.appendSummary(renderCheckSummary(inspection, error))
  if (!failure) runner.info('The set-up is ready: nothing was created.')
  return failure
}

export interface OrganizationRunDeps {
  apis: ServiceClients
  clock: Clock
  signal: AbortSignal
  notice: (message: string) => void
  events: RunEvents
}

/**
 * Runs the plan on the organization (org-id, else the token's only one, found before anything is
 * created); a refusal (401, 403, 404) before a run existed is explained by the check's reads.
 */
export async function runOnOrganization(
  plan: RunPlan,
  settings: Pick<Settings, 'orgId' | 'repoId' | 'repository' | 'timeoutMs'>,
  deps: OrganizationRunDeps
): Promise<{ report: RunReport; orgId?: number }> {
  const { apis, clock, signal, events } = deps
  const startedAt = clock.now()
  const options = { deadline: startedAt + settings.timeoutMs }
  const found =
    settings.orgId === undefined
      ? await discoverOrganization(apis, options, deps.notice)
      : { orgId: settings.orgId }
  if ('error' in found) {
    const { error, httpStatus } = found
    const report: RunReport = {
      outcome: 'error',
      mode: 'create',
      status: '',
      startedAt,
      endedAt: clock.now(),
      entriesSeen: 0,
      error,
      httpStatus
    }
    return { report: await diagnose(report, apis, { repository: '' }, options) }
  }
  const api = apis(found.orgId)
  const report = await runAgent(plan, { api, setupCommands: api, clock, signal, events })
  // Only what the step used is questioned: a resume names no repository; a create, the one it sent
  // (or the one it was told to find).
  const used: SetupTarget =
    plan.resumeRunId !== undefined
      ? { orgId: found.orgId, repository: '' }
      : {
          orgId: found.orgId,
          repoId: report.repoId ?? settings.repoId,
          repository: plan.repositoryRequired || plan.setupCommands ? settings.repository : ''
        }
  return { report: await diagnose(report, apis, used, options), orgId: found.orgId }
}
