import type { RunScript, ScriptStep } from '../../emulator/index.js'

/**
 * A scripted run whose log is counted by hand: 1,200 entries (more than the summary's timeline
 * keeps: its first and last 500), among them, in the middle, 8 tool calls of 5 tools (one name
 * hostile Markdown and HTML with a mention) and 2 ERROR entries, then one pull request.
 */
export const HOSTILE_TOOL = '<b>x</b> **y** @alice | `z`'

const MIDDLE: Array<{ message_type: string; tool_name?: string }> = [
  { message_type: 'ACTION', tool_name: 'edit_file' },
  { message_type: 'ACTION', tool_name: 'run_tests' },
  { message_type: 'ERROR' },
  { message_type: 'ACTION', tool_name: 'edit_file' },
  { message_type: 'ACTION', tool_name: HOSTILE_TOOL },
  { message_type: 'ACTION', tool_name: 'edit_file' },
  { message_type: 'ACTION', tool_name: 'run_tests' },
  { message_type: 'ERROR' },
  { message_type: 'ACTION', tool_name: 'view_file' },
  { message_type: 'ACTION', tool_name: 'grep' }
]

export const USAGE_ENTRIES = 1_200

/** `stepMs` apart: 10 ms in virtual time, 1 ms for the bundle in real time. */
export function usageScript(stepMs = 10): RunScript {
  const steps: ScriptStep[] = [{ at: 0, status: 'ACTIVE' }]
  const before = (USAGE_ENTRIES - MIDDLE.length) / 2
  for (let i = 0; i < USAGE_ENTRIES; i++) {
    const middle = MIDDLE[i - before]
    const log = middle
      ? { ...middle, thought: `step ${i}` }
      : { message_type: 'PLAN_EVALUATION', thought: `step ${i}` }
    steps.push({ at: 100 + i * stepMs, log })
  }
  steps.push({
    at: 100 + USAGE_ENTRIES * stepMs + 500,
    status: 'COMPLETE',
    result: 'Done.',
    pullRequests: [
      {
        id: 1,
        title: 'Fix it',
        url: 'https://github.com/octo-org/octo-repo/pull/42',
        head_branch_name: 'fix'
      }
    ]
  })
  return { steps }
}

/** The usage the action must report of usageScript (all but the duration). */
export const USAGE_EXPECTED = {
  log_entries: USAGE_ENTRIES,
  tool_calls: 8,
  // Most used first, ties by name (code units: '<' before the letters): grep and view_file are the sixth and seventh.
  top_tools: [
    { name: 'edit_file', count: 3 },
    { name: 'run_tests', count: 2 },
    { name: HOSTILE_TOOL, count: 1 },
    { name: 'grep', count: 1 },
    { name: 'view_file', count: 1 }
  ],
  errors: 2,
  pull_requests: 1,
  resumes: 0,
  repairs: 0
}
