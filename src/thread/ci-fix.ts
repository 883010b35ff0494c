import type { CiFixBrief, CiFixState } from '../model.js'
import type { Settings } from '../settings/settings.js'
import { workflowRunUrl } from '../settings/workflow-context.js'
import { oneLine } from '../text.js'
import type { GitHubApi } from '../github/api.js'
import { isRateLimit } from '../github/request-policy.js'
import { buildCiFixPrompt, MAX_JOBS_LISTED, MAX_LOGS, type CiFailure, type JobLog } from './ci-fix-prompt.js'
import { markerSignature, type MarkerKey, type OpenedTracking, type TrackingSetup } from './tracking.js'
import type { FailedWorkflowRun } from './workflow-run.js'

/**
 * A CI fix made ready from the failed workflow run (issue #36): the pull request's title, the failed
 * jobs and the end of their logs read from GitHub, the prompt built from them, what the run's
 * metadata records, and the tracking comment on the pull request. GitHub's failures here are
 * warnings: the run starts with the facts it has. Without `actions: read` (a 403 on the jobs or a
 * log), one warning names the permission.
 */

export interface CiFixDeps<T extends OpenedTracking> {
  github: GitHubApi
  warn: (message: string) => void
  /** Every secret in every form replaced: what the tracking comment shows of the event goes through it. */
  redact: <V>(value: V) => V
  /** Opens the pull request's tracking comment (report/tracking-comment.ts's, from decide.ts). */
  openTracking: (setup: TrackingSetup) => T
}

export interface PreparedCiFix<T> {
  prompt: string
  ciFix: CiFixBrief
  tracking?: T
}

/** Characters of GitHub's error message kept in a warning or the prompt. */
const ERROR_CHARS = 300

export async function prepareCiFix<T extends OpenedTracking>(
  run: FailedWorkflowRun,
  settings: Settings,
  deps: CiFixDeps<T>
): Promise<PreparedCiFix<T>> {
  const permission = permissionWarning(run, deps.warn)
  const pullRequest = await readPullRequest(run, deps)
  const { jobs, jobsLeftOut, jobsUnread } = await readJobs(run, deps, permission)
  const logs = await readLogs(jobs ?? [], deps, permission)
  const failure: CiFailure = {
    repository: settings.context.repository,
    run,
    pullRequest,
    ...(jobs ? { jobs, jobsLeftOut } : { jobsUnread }),
    logs,
    instructions: settings.prompt
  }
  const ciFix: CiFixBrief = {
    branch: run.headBranch,
    maxAttempts: settings.maxFixAttempts,
    record: {
      branch: run.headBranch,
      head_sha: run.headSha,
      failed_workflow: run.workflow,
      failed_run_id: run.id,
      failed_run_number: run.runNumber,
      failed_run_attempt: run.runAttempt,
      failed_run_url: run.url,
      conclusion: run.conclusion,
      pull_request: run.pullRequest,
      max_attempts: settings.maxFixAttempts
    }
  }
  const tracking = settings.comment ? trackingComment(run, run.pullRequest, settings, deps) : undefined
  return { prompt: buildCiFixPrompt(failure), ciFix, ...(tracking ? { tracking } : {}) }
}

/** Says once that the token lacks `actions: read`, naming the permission; whether the error was that. */
interface PermissionWarning {
  refused(error: unknown): boolean
}

function permissionWarning(run: FailedWorkflowRun, warn: (message: string) => void): PermissionWarning {
  let said = false
  return {
    refused(error) {
      const { status, message } = error as { status?: number; message?: string }
      if (status !== 403 || isRateLimit(error)) return false
      if (!said)
        warn(
          `Could not read the failed jobs of workflow run ${run.id} or their logs: GitHub answered 403 (${cut(message)}). The token needs the \`actions: read\` permission: add the line \`actions: read\` under the job's \`permissions:\`. The run starts with what the event says (the workflow, the run's link, the branch).`
        )
      said = true
      return true
    }
  }
}

