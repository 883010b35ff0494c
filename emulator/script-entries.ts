import type { LogEntry, ScriptPullRequest } from './types.js'

/** The pieces the scripted runs are written with: a pull request and log entries of each kind. */

export type Entry = Partial<LogEntry>

export const PULL_REQUEST: ScriptPullRequest = {
  id: 3_141_592,
  title: 'Fix quoted field parsing at end of line',
  url: 'https://github.com/octo-org/octo-repo/pull/42',
  head_branch_name: 'codegen/fix-quoted-field-parsing',
  state: 'open',
  merged: false
}

export const planning = (thought: string, observation?: string): Entry => ({
  message_type: 'PLAN_EVALUATION',
  thought,
  ...(observation === undefined ? {} : { observation })
})

export const action = (
  tool_name: string,
  tool_input: Record<string, unknown>,
  tool_output: Record<string, unknown>,
  thought?: string,
  observation?: string
): Entry => ({ message_type: 'ACTION', tool_name, tool_input, tool_output, thought, observation })
