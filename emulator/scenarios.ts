import {
  findingsReview,
  verdictFail,
  verdictNever,
  verdictPass,
  verdictRepaired
} from './answer-scenarios.js'
import { planScenario } from './plan-scenarios.js'
import { action, planning, PULL_REQUEST, type Entry } from './script-entries.js'
import { big, endless, hostile } from './stress-scenarios.js'
import type { RunScript } from './types.js'

/**
 * Named run scripts, written at real-life pace (speed 1) and compressed by a speed factor. The texts
 * follow the interface document's field population table: ACTION carries tool_name, tool_input and
 * tool_output (often thought and observation), PLAN_EVALUATION a thought, ERROR an observation
 * (and tool_name when a tool failed), FINAL_ANSWER an observation.
 */

function success(): RunScript {
  const logs: Array<[number, Entry]> = [
    [
      700,
      planning(
        'The failing test is `parser.test.ts > parses a quoted field at the end of a line`. ' +
          'Plan: find the parser, reproduce the failure, fix it, run the whole suite, open a pull request.'
      )
    ],
    [
      1_800,
      action(
        'ripgrep_search',
        { query: 'parseQuotedField', path: 'src' },
        {
          matches: [
            {
              file: 'src/parser.ts',
              line: 42,
              text: 'export function parseQuotedField(line: string, start: number) {'
            },
            { file: 'src/parser.ts', line: 88, text: '    const [value, next] = parseQuotedField(line, i)' }
          ]
        },
        'Looking for the quoted-field parser.',
        '2 matches in src/parser.ts'
      )
    ],
    [
      2_900,
      action(
        'view_file',
        { path: 'src/parser.ts', start_line: 40, end_line: 60 },
        {
          content:
            '42  export function parseQuotedField(line: string, start: number) {\n' +
            "43    let end = line.indexOf('\"', start + 1)\n" +
            "44    while (line[end + 1] === '\"') end = line.indexOf('\"', end + 2)\n" +
            '45    return [line.slice(start + 1, end), end + 2] as const\n' +
            '46  }'
        },
        undefined,
        'The returned position skips two characters after the closing quote.'
      )
    ],
    [
      4_000,
      action(
        'run_command',
        { command: 'npm test -- parser' },
        {
          exit_code: 1,
          stdout:
            'FAIL test/parser.test.ts\n  ✕ parses a quoted field at the end of a line\n' +
            '    Expected: ["a", "b"]\n    Received: ["a"]'
        },
        'Reproducing the failure first.',
        '1 failed, 23 passed'
      )
    ],
    [
      5_100,
      planning(
        'At the end of a line there is no separator after the closing quote, so `end + 2` jumps past ' +
          'the end and the last field is dropped. Return `end + 1` and let the caller skip the separator.'
      )
    ],
    [
      6_100,
      action(
        'edit_file',
        {
          path: 'src/parser.ts',
          old: 'return [line.slice(start + 1, end), end + 2]',
          new: 'return [line.slice(start + 1, end), end + 1]'
        },
        {
          success: true,
          diff: '-  return [line.slice(start + 1, end), end + 2] as const\n+  return [line.slice(start + 1, end), end + 1] as const'
        }
      )
    ],
    [
      7_200,
      {
        message_type: 'ERROR',
        tool_name: 'run_command',
        observation: { error: 'Command timed out after 60 seconds', command: 'npm test' }
      }
    ],
    [
      8_300,
      action(
        'run_command',
        { command: 'npm test -- --runInBand' },
        { exit_code: 0, stdout: 'Test Suites: 6 passed, 6 total\nTests:       24 passed, 24 total' },
        'The suite timed out in parallel mode; running it in band.',
        'All 24 tests pass'
      )
    ],
    [
      9_400,
      action(
        'create_pr',
        {
          title: PULL_REQUEST.title,
          head_branch_name: PULL_REQUEST.head_branch_name,
          base_branch_name: 'main'
        },
        { number: 42, url: PULL_REQUEST.url },
        undefined,
        `Opened ${PULL_REQUEST.url}`
      )
    ],
    [
      10_600,
      {
        message_type: 'FINAL_ANSWER',
        thought: 'The fix is small and covered by the existing test.',
        observation:
          'Fixed `parseQuotedField` dropping the last field of a line that ends with a quoted field. ' +
          `All tests pass. Pull request: ${PULL_REQUEST.url}`
      }
    ]
  ]
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      ...logs.map(([at, log]) => ({ at, log })),
      {
        at: 11_800,
        status: 'COMPLETE',
        result:
          '## Fixed the failing parser test\n\n' +
          '`parseQuotedField` returned a position two characters past the closing quote, which skipped ' +
          'the end of the line when a quoted field came last.\n\n' +
          '- `src/parser.ts`: return the position right after the closing quote\n' +
          '- All 24 tests pass\n\n' +
          `Pull request: [#42](${PULL_REQUEST.url})`,
        summary: 'Fixed quoted field parsing at end of line; opened PR #42.',
        pullRequests: [PULL_REQUEST]
      }
    ]
  }
}

