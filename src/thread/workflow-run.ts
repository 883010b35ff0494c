import { jsonObject, jsonPositive, jsonText } from '../json.js'
import { stripInvisible } from '../text.js'
/**
 * Reads a workflow_run event into the failure a CI fix is asked for, or says why nothing is started:
 * a run that did not fail, one of a fork's branch (its code and logs are a stranger's), one of the
 * default branch, or of a branch no open pull request of this repository has for its head (a fix is
 * pushed to a pull request's branch only). Whether a pull request is open is the event's word: GitHub
 * lists there the open pull requests whose head is the run's branch or commit, none for a fork's.
 * Pure: what GitHub is asked afterwards (the jobs, their logs, the pull request's title) is ci-fix.ts's.
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
  /** The open pull request of this repository whose head is the branch (without one: skipped). */
  pullRequest: number
}

export type WorkflowRunTrigger = { kind: 'fix'; run: FailedWorkflowRun } | { kind: 'skip'; reason: string }

/** The characters of a branch's name the prompt shows; a longer one is no CI fix's. */
export const BRANCH_CHARS = 300

/**
 * Whether the prompt can show the branch's name whole: within BRANCH_CHARS, nothing that its one
 * line of hostile text leaves out (invisible characters, white space; git allows the former).
 */
export const shownWhole = (branch: string): boolean =>
  branch.length <= BRANCH_CHARS && stripInvisible(branch).replace(/\s+/g, ' ').trim() === branch

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
  const onBranch = `${named} ran on the branch ${shortName(headBranch)}`
  // The agent is told the branch to push to: a name the prompt could not show whole is none it is given.
  if (!shownWhole(headBranch))
    return skip(
      `${onBranch}, whose name the prompt cannot show whole (longer than ${BRANCH_CHARS} characters, or with invisible characters): no agent is told to push to it.`
    )
  const defaultBranch = jsonText(jsonObject(event.repository).default_branch)
  if (!defaultBranch || headBranch === defaultBranch)
    return skip(
      `${defaultBranch ? `${onBranch}, the default branch` : `The event does not name the default branch of ${shortName(ours)}`}: a CI fix pushes only to a pull request's branch, never to the default branch.`
    )
  const pullRequest = sameRepositoryPullRequest(
    run.pull_requests,
    headBranch,
    jsonObject(event.repository).id
  )
  if (pullRequest === undefined)
    return skip(
      `${onBranch}, the head of no open pull request of ${shortName(ours)}: a CI fix pushes only to a pull request's branch.`
    )
  const url = jsonText(run.html_url)
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
      pullRequest
    }
  }
}

/**
 * The first pull request of the event whose head is the branch, in the repository itself (GitHub
 * lists a fork's none; one whose head or base repository's id is another, such as a pull request
 * into the repository this one forks, is left out all the same).
 */
function sameRepositoryPullRequest(list: unknown, branch: string, repositoryId: unknown): number | undefined {
  if (!Array.isArray(list)) return undefined
  const ours = (id: unknown): boolean =>
    typeof repositoryId !== 'number' || typeof id !== 'number' || id === repositoryId
  for (const item of list.slice(0, 100)) {
    const pr = jsonObject(item)
    const head = jsonObject(pr.head)
    const sameRepository = ours(jsonObject(head.repo).id) && ours(jsonObject(jsonObject(pr.base).repo).id)
    const number = jsonPositive(pr.number)
    if (number !== undefined && jsonText(head.ref) === branch && sameRepository) return number
  }
  return undefined
}

function skip(reason: string): WorkflowRunTrigger {
  return { kind: 'skip', reason }
}
