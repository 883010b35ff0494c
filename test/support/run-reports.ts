import type { RunReport } from '../../src/model.js'

/** A run that succeeded in 3m 12s with one pull request: what the summary and the outputs show of it. */
export const SUCCEEDED: RunReport = {
  outcome: 'success',
  mode: 'create',
  status: 'COMPLETE',
  startedAt: 0,
  endedAt: 192_000,
  entriesSeen: 2,
  run: {
    id: 41,
    organization_id: 1,
    status: 'COMPLETE',
    web_url: 'https://app.codegen.com/agent/trace/41',
    result: 'Fixed the **flaky** test.',
    summary: 'Changed one line.',
    github_pull_requests: [
      {
        id: 9,
        title: 'Fix flaky test',
        url: 'https://github.com/o/r/pull/9',
        created_at: '',
        head_branch_name: 'fix'
      }
    ]
  }
}