function failure(): RunScript {
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 700, log: planning('Install the dependencies, then reproduce the failing test.') },
      {
        at: 1_600,
        log: action(
          'run_command',
          { command: 'npm ci' },
          {
            exit_code: 1,
            stderr: 'npm ERR! 404 Not Found - GET https://registry.npmjs.org/@octo-org%2fprivate-utils'
          },
          undefined,
          'npm ci failed'
        )
      },
      {
        at: 2_600,
        log: {
          message_type: 'ERROR',
          tool_name: 'run_command',
          observation: {
            error:
              "Could not install dependencies: the package '@octo-org/private-utils' is not reachable from the sandbox"
          }
        }
      },
      {
        at: 3_400,
        status: 'ERROR',
        result:
          'The agent could not finish: installing the dependencies failed because the private package ' +
          '`@octo-org/private-utils` is not reachable from the sandbox. Add a registry token to the ' +
          "repository's setup commands and try again."
      }
    ]
  }
}

function paused(): RunScript {
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 700, log: planning('The prompt asks to "clean up the config"; two very different changes fit.') },
      {
        at: 1_700,
        log: action(
          'view_file',
          { path: 'config/default.json' },
          { content: '{ "retries": 3, "legacyMode": true, "timeoutMs": 30000 }' }
        )
      },
      {
        at: 2_800,
        log: {
          message_type: 'FINAL_ANSWER',
          observation:
            'Should I remove `legacyMode` (a breaking change for v1 clients) or only document it? ' +
            'Reply with a follow-up prompt to continue.'
        }
      },
      {
        at: 3_400,
        status: 'PAUSED',
        result: 'Waiting for an answer: remove `legacyMode`, or only document it?'
      }
    ]
  }
}

function noPr(): RunScript {
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 700, log: planning('Check whether the reported bug still exists on main.') },
      {
        at: 1_800,
        log: action(
          'run_command',
          { command: 'npm test -- parser' },
          { exit_code: 0, stdout: 'Tests: 24 passed, 24 total' },
          undefined,
          'The test passes on main'
        )
      },
      {
        at: 2_900,
        log: {
          message_type: 'FINAL_ANSWER',
          observation: 'Nothing to change: the test already passes on main.'
        }
      },
      {
        at: 3_600,
        status: 'COMPLETE',
        result: 'No change needed: the parser test passes on `main` since commit 1a2b3c4.',
        summary: 'Investigated; no change needed.',
        pullRequests: []
      }
    ]
  }
}

/**
 * The run of a setup-commands generation: it reads the repository and ends with the commands that
 * prepare its sandbox, one a line, as its result.
 */
function setupCommands(): RunScript {
  const commands = ['npm ci', 'npm run build', 'npx playwright install --with-deps chromium']
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      {
        at: 800,
        log: action(
          'view_file',
          { path: 'package.json' },
          { content: '{ "scripts": { "build": "tsc", "test": "jest", "e2e": "playwright test" } }' },
          'Reading how the repository builds and tests.'
        )
      },
      {
        at: 1_900,
        log: action(
          'run_command',
          { command: commands.join(' && ') },
          { exit_code: 0, stdout: 'added 812 packages in 21s' },
          undefined,
          'The setup commands run cleanly in a fresh sandbox'
        )
      },
      {
        at: 2_800,
        log: { message_type: 'FINAL_ANSWER', observation: `Setup commands:\n${commands.join('\n')}` }
      },
      {
        at: 3_300,
        status: 'COMPLETE',
        result: commands.join('\n'),
        summary: `${commands.length} setup commands generated and verified.`,
        pullRequests: []
      }
    ]
  }
}

const SCENARIOS: Record<string, () => RunScript> = {
  success,
  failure,
  paused,
  endless,
  'no-pr': noPr,
  hostile,
  big,
  'setup-commands': setupCommands,
  'verdict-pass': verdictPass,
  'verdict-fail': verdictFail,
  'verdict-repaired': verdictRepaired,
  'verdict-never': verdictNever,
  findings: findingsReview,
  plan: planScenario
}

export const SCENARIO_NAMES: readonly string[] = Object.keys(SCENARIOS)

/** A named script; speed > 1 compresses its time (every `at` divided by speed). */
export function scenario(name: string, speed = 1): RunScript {
  const build = SCENARIOS[name]
  if (!build) throw new Error(`Unknown scenario "${name}": one of ${SCENARIO_NAMES.join(', ')}`)
  if (!(speed > 0) || !Number.isFinite(speed))
    throw new Error(`The speed must be a positive number, got ${speed}`)
  return compressed(build(), speed)
}

function compressed(script: RunScript, speed: number): RunScript {
  return {
    ...script,
    steps: script.steps.map(step => ({ ...step, at: Math.round(step.at / speed) })),
    ...(script.followUps ? { followUps: script.followUps.map(followUp => compressed(followUp, speed)) } : {})
  }
}

/** The scenario a prompt asks for with `[emulator:NAME]`, if it names a known one. */
export function scenarioDirective(prompt: string): string | undefined {
  const name = /\[emulator:([a-z-]+)\]/i.exec(prompt)?.[1]?.toLowerCase()
  return name !== undefined && name in SCENARIOS ? name : undefined
}
