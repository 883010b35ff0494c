import type { FailedJob, GitHubApi } from './api.js'
import { logTail, TailBuffer, type LogTail } from './log-tail.js'
import type { Octokit, OctokitConfig, RepoParams } from './octokit.js'
import { nullBodyStatus, readTail, withoutLength } from './timed-fetch.js'

/** Pages of a workflow run's jobs read at most: a run has at most 256 jobs of a matrix, and a few more. */
export const MAX_JOB_PAGES = 5

/** The conclusions of a job (and of a step) that failed: the ones a CI fix looks at. */
const FAILED = new Set(['failure', 'timed_out'])

/** The failed jobs of a workflow run and the ends of their logs, as a CI fix reads them (octokit-api.ts hands them here). */
export class JobLogs implements Pick<GitHubApi, 'failedJobs' | 'jobLogTail'> {
  constructor(
    private readonly octokit: Octokit,
    private readonly repoParams: RepoParams,
    private readonly config: OctokitConfig
  ) {}

  async failedJobs(runId: number): Promise<{ jobs: FailedJob[]; failedCount: number }> {
    let pages = 0
    const all = await this.octokit.paginate(
      this.octokit.rest.actions.listJobsForWorkflowRun,
      { ...this.repoParams, run_id: runId, filter: 'latest', per_page: 100 },
      (response, done) => {
        if (++pages >= MAX_JOB_PAGES) done()
        return response.data
      }
    )
    const failed = all.filter(job => FAILED.has(job.conclusion ?? ''))
    const jobs = failed.map(job => ({
      id: job.id,
      name: job.name,
      conclusion: job.conclusion ?? '',
      failedSteps: (job.steps ?? [])
        .filter(step => FAILED.has(step.conclusion ?? ''))
        .map(step => ({ number: step.number, name: step.name, conclusion: step.conclusion ?? '' }))
    }))
    return { jobs, failedCount: failed.length }
  }

  async jobLogTail(jobId: number): Promise<LogTail> {
    const { clock, signal, apiUrl } = this.config
    const fetch = this.config.fetch ?? globalThis.fetch
    // GitHub's answer itself (a redirect, or the log when a server serves it at once) read as a stream too.
    let direct: TailBuffer | undefined
    const answer = await this.octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
      ...this.repoParams,
      job_id: jobId,
      request: {
        redirect: 'manual',
        fetch: async (input: string, init: RequestInit) => {
          const read = await readTail(fetch, clock, signal, input, init)
          direct = read.tail
          return new Response(nullBodyStatus(read.status) ? null : read.tail.bytes(), {
            status: read.status,
            headers: withoutLength(read.headers)
          })
        }
      }
    })
    if (answer.status < 300 || answer.status >= 400) {
      const tail = direct ?? new TailBuffer()
      return logTail(tail.bytes(), tail.total)
    }
    // Said apart: an empty Location would resolve to the API's own address, which is no log.
    const location = (answer.headers as Record<string, string | undefined>).location?.trim()
    if (!location)
      throw new Error(`GitHub answered ${answer.status} without a Location header: no log address to follow`)
    // The address itself is never shown: it is signed for this read.
    const storage = URL.canParse(location, apiUrl) ? new URL(location, apiUrl) : undefined
    if (!storage || !/^https?:$/.test(storage.protocol))
      throw new Error(
        `GitHub answered ${answer.status} with a Location that is no http(s) address: no log address to follow`
      )
    // Another host, signed for this read: the token is not sent there (nothing but the address is).
    const read = await readTail(fetch, clock, signal, storage.href, { method: 'GET', redirect: 'follow' })
    if (read.status !== 200) throw new Error(`the log's storage answered ${read.status}`)
    return logTail(read.tail.bytes(), read.tail.total)
  }
}
