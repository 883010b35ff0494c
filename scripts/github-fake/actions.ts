import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { close, listen, type ServerClock } from '../../emulator/loopback-server.js'
import { queryProblems } from '../github-openapi.js'
import { gitHubError, nodeId, notFound, positiveInteger, timestamp, type Answer } from './answers.js'
import { JOB_LOGS, pageOf, WORKFLOW_RUN_JOBS, type Call } from './routes.js'
import type { FakeJob, FakeWorkflowRun, InvalidQueryRequest, RecordedLogDownload } from './types.js'

/**
 * GitHub Actions' workflow runs as a CI fix reads them: a run's jobs with their steps (paged, the
 * latest attempt's or all), and a job's log, which GitHub does not serve itself: it answers 302 with
 * a signed address on another host (its log storage), valid for about a minute, where the log is
 * read without GitHub's token. The storage is a second loopback listener on another host name
 * (127.0.0.2 by default), recording who came, with which Authorization header. Queries are held to
 * GitHub's REST description (scripts/github-openapi.ts); the token's `actions` permission is a
 * workflow's `permissions:` (none: 403 on both routes).
 */

/** How long a log's signed address holds. */
export const LOG_ADDRESS_TTL_MS = 60_000
/** The storage writes a log in pieces of this size, as a stream. */
const CHUNK_BYTES = 64 * 1024

interface StoredJob extends FakeJob {
  id: number
  runId: number
  runAttempt: number
  steps: NonNullable<FakeJob['steps']>
}

interface StoredRun extends FakeWorkflowRun {
  createdAt: number
  jobs: StoredJob[]
}

export interface ActionsWorld {
  /** The token's `actions` permission, as it is now. */
  permission: () => 'read' | 'none'
  /** owner/name. */
  repository: () => string
  /** Where GitHub's web pages are. */
  web: () => string
  clock: ServerClock
}

export class Actions {
  /** Requests whose query GitHub's REST description refuses (each was answered 422). */
  readonly invalid: InvalidQueryRequest[] = []
  /** Every request the log storage received, in order. */
  readonly downloads: RecordedLogDownload[] = []
  private readonly runs = new Map<number, StoredRun>()
  private readonly jobs = new Map<number, StoredJob>()
  private nextJobId = 8_000_000_001
  /** The storage's signing key: an address made by another fake does not verify here. */
  private readonly key = randomBytes(32)
  private storage: { server: Server; url: string } | undefined

  constructor(private readonly world: ActionsWorld) {}

  /** Adds a completed workflow run with its jobs (each of the run's attempt unless it says another). */
  addWorkflowRun(run: FakeWorkflowRun): void {
    const runAttempt = run.runAttempt ?? 1
    const jobs = run.jobs.map(job => {
      const stored: StoredJob = {
        ...job,
        id: job.id ?? this.nextJobId++,
        runId: run.id,
        runAttempt: job.runAttempt ?? runAttempt,
        steps: job.steps ?? []
      }
      this.jobs.set(stored.id, stored)
      return stored
    })
    this.runs.set(run.id, { ...run, runAttempt, jobs, createdAt: this.world.clock.now() })
  }

  /** Starts the log storage on `host` (another name than GitHub's own). */
  async start(host: string): Promise<void> {
    this.storage = await listen((request, response) => this.serveLog(request, response), 0, host)
  }

  async stop(): Promise<void> {
    const storage = this.storage
    this.storage = undefined
    if (storage) await close(storage.server)
  }

  /** The storage's address, e.g. http://127.0.0.2:PORT. */
  get storageUrl(): string {
    if (!this.storage) throw new Error('The log storage is not started')
    return this.storage.url
  }

  handle(call: Call): Answer {
    const template = call.route.name === 'workflow-run-jobs' ? WORKFLOW_RUN_JOBS : JOB_LOGS
    const problems = queryProblems('GET', template, call.query)
    if (problems.length > 0) {
      this.invalid.push({ method: 'GET', path: call.path, query: call.query, problems })
      return gitHubError(422, `Invalid request.\n\n${problems.join('\n')}`, call.route.documentationUrl)
    }
    if (this.world.permission() === 'none')
      return gitHubError(403, 'Resource not accessible by integration', call.route.documentationUrl)
    return call.route.name === 'workflow-run-jobs' ? this.listJobs(call) : this.jobLogs(call)
  }

