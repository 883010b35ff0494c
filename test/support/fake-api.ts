import type { AgentRunApi, LogPath } from '../../src/api/client.js'
import { ServiceError } from '../../src/api/errors.js'
import type { Pace } from '../../src/api/rate-budget.js'
import type { AgentRun, LogEntry, LogPage, Page, Repo } from '../../src/api/types.js'
import type { FakeClock } from './fake-clock.js'

/** One moment of a scripted run, `at` ms after the fake API was made. */
export interface Moment {
  at: number
  status?: string | null
  entries?: number
  finalAnswer?: boolean
  result?: string
}

/** Far more requests than any scripted run needs. */
const MAX_CALLS = 2_000

/**
 * An in-memory Agent Run service for unit tests of the watcher's logic (the HTTP client and the
 * whole action are tested against the emulator over real HTTP instead).
 */
export class FakeApi implements AgentRunApi {
  readonly calls: string[] = []
  logPaths: LogPath[] = ['interface', 'alpha']
  /** Make total_logs lie by this much. */
  totalSkew = 0
  /** The log endpoint's drift: pages without the run's status, or with result null. */
  pageDrift: { noStatus?: boolean; nullResult?: boolean } = {}
  /** The run endpoint sees the script this much sooner than the log endpoint (they lag differently). */
  runAheadMs = 0
  /** The rate budget's pace for a look, when the test gives one. */
  pace?: Pace
  /** What a stop does: the run ends with this status from then on, or the stop throws this error. */
  stopWith?: string | Error
  private stoppedAs?: string
  private readonly start: number

  constructor(
    private readonly clock: FakeClock,
    private readonly moments: Moment[],
    readonly runId = 7
  ) {
    this.start = clock.now()
  }

  private state(aheadMs = 0): { status: string | null; logs: LogEntry[]; result: string } {
    let status: string | null = null
    let result = 'result'
    const logs: LogEntry[] = []
    for (const moment of this.moments) {
      if (moment.at > this.clock.now() - this.start + aheadMs) break
      if (moment.status !== undefined) status = moment.status
      if (moment.result !== undefined) result = moment.result
      for (let i = 0; i < (moment.entries ?? 0); i++) {
        logs.push({ agent_run_id: this.runId, message_type: 'ACTION', thought: `entry ${logs.length}` })
      }
      if (moment.finalAnswer)
        logs.push({ agent_run_id: this.runId, message_type: 'FINAL_ANSWER', observation: 'done' })
    }
    return { status: this.stoppedAs ?? status, logs, result }
  }

  lookPace(): Pace | undefined {
    return this.pace
  }

  async getRun(runId: number): Promise<AgentRun> {
    this.calls.push('get')
    if (runId !== this.runId) throw new ServiceError('Not found (404)', 404)
    const { status, result } = this.state(this.runAheadMs)
    return { id: runId, organization_id: 1, status, result, summary: `summary of ${result}` }
  }

  async getLogs(runId: number, path: LogPath, skip: number, limit: number): Promise<LogPage> {
    this.calls.push(`logs:${path}:${skip}`)
    // A watcher that never stops reading (a cursor that does not move) fails here, not by exhausting memory.
    if (this.calls.length > MAX_CALLS)
      throw new Error(`more than ${MAX_CALLS} requests: the watcher does not stop`)
    if (runId !== this.runId || !this.logPaths.includes(path)) throw new ServiceError('Not found (404)', 404)
    const { status, logs, result } = this.state()
    return {
      status: this.pageDrift.noStatus ? null : status,
      logs: logs.slice(skip, skip + limit),
      totalLogs: logs.length + this.totalSkew,
      result: this.pageDrift.nullResult ? null : result
    }
  }

  async createRun(): Promise<AgentRun> {
    throw new Error('not scripted')
  }
  /** The run as it stands: a resume that the scripted moments may or may not show taking effect. */
  async resumeRun(): Promise<AgentRun> {
    this.calls.push('resume')
    return this.getRun(this.runId)
  }
  async listRepos(): Promise<Page<Repo>> {
    throw new Error('not scripted')
  }
  async listRuns(): Promise<Page<AgentRun>> {
    throw new Error('not scripted')
  }
  async stopRun(): Promise<AgentRun | undefined> {
    this.calls.push('stop')
    if (this.stopWith === undefined) throw new Error('not scripted')
    if (this.stopWith instanceof Error) throw this.stopWith
    this.stoppedAs = this.stopWith
    return undefined
  }
}