const cut = (message: string | undefined): string => oneLine(message ?? '', ERROR_CHARS)

async function readPullRequest(
  run: FailedWorkflowRun,
  deps: CiFixDeps<OpenedTracking>
): Promise<CiFailure['pullRequest']> {
  try {
    const pr = await deps.github.pullRequest(run.pullRequest)
    return {
      number: run.pullRequest,
      title: pr.title,
      url: pr.url,
      ...(pr.headSha ? { headSha: pr.headSha } : {})
    }
  } catch (error) {
    deps.warn(`Could not read pull request #${run.pullRequest}: ${cut((error as Error).message)}`)
    return { number: run.pullRequest }
  }
}

async function readJobs(
  run: FailedWorkflowRun,
  deps: CiFixDeps<OpenedTracking>,
  permission: PermissionWarning
): Promise<Pick<CiFailure, 'jobs' | 'jobsLeftOut' | 'jobsUnread'>> {
  try {
    const { jobs, failedCount } = await deps.github.failedJobs(run.id)
    const listed = jobs.slice(0, MAX_JOBS_LISTED)
    return { jobs: listed, jobsLeftOut: failedCount - listed.length }
  } catch (error) {
    const message = cut((error as Error).message)
    if (permission.refused(error))
      return { jobsUnread: 'the workflow’s token may not read them: it lacks the `actions: read` permission' }
    deps.warn(
      `Could not read the failed jobs of workflow run ${run.id}: ${message}. The run starts with what the event says.`
    )
    return { jobsUnread: `GitHub answered: ${message}` }
  }
}

/** The end of the first MAX_LOGS failed jobs' logs, one after the other; one warning for those that could not be read. */
async function readLogs(
  jobs: NonNullable<CiFailure['jobs']>,
  deps: CiFixDeps<OpenedTracking>,
  permission: PermissionWarning
): Promise<JobLog[]> {
  const logs: JobLog[] = []
  const failures: string[] = []
  for (const job of jobs.slice(0, MAX_LOGS)) {
    try {
      logs.push({ jobId: job.id, name: job.name, tail: await deps.github.jobLogTail(job.id) })
    } catch (error) {
      const message = cut((error as Error).message)
      const refused = permission.refused(error)
      if (!refused) failures.push(`job ${job.id}: ${message}`)
      logs.push({
        jobId: job.id,
        name: job.name,
        unreadable: refused ? 'the token lacks `actions: read`' : message
      })
    }
  }
  if (failures.length > 0)
    deps.warn(
      `Could not read the log of ${failures.length === 1 ? 'a failed job' : `${failures.length} failed jobs`} (${failures.slice(0, 2).join('; ')}): the agent gets the jobs without ${failures.length === 1 ? 'it' : 'them'}.`
    )
  return logs
}

/** The tracking comment on the pull request: what it fixes, then the run as for a thread's. */
function trackingComment<T extends OpenedTracking>(
  run: FailedWorkflowRun,
  pullNumber: number,
  settings: Settings,
  deps: CiFixDeps<T>
): T {
  const key: MarkerKey = {
    secret: settings.apiToken,
    repository: settings.context.repository,
    issueNumber: pullNumber
  }
  const ciFix: CiFixState = deps.redact({
    workflow: run.workflow,
    runNumber: run.runNumber,
    url: run.url,
    branch: run.headBranch,
    sha: run.headSha,
    maxAttempts: settings.maxFixAttempts
  })
  return deps.openTracking({
    place: pullNumber,
    state: {
      ciFix,
      instruction: '',
      workflowRunUrl: workflowRunUrl(settings.context),
      sign: (commentId, runId) => markerSignature(key, commentId, runId),
      entriesSeen: 0,
      resumed: false,
      triggerPhrase: settings.triggerPhrase
    }
  })
}
