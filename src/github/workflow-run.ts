import { jsonObject, jsonPositive, jsonText } from '../json.js'
/**
 * Reads a workflow_run event into the failure a CI fix is asked for, or says why nothing is started:
 * a run that did not fail, or one of a fork's branch (its code and logs are a stranger's). Pure: what
 * GitHub is asked afterwards (the jobs, their logs, the pull request's title) is ci-fix.ts's.
 */

/** The conclusions a CI fix is asked for; any other (success, cancelled, skipped, neutral…) starts nothing. */
const FAILED_CONCLUSIONS = new Set(['failure', 'timed_out'])

/** The workflow run that failed, as the event gives it. */
export interface FailedWorkflowRun {
  id: number
  /** The workflow's name ('' when the event gives none). */
  workflow: string
  runNumber: number
  runAttempt: number
  /** Its page on GitHub ('' when the event's is not an https or http address). */
  url: string
  /** failure or timed_out. */
  conclusion: string
  /** What ran it: pull_request, push… */
  event: string
  headBranch: string
  headSha: string
  /** The pull request whose head is the branch, when the event names one (none for a fork's: skipped). */
  pullRequest?: number
}

export type WorkflowRunTrigger = { kind: 'fix'; run: FailedWorkflowRun } | { kind: 'skip'; reason: string }

/** A name for messages: one line, within 100 characters. */
const shortName = (name: string): string => name.replace(/\s+/g, ' ').trim().slice(0, 100)

/**
 * The failure to fix, or why there is none. `repository` is owner/name of the workflow's own
 * repository (GITHUB_REPOSITORY), used when the event's is missing.
 */
export function readWorkflowRun(payload: unknown, repository: string): WorkflowRunTrigger {
  const event = jsonObject(payload)
  const run = jsonObject(event.workflow_run)
  const action = jsonText(event.action)
  if (action !== 'completed')
    return skip(
      `workflow_run events with action "${shortName(action)}" never trigger a run; only "completed" does.`
    )
  const id = jsonPositive(run.id)
  const headBranch = jsonText(run.head_branch)
  const headSha = jsonText(run.head_sha)
  if (id === undefined || !headBranch || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/i.test(headSha))
    return skip('The event names no workflow run with a branch and a commit.')
  const workflow = jsonText(run.name) || jsonText(jsonObject(event.workflow).name)
  const runNumber = jsonPositive(run.run_number) ?? 0
  const named = `The workflow run ${workflow ? `${shortName(workflow)} ` : ''}#${runNumber}`
  const conclusion = jsonText(run.conclusion)
  if (!FAILED_CONCLUSIONS.has(conclusion))
    return skip(`${named} concluded ${shortName(conclusion) || 'nothing'}: there is no failure to fix.`)
  const ours = jsonText(jsonObject(event.repository).full_name) || repository
  const head = jsonText(jsonObject(run.head_repository).full_name)
  if (head.toLowerCase() !== ours.toLowerCase())
    return skip(
      `${named} ran on a branch of ${head ? `the fork ${shortName(head)}` : 'a repository GitHub no longer knows'}: its code and logs are a stranger's, so no agent is asked to fix them.`
    )
  const url = jsonText(run.html_url)
  const pullRequest = sameRepositoryPullRequest(
    run.pull_requests,
    headBranch,
    jsonObject(event.repository).id
  )
  return {
    kind: 'fix',
    run: {
      id,
      workflow,
      runNumber,
      runAttempt: jsonPositive(run.run_attempt) ?? 1,
      url: /^https?:\/\//i.test(url) ? url : '',
      conclusion,
      event: jsonText(run.event),
      headBranch,
      headSha: headSha.toLowerCase(),
      ...(pullRequest !== undefined ? { pullRequest } : {})
    }
  }
}

/**
 * The first pull request of the event whose head is the branch, in the repository itself (GitHub
 * lists a fork's none; one whose head repository's id is another is left out all the same).
 */
function sameRepositoryPullRequest(list: unknown, branch: string, repositoryId: unknown): number | undefined {
  if (!Array.isArray(list)) return undefined
  for (const item of list.slice(0, 100)) {
    const pr = jsonObject(item)
    const head = jsonObject(pr.head)
    const headRepositoryId = jsonObject(head.repo).id
    const sameRepository =
      typeof repositoryId !== 'number' ||
      typeof headRepositoryId !== 'number' ||
      headRepositoryId === repositoryId
    const number = jsonPositive(pr.number)
    if (number !== undefined && jsonText(head.ref) === branch && sameRepository) return number
  }
  return undefined
}

function skip(reason: string): WorkflowRunTrigger {
  return { kind: 'skip', reason }
}
