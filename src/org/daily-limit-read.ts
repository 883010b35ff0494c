import { API_RUNS } from '../api/client.js'
import { ServiceError } from '../api/errors.js'
import type { Clock } from '../clock.js'
import type { ServiceClients } from './clients.js'
import type { LimitName } from '../model.js'
import {
  LIMIT_INPUTS,
  limitCheck,
  limitedMessage,
  readDailyWindow,
  type DailyLimits,
  type DailyWindow,
  type Origin
} from './daily-limits.js'

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
 * The organization's API runs of the last 24 hours (the kind the action starts), read on the
 * service newest first, page after page until the window is passed (readDailyWindow). Through the
 * step's clients, so within the token's one rate budget and the job's cancellation; nothing is read
 * when no limit is set. The service's errors are the caller's.
 */
export function readDayOfRuns(read: DailyLimitRead): Promise<DailyWindow> {
  const api = read.clients(read.orgId)
  const { deadline } = read
  return readDailyWindow(
    (skip, limit) => api.listRuns(skip, limit, API_RUNS, { deadline }),
    read.origin,
    read.limits,
    read.clock.now()
  )
}

/** The origin a run records (metadata.github_action) as the limits compare it: a thread's author, else the actor. */
export function limitOrigin(recorded: Record<string, string>): Origin {
  return { repository: recorded.repository ?? '', author: recorded.author ?? recorded.actor ?? '' }
}

/** A CI fix as max-fix-attempts counts it: its branch, and how many fixes a day it may get. */
export interface FixCount {
  branch: string
  maxAttempts: number
}

/**
 * Whether a new run may start: admitted (a CI fix learns which attempt it is), or why not (the
 * notice's text) and which input's limit it reached.
 */
export type Admission =
  | { admitted: true; fixAttempt?: number }
  | { admitted: false; reason: string; limit: LimitName; uncounted?: true }

/**
 * The step's daily limits (and a CI fix's max-fix-attempts): the window read once, at the first run
 * the step would create (a run alone, or any item of `runs`), then each start admitted against it
 * with the step's own starts counted. A resume is no new run and never asks. A read that fails fails
 * every start it was for: a count that could not be made cannot show a run is within the limit, and
 * a limit passed over whenever the service struggles would be no limit.
 */
export class DailyGate {
  private window?: Promise<DailyWindow>
  private readonly ownStarts: number[] = []
  private readonly ownFixes: number[] = []

  constructor(private readonly read: Omit<DailyLimitRead, 'orgId' | 'origin'>) {}

  /** Whether the run may start; admitted, it counts as started (a CI fix as one of its branch too). */
  async admit(orgId: number, recorded: Record<string, string>, fix?: FixCount): Promise<Admission> {
    const origin: Origin = { ...limitOrigin(recorded), ...(fix ? { fixBranch: fix.branch } : {}) }
    this.window ??= readDayOfRuns({ ...this.read, orgId, origin })
    let window: DailyWindow
    try {
      window = await this.window
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error
      throw new ServiceError(
        `The ${fix ? 'CI fix’s attempts (max-fix-attempts)' : 'daily run limits'} could not be counted, so no run was started: ${error.message}`,
        error.httpStatus
      )
    }
    // The step's own starts, made meanwhile, count as this repository's and this author's.
    const now = this.read.clock.now()
    const counted: DailyWindow = {
      complete: window.complete,
      repository: [...window.repository, ...this.ownStarts],
      author: [...window.author, ...this.ownStarts],
      fixes: [...window.fixes, ...this.ownFixes]
    }
    const check = limitCheck(counted, this.read.limits, fix?.maxAttempts ?? 0)
    if (check.kind !== 'within')
      return {
        admitted: false,
        reason: limitedMessage(check, origin),
        limit: LIMIT_INPUTS[check.which],
        ...(check.kind === 'uncounted' ? { uncounted: true as const } : {})
      }
    this.ownStarts.push(now)
    if (!fix) return { admitted: true }
    this.ownFixes.push(now)
    return { admitted: true, fixAttempt: counted.fixes.length + 1 }
  }
}

/**
 * The step's daily limits (daily-run-limit, daily-run-limit-per-author), and a CI fix's attempts
 * (max-fix-attempts, always counted); undefined when none applies.
 */
export function stepDailyGate(
  limits: DailyLimits,
  fixing: boolean,
  clients: ServiceClients,
  clock: Clock,
  deadline: number
): DailyGate | undefined {
  if (limits.perRepository <= 0 && limits.perAuthor <= 0 && !fixing) return undefined
  return new DailyGate({ clients, limits, clock, deadline })
}
