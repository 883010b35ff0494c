import type { AgentRunApi, CallOptions, LogPath } from '../api/client.js'
import { OversizedAnswerError, ServiceError } from '../api/errors.js'
import type { LogPage } from '../api/types.js'

/** The service's page size limit for the log endpoint. */
export const LOG_PAGE_LIMIT = 100

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
  private pageLimit = LOG_PAGE_LIMIT

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
      const asked = Math.max(1, Math.min(limit, this.pageLimit))
      try {
        const page = await this.api.getLogs(this.runId, path, skip, asked, options)
        this.sizePages(page, asked)
        return { ...page, full: page.logs.length >= asked }
      } catch (error) {
        // Too large a page: the same entries, fewer at a time.
        if (error instanceof OversizedAnswerError && asked > 1) {
          this.pageLimit = Math.floor(asked / 4) || 1
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
      this.pageLimit = Math.max(1, Math.floor((page.logs.length * TARGET_PAGE_BYTES) / page.bytes))
    else if (page.bytes < TARGET_PAGE_BYTES / 4) this.pageLimit = Math.min(LOG_PAGE_LIMIT, asked * 2)
  }
}
