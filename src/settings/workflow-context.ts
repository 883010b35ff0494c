/** The event that asks for a CI fix: a workflow run completed (thread/workflow-run.ts reads it). */
export const CI_FIX_EVENT = 'workflow_run'

/** Where the step runs, read once from the runner's environment variables. */
export interface WorkflowContext {
  repository: string
  serverUrl: string
  apiUrl: string
  runId: string
  runAttempt: string
  workflow: string
  eventName: string
  eventPath: string
  actor: string
  sha: string
  workspace: string
  runnerTemp: string
}

export type Env = Record<string, string | undefined>

export function readWorkflowContext(env: Env): WorkflowContext {
  const read = (name: string, fallback = ''): string => env[name]?.trim() || fallback
  return {
    repository: read('GITHUB_REPOSITORY'),
    serverUrl: read('GITHUB_SERVER_URL', 'https://github.com').replace(/\/+$/, ''),
    apiUrl: read('GITHUB_API_URL', 'https://api.github.com').replace(/\/+$/, ''),
    runId: read('GITHUB_RUN_ID'),
    runAttempt: read('GITHUB_RUN_ATTEMPT', '1'),
    workflow: read('GITHUB_WORKFLOW'),
    eventName: read('GITHUB_EVENT_NAME'),
    eventPath: read('GITHUB_EVENT_PATH'),
    actor: read('GITHUB_ACTOR'),
    sha: read('GITHUB_SHA'),
    workspace: read('GITHUB_WORKSPACE', process.cwd()),
    runnerTemp: read('RUNNER_TEMP')
  }
}

/** Link to the workflow run, or '' outside GitHub Actions. */
export function workflowRunUrl(context: WorkflowContext): string {
  if (!context.repository || !context.runId) return ''
  return `${context.serverUrl}/${context.repository}/actions/runs/${context.runId}`
}

/** Provenance recorded in every run's metadata: where the run came from. */
export function originMetadata(context: WorkflowContext): Record<string, string> {
  return {
    repository: context.repository,
    workflow_run_url: workflowRunUrl(context),
    run_id: context.runId,
    run_attempt: context.runAttempt,
    workflow: context.workflow,
    event: context.eventName,
    actor: context.actor,
    sha: context.sha
  }
}
