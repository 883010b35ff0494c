import type { RunScript } from './types.js'

/**
 * Runs asked for a verdict (`verdict: true`): a review of a pull request's public API whose result
 * ends with the answer block, or lacks it, and follow-ups answered the scripted way (the first one
 * with the block alone, or never with it).
 */

/** A review run that ends COMPLETE with `result` (and its final answer), after a look at the change. */
function review(result: string, finalAnswer: string, followUps?: RunScript[]): RunScript {
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      {
        at: 700,
        log: {
          message_type: 'PLAN_EVALUATION',
          thought: 'Review the pull request: compare the exported names and signatures.'
        }
      },
      {
        at: 1_600,
        log: {
          message_type: 'ACTION',
          tool_name: 'run_command',
          tool_input: { command: 'git diff main -- src/index.ts' },
          tool_output: {
            exit_code: 0,
            stdout: '-export { parseLine } from "./parser.js"\n+export { parseRecord } from "./parser.js"'
          },
          observation: 'One export renamed'
        }
      },
      { at: 2_500, log: { message_type: 'FINAL_ANSWER', observation: finalAnswer } },
      {
        at: 3_000,
        status: 'COMPLETE',
        result,
        summary: 'Reviewed the public API of the change.',
        pullRequests: []
      }
    ],
    ...(followUps ? { followUps } : {})
  }
}

/** A follow-up answered at once with `result`. */
function reply(result: string): RunScript {
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 600, log: { message_type: 'FINAL_ANSWER', observation: result } },
      { at: 1_000, status: 'COMPLETE', result }
    ]
  }
}

const jsonBlock = (value: unknown): string => `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``

const PASS = { verdict: 'pass', reason: 'Every exported name and signature is unchanged.' }
const FAIL = { verdict: 'fail', reason: 'It renames the exported parseLine, which v1 clients import.' }
const BREAKS =
  '## Review of the public API\n\n`parseLine` is no longer exported from `src/index.ts`: it is renamed ' +
  '`parseRecord`, so code that imports `parseLine` breaks.'

/** verdict-pass, verdict-fail: the answer block ends the result (run them with `verdict: true`). */
export const verdictPass = (): RunScript =>
  review(
    `## Review of the public API\n\nThe change only touches internal helpers.\n\n${jsonBlock(PASS)}`,
    'The public API is unchanged.'
  )
export const verdictFail = (): RunScript =>
  review(`${BREAKS}\n\n${jsonBlock(FAIL)}`, 'The public API breaks.')

/** verdict-repaired: the result has no block; the first follow-up answers with the block alone. */
export const verdictRepaired = (): RunScript =>
  review(BREAKS, 'The public API breaks.', [reply(jsonBlock(FAIL))])

/** verdict-never: no block in the result, nor in any follow-up's. */
export const verdictNever = (): RunScript =>
  review(
    BREAKS,
    'The public API breaks.',
    [1, 2, 3].map(n => reply(`As I said (${n}): \`parseLine\` is renamed, which breaks the public API.`))
  )

/**
 * The pull request the `findings` scenario reviews, as GitHub lists its files (GET /pulls/{n}/files):
 * the export renamed in src/index.ts, and the parser's loop changed in src/parser.ts. A fake GitHub
 * (the tests', `npm start`'s) serves these on the pull request the run is asked about.
 */
export function findingsDiff(): Array<{ filename: string; status: 'modified'; patch: string }> {
  return [
    {
      filename: 'src/index.ts',
      status: 'modified',
      patch: [
        '@@ -1,4 +1,4 @@',
        " export { tokenize } from './tokenizer.js'",
        "-export { parseLine } from './parser.js'",
        "+export { parseRecord } from './parser.js'",
        " export { format } from './format.js'",
        " export type { Record } from './types.js'"
      ].join('\n')
    },
    {
      filename: 'src/parser.ts',
      status: 'modified',
      patch: [
        "@@ -40,10 +40,11 @@ import { Field } from './types.js'",
        ' ',
        ' /** One record of a line: its fields, in order. */',
        '-export function parseLine(line: string): Field[] {',
        '+export function parseRecord(line: string): Field[] {',
        '   const fields: Field[] = []',
        '   let at = 0',
        '   while (at < line.length) {',
        '-    const [value, next] = parseQuotedField(line, at)',
        '+    const [value, next] = parseField(line, at)',
        '+    if (next <= at) throw new Error(`No progress at ${at}`)',
        '     fields.push(value)',
        '     at = next',
        '   }'
      ].join('\n')
    }
  ]
}

/** What the `findings` scenario's agent found: two findings on lines of the diff, two outside it. */
export const FINDINGS = [
  {
    path: 'src/index.ts',
    line: 2,
    severity: 'failure',
    title: 'Renamed export breaks v1 clients',
    message:
      '`parseLine` is no longer exported: code that imports it from the package breaks. Keep `parseLine` as an alias of `parseRecord` until v2.'
  },
  {
    path: 'src/parser.ts',
    line: 46,
    end_line: 47,
    severity: 'warning',
    title: 'The new guard throws on an empty field',
    message:
      '`parseField` returns `next === at` for an empty last field, so a line ending in a comma now throws.'
  },
  {
    path: 'src/parser.ts',
    line: 88,
    severity: 'notice',
    title: 'parseQuotedField is no longer called here',
    message: 'The loop calls `parseField` now; `parseQuotedField` is only reached through it.'
  },
  {
    path: 'docs/api.md',
    line: 14,
    severity: 'warning',
    title: 'The docs still name parseLine',
    message: 'The API page documents `parseLine`, which this change renames.'
  }
]

/**
 * findings: a review of the pull request of findingsDiff() whose answer ends with a verdict (fail)
 * and its findings (run it with `findings: true`, and `verdict: true` or not).
 */
export const findingsReview = (): RunScript =>
  review(`${BREAKS}\n\n${jsonBlock({ ...FAIL, findings: FINDINGS })}`, 'The public API breaks; 4 findings.')
