import { API_RUNS } from '../api/client.js'
import type { Clock } from '../clock.js'
import type { ServiceClients } from './clients.js'
import { checkDailyLimits, type DailyLimits, type LimitCheck, type Origin } from './daily-limits.js'

/** What the daily limits are read with: the step's clients, where, for whom, and until when. */
export interface DailyLimitRead {
  clients: ServiceClients
  orgId: number
  /** This repository, and the author whose runs `perAuthor` counts. */
  origin: Origin
  limits: DailyLimits
  clock: Clock
  /** Epoch ms (the step's deadline): every page is read before it, or the read ends in DeadlineError. */
  deadline: number
}

/**
 * Whether a new run may start under the daily limits, read on the service: the organization's API
 * runs (the kind the action starts), newest first, page after page until the 24 hours' window is
 * passed (checkDailyLimits). Through the step's clients, so within the token's one rate budget and
 * the job's cancellation; nothing is read when no limit is set. The service's errors are the caller's.
 */
export function readDailyLimits(read: DailyLimitRead): Promise<LimitCheck> {
  const api = read.clients(read.orgId)
  const { deadline } = read
  return checkDailyLimits(
    (skip, limit) => api.listRuns(skip, limit, { deadline }, API_RUNS),
    read.origin,
    read.limits,
    read.clock.now()
  )
}
