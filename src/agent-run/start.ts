import { randomUUID } from 'node:crypto'
import type { AgentRunApi } from '../api/client.js'
import { AmbiguousWriteError, ServiceError } from '../api/errors.js'
import { searchPages } from '../api/paging.js'
import { backoffDelay } from '../api/retry.js'
import type { AgentRun, CreateRunRequest, LogPage } from '../api/types.js'
import type { Clock } from '../clock.js'
import { LOG_PAGE_LIMIT, type LogReader } from './log-reader.js'
import { classifyStatus } from './status.js'

/** Key of the metadata object in which every run records where it came from. */
export const METADATA_KEY = 'github_action'

/** A write whose fate was unknown is sent at most this many times in all, each after checking. */
const MAX_WRITE_SENDS = 3

export interface StartDeps {
  api: AgentRunApi
  clock: Clock
  signal?: AbortSignal
  notice: (message: string) => void
  random?: () => number
}

/** The repository id of `fullName` among the organization's repositories (all pages, any case). */
export async function findRepoId(
  api: AgentRunApi,
  fullName: string,
  deadline: number
): Promise<number | undefined> {
  const wanted = fullName.toLowerCase()
  const read = (skip: number, limit: number) => api.listRepos(skip, limit, { deadline })
  const match = await searchPages(read, repo => repo.full_name.toLowerCase() === wanted)
  return match?.id
}

export function newIdempotencyKey(): string {
  return randomUUID()
}

/**
 * Creates the run exactly once. When a create's fate is unknown (reset, time-out, 5xx, unreadable
 * answer), the run is looked up by the idempotency key recorded in its metadata before any resend.
 */
export async function createRunOnce(
  deps: StartDeps,
  request: CreateRunRequest,
  idempotencyKey: string,
  deadline: number
): Promise<{ run: AgentRun }> {
  for (let send = 1; ; send++) {
    try {
      return { run: await deps.api.createRun(request, { deadline }) }
    } catch (error) {
      if (!(error instanceof AmbiguousWriteError)) throw error
      deps.notice(`${error.message}. Checking whether the run was created before sending again.`)
      await deps.clock.sleep(backoffDelay(send, (deps.random ?? Math.random)()), deps.signal)
      const found = await findRunByKey(deps.api, idempotencyKey, deadline)
      if (found) {
        deps.notice(`Found agent run ${found.id}: the create had reached the service; it is not sent again.`)
        return { run: found }
      }
      if (send >= MAX_WRITE_SENDS) {
        throw new ServiceError(`${error.message} (sent ${send} times; no run was created)`, error.httpStatus)
      }
    }
  }
}

async function findRunByKey(api: AgentRunApi, key: string, deadline: number): Promise<AgentRun | undefined> {
  // The newest runs come first: the one we look for is among the first two pages. Runs created
  // meanwhile move the listing: only a short page ends it.
  return searchPages(
    (skip, limit) => api.listRuns(skip, limit, { deadline }),
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

/** The log as it stood before a resume: its entries, and the run's status and result then. */
export interface LogBaseline {
  count: number
  status: string | null
  /** undefined when the log did not say. */
  result: string | null | undefined
}

/**
 * How many entries the run's log holds now: a resumed run's new work starts after them. Counted from
 * the entries served, since total_logs may lag behind or run ahead of them: a short log in one read;
 * a long one from just before its total_logs, or page by page when nothing is served there.
 */
export async function countLogEntries(logs: LogReader, deadline: number): Promise<LogBaseline> {
  const first = await logs.read(0, LOG_PAGE_LIMIT, { deadline })
  if (!first) return { count: 0, status: null, result: undefined }
  const result = first.result
  let count = 0
  let page: LogPage | undefined = first
  if (
    (first.logs.length === LOG_PAGE_LIMIT || first.full === true) &&
    first.totalLogs !== null &&
    first.totalLogs > LOG_PAGE_LIMIT + 1
  ) {
    count = first.totalLogs - 1
    page = await logs.read(count, LOG_PAGE_LIMIT, { deadline })
    if (page?.logs.length === 0) {
      // total_logs ran ahead of the log: count it from the second page on.
      count = 0
      page = first
    }
  }
  for (;;) {
    if (!page) return { count, status: first.status, result }
    count += page.logs.length
    // A short page ends the log, unless the reader asked for fewer (large entries).
    if (page.logs.length < LOG_PAGE_LIMIT && !page.full) return { count, status: page.status, result }
    page = await logs.read(count, LOG_PAGE_LIMIT, { deadline })
  }
}

/**
 * Resumes the run exactly once. When a resume's fate is unknown, the run is watched for a while for
 * a sign that it restarted (a working status or new entries) before the resume is sent again.
 */
export async function resumeRunOnce(
  deps: StartDeps,
  logs: LogReader,
  request: { agent_run_id: number; prompt: string; images?: string[] },
  before: LogBaseline,
  confirmWindowMs: number,
  deadline: number
): Promise<{ run: AgentRun; restarted: boolean }> {
  for (let send = 1; ; send++) {
    try {
      return { run: await deps.api.resumeRun(request, { deadline }), restarted: false }
    } catch (error) {
      if (!(error instanceof AmbiguousWriteError)) throw error
      deps.notice(`${error.message}. Checking whether the run restarted before sending again.`)
      const restarted = await waitForRestart(
        deps,
        logs,
        request.agent_run_id,
        before,
        confirmWindowMs,
        deadline
      )
      if (restarted) {
        deps.notice(
          `Agent run ${restarted.id} restarted: the resume had reached the service; it is not sent again.`
        )
        return { run: restarted, restarted: true }
      }
      if (send >= MAX_WRITE_SENDS) {
        throw new ServiceError(
          `${error.message} (sent ${send} times; the run did not restart)`,
          error.httpStatus
        )
      }
    }
  }
}

async function waitForRestart(
  deps: StartDeps,
  logs: LogReader,
  runId: number,
  before: LogBaseline,
  windowMs: number,
  deadline: number
): Promise<AgentRun | undefined> {
  const until = Math.min(deadline, deps.clock.now() + windowMs)
  for (let check = 1; deps.clock.now() < until; check++) {
    await deps.clock.sleep(
      Math.min(backoffDelay(check, (deps.random ?? Math.random)()), until - deps.clock.now()),
      deps.signal
    )
    const page = await logs.read(before.count, 1, { deadline })
    const run = page ? undefined : await deps.api.getRun(runId, { deadline })
    const status = page ? page.status : (run?.status ?? null)
    const result = page ? page.result : run?.result
    // Signs of a restart: a working status (null says nothing: the ALPHA endpoint drifts), new
    // entries, or a new result (a run may restart and end between two checks without an entry).
    const working = status !== null && classifyStatus(status) === 'working'
    const newResult = !!before.result && !!result && result !== before.result
    if (working || (page && page.logs.length > 0) || newResult) {
      return run ?? (await deps.api.getRun(runId, { deadline }))
    }
  }
  return undefined
}
