import { readFileSync } from 'node:fs'
import type { EmulatedRunView, FaultRule, LogEntry, RunScript, ScriptStep } from '../../emulator/index.js'
import type { RunnerResult } from '../../scripts/runner-process.js'

/**
 * What a step of the bundle (test/bundle) and the same kind of step in process (test/flows) both
 * send and show: the create's provenance, the outputs of a run that succeeds and of a verdict that fails, runs that complete at
 * once or echo the tokens, and what a person can read after the step.
 */

/** The create's metadata.github_action from the runner's context (scripts/runner-process.ts). */
export const PROVENANCE = {
  repository: 'octo-org/octo-repo',
  workflow_run_url: 'https://github.com/octo-org/octo-repo/actions/runs/4242',
  run_id: '4242',
  run_attempt: '1',
  event: 'workflow_dispatch',
  actor: 'octocat',
  sha: '0123456789abcdef0123456789abcdef01234567'
}

/** The outputs of a step that followed `run`, the emulator's `success` scenario, to its end. */
export const successOutputs = (run: EmulatedRunView) => ({
  'agent-run-id': String(run.id),
  status: 'COMPLETE',
  outcome: 'success',
  'web-url': run.web_url,
  result: run.result,
  'pull-request-url': 'https://github.com/octo-org/octo-repo/pull/42',
  'log-count': String(run.logs.length)
})

/** The outputs of a step that followed the emulator's `verdict-fail` run with `verdict: true`. */
export const VERDICT_FAIL = {
  outcome: 'rejected',
  status: 'COMPLETE',
  verdict: 'fail',
  'verdict-reason': 'It renames the exported parseLine, which v1 clients import.'
}

/** A run that completes with this result `at` ms after it started (at once by default). */
export const completing = (result: string, at = 50): RunScript => ({
  steps: [
    { at: 0, status: 'ACTIVE' },
    { at, status: 'COMPLETE', result }
  ]
})

/**
 * A run that goes ACTIVE and at 50 ms logs a command whose texts are `shown` (where a tool could show
 * a secret), then the steps `after`.
 */
export const commandRun = (
  shown: Pick<LogEntry, 'thought' | 'tool_input' | 'tool_output' | 'observation'>,
  ...after: ScriptStep[]
): RunScript => ({
  steps: [
    { at: 0, status: 'ACTIVE' },
    { at: 50, log: { message_type: 'ACTION', tool_name: 'run_command', ...shown } },
    ...after
  ]
})

/** A run whose every text repeats the tokens, as a careless tool or a hostile prompt could make it. */
export function echoing(token: string, githubToken: string): RunScript {
  return commandRun(
    {
      thought: `printing env: CODEGEN_API_TOKEN=${token}`,
      tool_input: { command: `curl -H "Authorization: Bearer ${token}"` },
      tool_output: { stdout: `token=${token}`, github: githubToken },
      observation: `Bearer ${token}`
    },
    { at: 100, log: { message_type: 'FINAL_ANSWER', observation: `done with ${token}` } },
    {
      at: 150,
      status: 'COMPLETE',
      result: `The token is ${token}`,
      summary: `Used ${token} and ${githubToken}`,
      pullRequests: [
        {
          id: 1,
          title: `Leak ${token}`,
          url: 'https://github.com/octo-org/octo-repo/pull/1',
          head_branch_name: null
        }
      ]
    }
  )
}

/** The first two reads of the log answered 500, the error body echoing the token. */
export const echoingErrors = (token: string): FaultRule => ({
  route: 'logs',
  times: 2,
  fault: {
    kind: 'status',
    status: 500,
    body: { detail: `upstream rejected header Authorization: Bearer ${token}` }
  }
})

/** Step debug on, as a re-run with debug logging sets it. */
export const STEP_DEBUG = { ACTIONS_STEP_DEBUG: 'true', RUNNER_DEBUG: '1' }

/**
 * Everything a person could read after the step, but the lines that tell the runner to mask: the
 * console, stderr, the summary, the outputs (and GITHUB_OUTPUT as written, when the step has it)
 * and the log file.
 */
export function visible(result: RunnerResult & { outputFile?: string }): string {
  const console = result.stdout
    .split('\n')
    .filter(line => !line.startsWith('::add-mask::'))
    .join('\n')
  const logFile = result.outputs['log-file'] ? readFileSync(result.outputs['log-file'], 'utf8') : ''
  return [
    console,
    result.stderr,
    result.summary,
    JSON.stringify(result.outputs),
    result.outputFile ?? '',
    logFile
  ].join('\n')
}
