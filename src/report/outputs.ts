import type { RunReport } from '../agent-run/agent-run.js'

/** The action's outputs, in action.yml's order. */
export const OUTPUT_NAMES = [
  'agent-run-id',
  'status',
  'outcome',
  'web-url',
  'result',
  'summary',
  'github-pull-requests',
  'pull-request-url',
  'log-count',
  'log-file',
  'trigger',
  'org-id',
  'repo-id',
  'user',
  'check-run-id'
] as const

export type OutputName = (typeof OUTPUT_NAMES)[number]

/** The organization, repository and token user as the step resolved them ('' where it did not). */
export interface ResolvedSetup {
  orgId?: number
  repoId?: number
  user?: string
}

/**
 * Outputs from the report: every name always set, '' where there is nothing to say. `trigger` is
 * what started the run (inputs, comment, issue, label, assignment, review-comment, review).
 */
export function actionOutputs(
  report: RunReport,
  logFile: string,
  trigger = '',
  resolved: ResolvedSetup = {}
): Record<OutputName, string> {
  const run = report.run
  const pullRequests = run?.github_pull_requests ?? []
  return {
    'agent-run-id': run ? String(run.id) : '',
    status: report.status,
    outcome: report.outcome,
    'web-url': run?.web_url ?? '',
    result: run?.result ?? '',
    summary: run?.summary ?? '',
    'github-pull-requests': JSON.stringify(pullRequests),
    'pull-request-url': pullRequests.map(pr => pr.url).find(url => typeof url === 'string' && url) ?? '',
    'log-count': String(report.entriesSeen),
    'log-file': logFile,
    trigger,
    ...setupOutputs({ ...resolved, repoId: resolved.repoId ?? report.repoId }),
    // Set by the check run's writer once it has written one.
    'check-run-id': ''
  }
}

/** The org-id, repo-id and user outputs alone (task: check sets only these and outcome). */
export function setupOutputs(resolved: ResolvedSetup): Record<'org-id' | 'repo-id' | 'user', string> {
  return {
    'org-id': resolved.orgId === undefined ? '' : String(resolved.orgId),
    'repo-id': resolved.repoId === undefined ? '' : String(resolved.repoId),
    user: resolved.user ?? ''
  }
}
