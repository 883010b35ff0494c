import type { CallOptions } from '../api/client.js'
import { CancelledError, DeadlineError, ServiceError } from '../api/errors.js'
import type { RunReport } from '../run/agent-run.js'
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
  try {
    return { inspection: await inspectSetup(apis, target, { ...options, role: true }) }
  } catch (error) {
    if (error instanceof ServiceError || error instanceof DeadlineError || error instanceof CancelledError) {
      return { inspection: { rows: [] }, error: `The check could not finish: ${error.message}` }
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