  private listJobs(call: Call): Answer {
    const id = positiveInteger(call.params.run_id)
    const run = id === undefined ? undefined : this.runs.get(id)
    if (!run) return notFound(call.route.documentationUrl)
    // latest (the default): the jobs of the run's latest attempt; all: every attempt's.
    const jobs =
      (call.query.filter ?? 'latest') === 'latest'
        ? run.jobs.filter(job => job.runAttempt === run.runAttempt)
        : run.jobs
    return pageOf(
      call,
      jobs,
      job => this.wireJob(run, job, call.api),
      (items, total) => ({ total_count: total, jobs: items })
    )
  }

  private jobLogs(call: Call): Answer {
    const id = positiveInteger(call.params.job_id)
    const job = id === undefined ? undefined : this.jobs.get(id)
    if (!job) return notFound(call.route.documentationUrl)
    if (job.log === null) return gitHubError(410, 'Gone', call.route.documentationUrl)
    const expires = this.world.clock.now() + LOG_ADDRESS_TTL_MS
    const address = `${this.storageUrl}/jobs/${job.id}/signedlogcontent?expires=${expires}&sig=${this.sign(job.id, expires)}`
    return { status: 302, value: undefined, headers: { location: address } }
  }

  private sign(jobId: number, expires: number): string {
    return createHmac('sha256', this.key).update(`${jobId}:${expires}`).digest('hex')
  }

  /** The storage: the log behind a signed, unexpired address; no GitHub token expected (or taken). */
  private serveLog(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://storage.fake')
    const record: RecordedLogDownload = {
      at: this.world.clock.now(),
      method: request.method ?? 'GET',
      host: request.headers.host ?? '',
      path: url.pathname,
      authorization: request.headers.authorization,
      status: 0
    }
    this.downloads.push(record)
    request.resume()
    const answer = (status: number, text: string): void => {
      record.status = status
      response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text)
    }
    const jobId = Number(/^\/jobs\/(\d+)\/signedlogcontent$/.exec(url.pathname)?.[1])
    const job = this.jobs.get(jobId)
    const expires = Number(url.searchParams.get('expires'))
    const given = Buffer.from(url.searchParams.get('sig') ?? '')
    const expected = Buffer.from(this.sign(jobId, expires))
    if (request.method !== 'GET' || !job) return answer(404, 'The specified resource does not exist.')
    // A signed address carries its own authority: a request that also sends a token is refused.
    if (request.headers.authorization !== undefined)
      return answer(
        400,
        'Authentication information is not given in the correct format: a signed address takes no Authorization header.'
      )
    if (
      given.length !== expected.length ||
      !timingSafeEqual(given, expected) ||
      expires < this.world.clock.now()
    )
      return answer(
        403,
        'Server failed to authenticate the request: the signature does not match or has expired.'
      )
    const body = typeof job.log === 'string' ? Buffer.from(job.log) : Buffer.from(job.log ?? '')
    record.status = 200
    response.writeHead(200, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(body.length)
    })
    for (let at = 0; at < body.length; at += CHUNK_BYTES) response.write(body.subarray(at, at + CHUNK_BYTES))
    response.end()
  }

  private wireJob(run: StoredRun, job: StoredJob, api: string): Record<string, unknown> {
    const repository = this.world.repository()
    const at = timestamp(run.createdAt)
    return {
      id: job.id,
      run_id: run.id,
      run_url: `${api}/repos/${repository}/actions/runs/${run.id}`,
      run_attempt: job.runAttempt,
      node_id: nodeId('CheckRun', job.id),
      head_sha: run.headSha,
      url: `${api}/repos/${repository}/actions/jobs/${job.id}`,
      html_url: `${this.world.web()}/${repository}/actions/runs/${run.id}/job/${job.id}`,
      status: 'completed',
      conclusion: job.conclusion,
      created_at: at,
      started_at: at,
      completed_at: at,
      name: job.name,
      steps: job.steps.map((step, index) => ({
        name: step.name,
        status: 'completed',
        conclusion: step.conclusion,
        number: step.number ?? index + 1,
        started_at: at,
        completed_at: at
      })),
      check_run_url: `${api}/repos/${repository}/check-runs/${job.id}`,
      labels: ['ubuntu-latest'],
      runner_id: 1,
      runner_name: 'GitHub Actions 1',
      runner_group_id: 2,
      runner_group_name: 'GitHub Actions',
      workflow_name: run.name,
      head_branch: run.headBranch
    }
  }
}
