import { action, planning } from './script-entries.js'
import type { RunScript, ScriptPullRequest } from './types.js'

/**
 * The `plan` scenario: a run asked for a plan (`/codegen plan …`) reads the code and answers with
 * a plan as its result, changing nothing; its first follow-up (`/codegen plan <what to change>`)
 * answers with the plan revised; its second (`/codegen approve`) carries the plan out and opens a
 * pull request. As the live service does, a resumed run's result is the follow-up's answer.
 */

/** The pull request the approved plan opens. */
export const PLAN_PULL_REQUEST: ScriptPullRequest = {
  id: 2_718_281,
  title: 'Add a --json flag to the export command',
  url: 'https://github.com/octo-org/octo-repo/pull/43',
  head_branch_name: 'codegen/export-json-flag',
  state: 'open',
  merged: false
}

/** The plan the first run answers with. */
export const FIRST_PLAN = [
  '## Plan: a `--json` flag for `export`',
  '',
  '1. `src/cli/export.ts`: add the option `--json`, and pass `format: "json"` to `writeReport`.',
  '2. `src/report/write.ts`: write the rows as a JSON array when the format is json; the table',
  '   stays the default.',
  '3. `test/export.test.ts`: one test for each format, on the sample report.',
  '4. `README.md`: the flag in the command reference.',
  '',
  'No other file changes. Risk: low; the table output is untouched.'
].join('\n')

/** The plan revised ("also write one object a line with --json-lines"). */
export const REVISED_PLAN = [
  '## Plan: `--json` and `--json-lines` for `export`',
  '',
  '1. `src/cli/export.ts`: add the options `--json` and `--json-lines` (exclusive), and pass the',
  '   format to `writeReport`.',
  '2. `src/report/write.ts`: a JSON array for json, one object a line for json-lines; the table',
  '   stays the default.',
  '3. `test/export.test.ts`: one test for each of the three formats, and one for both flags given.',
  '4. `README.md`: both flags in the command reference.',
  '',
  'No other file changes. Risk: low; the table output is untouched.'
].join('\n')

/** A run that reads the code, then answers `plan`, having changed nothing. */
function planRun(plan: string, thought: string): RunScript {
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 700, log: planning(thought) },
      {
        at: 1_600,
        log: action(
          'view_file',
          { path: 'src/cli/export.ts', start_line: 1, end_line: 40 },
          { content: "12  program.command('export').option('--out <file>').action(runExport)" },
          'Reading how export parses its options.'
        )
      },
      {
        at: 2_500,
        log: action(
          'ripgrep_search',
          { query: 'writeReport', path: 'src' },
          {
            matches: [
              { file: 'src/report/write.ts', line: 8, text: 'export function writeReport(rows, out) {' }
            ]
          },
          undefined,
          '1 match in src/report/write.ts'
        )
      },
      { at: 3_300, log: { message_type: 'FINAL_ANSWER', observation: plan } },
      {
        at: 3_800,
        status: 'COMPLETE',
        result: plan,
        summary: 'Planned the change; nothing changed yet.',
        pullRequests: []
      }
    ]
  }
}

/** The approved plan carried out: the edits, the tests, the pull request. */
function implementation(): RunScript {
  const result =
    '## Added `--json` and `--json-lines` to `export`\n\n' +
    'Carried out the approved plan: both flags in `src/cli/export.ts`, the two formats in ' +
    '`src/report/write.ts`, four tests, and the README.\n\n' +
    `Pull request: [#43](${PLAN_PULL_REQUEST.url ?? ''})`
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 600, log: planning('Carry out the approved plan, step by step, and nothing more.') },
      {
        at: 1_500,
        log: action(
          'edit_file',
          {
            path: 'src/cli/export.ts',
            old: ".option('--out <file>')",
            new: ".option('--out <file>').option('--json')"
          },
          { success: true }
        )
      },
      {
        at: 2_600,
        log: action(
          'run_command',
          { command: 'npm test -- export' },
          { exit_code: 0, stdout: 'Tests: 4 passed, 4 total' },
          undefined,
          'All 4 tests pass'
        )
      },
      {
        at: 3_500,
        log: action(
          'create_pr',
          { title: PLAN_PULL_REQUEST.title, head_branch_name: PLAN_PULL_REQUEST.head_branch_name },
          { number: 43, url: PLAN_PULL_REQUEST.url },
          undefined,
          `Opened ${PLAN_PULL_REQUEST.url ?? ''}`
        )
      },
      { at: 4_200, log: { message_type: 'FINAL_ANSWER', observation: result } },
      {
        at: 4_800,
        status: 'COMPLETE',
        result,
        summary: 'Carried out the approved plan; opened PR #43.',
        pullRequests: [PLAN_PULL_REQUEST]
      }
    ]
  }
}

/** plan: the plan, then (follow-ups) the plan revised, then the approved plan carried out. */
export const planScenario = (): RunScript => ({
  ...planRun(FIRST_PLAN, 'Asked for a plan only: read the code, change nothing, say what and how.'),
  followUps: [
    planRun(REVISED_PLAN, 'Revise the plan: add one object a line, keep the rest.'),
    implementation()
  ]
})
