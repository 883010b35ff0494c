import type { AgentRunApi, CallOptions, LogPath } from '../api/client.js'
import { ServiceError } from '../api/errors.js'
import type { LogPage } from '../api/types.js'

/** The service's page size limit for the log endpoint. */
export const LOG_PAGE_LIMIT = 100

/**
 * Reads a run's log through whichever published path of the ALPHA endpoint answers: the interface
 * document's first, the OpenAPI document's on a 404 while the run exists. When neither answers,
 * `read` returns undefined and the caller follows the run's status alone.
 */
export class LogReader {
  private readonly candidates: LogPath[] = ['interface', 'alpha']
  private unavailable = false

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
      try {
        return await this.api.getLogs(this.runId, path, skip, limit, options)
      } catch (error) {
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
}
