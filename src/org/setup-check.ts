import type { CallOptions } from '../api/client.js'
import { CancelledError, DeadlineError, ServiceError } from '../api/errors.js'
import type { Clock } from '../clock.js'
import { reportOf, type Inspection, type RunReport } from '../model.js'
import { inspectSetup, type OrganizationApis, type SetupTarget } from './inspect.js'

/**
 * `task: check`: reads the set-up and creates nothing. Its report goes to the reporters like a run's:
 * outcome error with the first problem (or the fault that cut the reads short), else success.
 */
export async function runSetupCheck(
  apis: OrganizationApis,
  target: SetupTarget,
  { clock, ...options }: CallOptions & { clock: Clock }
): Promise<RunReport> {
  const startedAt = clock.now()
  const { inspection, error } = await inspectAll(apis, target, options)
  const failure = inspection.problem ?? error
  const { orgId, repoId, user } = inspection
  return reportOf(
    {
      outcome: failure ? 'error' : 'success',
      ...(failure ? { error: failure } : {}),
      orgId,
      repoId,
      user,
      setupCheck: { inspection, ...(error ? { error } : {}) }
    },
    startedAt,
    clock.now()
  )
}

/** The inspection, or the fault that cut it short (a 5xx, the deadline...) with what was found before. */
export async function inspectAll(
  apis: OrganizationApis,
  target: SetupTarget,
  options: CallOptions
): Promise<{ inspection: Inspection; error?: string }> {
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
