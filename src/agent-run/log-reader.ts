import type { AgentRunApi, CallOptions, LogPath } from '../api/client.js'
import { OversizedAnswerError, ServiceError } from '../api/errors.js'
import type { LogPage } from '../api/types.js'

/** The service's page size limit for the log endpoint. */
export const LOG_PAGE_SIZE = 100

/**
 * Pages of large entries are asked for in fewer entries, to stay near this size: memory follows
 * the size of what is read each second, not only of what is kept.
 */
export const TARGET_PAGE_BYTES = 1024 * 1024

/**
 * Reads a run's log through whichever published path of the ALPHA endpoint answers: the interface
 * document's first, the OpenAPI document's on a 404 while the run exists. When neither answers,
 * `read` returns undefined and the caller follows the run's status alone.
 */
export class LogReader {
  private readonly candidates: LogPath[] = ['interface', 'alpha']
  private unavailable = false
  /** Entries asked for per page: fewer while they are large. */
  private pageSize = LOG_PAGE_SIZE

  constructor(
    private readonly api: AgentRunApi,
    private readonly runId: number,
    private readonly onUnavailable: (message: string) => void
  ) {}

  get available(): boolean {
    return !this.unavailable
  }

  async read(skip: number, limit: number, options?: CallOptions): Promise<LogPage | undefined> {
    while (!this.unavailable) {
      const path = this.candidates[0] as LogPath
      const asked = Math.max(1, Math.min(limit, this.pageSize))
      try {
        const page = await this.api.getLogs(this.runId, path, skip, asked, options)
        this.sizePages(page, asked)
        return { ...page, full: page.logs.length >= asked }
      } catch (error) {
        // Too large a page: the same entries, fewer at a time.
        if (error instanceof OversizedAnswerError && asked > 1) {
          this.pageSize = Math.floor(asked / 4) || 1
          continue
        }
        if (!(error instanceof ServiceError) || error.httpStatus !== 404) throw error
        // A 404 means "no such run" or "no such path": only a run that exists proves the latter.
        await this.api.getRun(this.runId, options)
        this.candidates.shift()
        if (this.candidates.length === 0) {
          this.unavailable = true
          this.onUnavailable(
            'The run log is unavailable (the log endpoint answered 404 on both published paths); following the run status only.'
          )
        }
      }
    }
    return undefined
  }

  /** Fewer entries a page after a large one, more again after small ones. */
  private sizePages(page: LogPage, asked: number): void {
    if (page.bytes === undefined || page.logs.length === 0) return
    if (page.bytes > TARGET_PAGE_BYTES)
      this.pageSize = Math.max(1, Math.floor((page.logs.length * TARGET_PAGE_BYTES) / page.bytes))
    else if (page.bytes < TARGET_PAGE_BYTES / 4) this.pageSize = Math.min(LOG_PAGE_SIZE, asked * 2)
  }
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
  const first = await logs.read(0, LOG_PAGE_SIZE, { deadline })
  if (!first) return { count: 0, status: null, result: undefined }
  const result = first.result
  let count = 0
  let page: LogPage | undefined = first
  if (
    (first.logs.length === LOG_PAGE_SIZE || first.full === true) &&
    first.totalLogs !== null &&
    first.totalLogs > LOG_PAGE_SIZE + 1
  ) {
    count = first.totalLogs - 1
    page = await logs.read(count, LOG_PAGE_SIZE, { deadline })
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
    if (page.logs.length < LOG_PAGE_SIZE && !page.full) return { count, status: page.status, result }
    page = await logs.read(count, LOG_PAGE_SIZE, { deadline })
  }
}
