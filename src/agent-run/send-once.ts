import { randomUUID } from 'node:crypto'
import { API_RUNS, type AgentRunApi } from '../api/client.js'
import { AmbiguousWriteError, CancelledError, DeadlineError, ServiceError } from '../api/errors.js'
import { searchPages } from '../api/paging.js'
import { backoffDelay } from '../api/retry.js'
import type { AgentRun, CreateRunRequest } from '../api/types.js'
import type { Clock } from '../clock.js'
import type { RunBrief } from '../model.js'
import { isCutShort } from './watcher.js'
import { SERVICE_AFTER_CANCEL_MS, STOP_AND_READ_KEPT_MS } from '../deadlines.js'

/**
 * The service's writes that start a run, each sent exactly once: the create, looked up by its key
 * before any resend and, cut off, looked for late; the rules the resume (resume.ts) shares.
 */

/** Key of the metadata object in which every run records where it came from. */
export const METADATA_KEY = 'github_action'

/** A write whose fate was unknown is sent at most this many times in all, each after checking. */
export const MAX_WRITE_SENDS = 3

/**
 * A create or a resume cut off by the cancellation or the deadline is looked for this often (by its
 * key; for a resume, a sign that the run restarted) until the service's last calls leave only the
 * stop and the last read (deadlines.ts): the service may do it a moment after the cut.
 */
export const LATE_LOOK_SPACING_MS = 500

/** What a write sent once needs of the step: its clock, deadlines and cancellation, its warnings. */
export interface SendDeps {
  clock: Clock
  signal?: AbortSignal
  random?: () => number
  /** Epoch ms at which the step stops waiting (timeout-minutes after it started). */
  deadline: number
  /** What the user should know of the start (a resend, a repository not found). */
  warning(message: string): void
  /**
   * When the service's last calls must end once the step is cut short (Deadlines.lastCallsBy);
   * without it, SERVICE_AFTER_CANCEL_MS after the cut.
   */
  lastCallsBy?: () => number
}

/**
 * Creates the run exactly once. When a create's fate is unknown (reset, time-out, 5xx, unreadable
 * answer), the run is looked up by the idempotency key recorded in its metadata before any resend.
 */
export async function createOnce(
  brief: RunBrief,
  repoId: number | undefined,
  api: AgentRunApi,
  deps: SendDeps,
  fixAttempt: number | undefined
): Promise<AgentRun> {
  const key = randomUUID()
  // A CI fix records what it fixes (and which attempt it is): max-fix-attempts counts by it.
  const ciFix = brief.ciFix && {
    ci_fix: { ...brief.ciFix.record, ...(fixAttempt !== undefined ? { attempt: fixAttempt } : {}) }
  }
  const request: CreateRunRequest = {
    prompt: brief.prompt,
    ...(repoId !== undefined ? { repo_id: repoId } : {}),
    ...(brief.images.length ? { images: brief.images } : {}),
    ...(brief.model ? { model: brief.model } : {}),
    ...(brief.agentType ? { agent_type: brief.agentType } : {}),
    metadata: { ...brief.metadata, [METADATA_KEY]: { ...brief.origin, ...ciFix, idempotency_key: key } }
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
export function cutAfterSending(error: unknown, maybeSent: boolean): error is CancelledError | DeadlineError {
  return isCutShort(error) && (maybeSent || (error instanceof CancelledError && error.inFlight))
}

/** The wait before a write whose fate is unknown is looked for: within the deadline (past it, none). */
function backoffWithin(send: number, deps: SendDeps): number {
  const left = deps.deadline - deps.clock.now()
  if (left <= 0) throw new DeadlineError()
  return Math.min(left, backoffDelay(send, (deps.random ?? Math.random)()))
}

/** Until when a write cut off is looked for: what the service's last calls leave past the stop and the last read. */
export function lateLooksUntil(deps: SendDeps): number {
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
  deps: SendDeps,
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
