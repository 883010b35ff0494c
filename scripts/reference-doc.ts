/**
 * docs/reference.md, written from action.yml: every input with its default, whether it is required
 * and its description; every output. action.yml is the one source; `npm run docs` writes the page
 * (scripts/docs.ts), and a unit test and `.ci/run` fail when the committed page is stale.
 */
import { parse } from 'yaml'

export const REFERENCE_PATH = 'docs/reference.md'

interface ActionFile {
  description?: string
  inputs?: Record<string, { description?: string; required?: boolean; default?: string } | null>
  outputs?: Record<string, { description?: string } | null>
}

/** Where each input is told in full: a page of docs/ (and its section), read beside the table. */
const MORE: Record<string, string> = {
  task: 'setup.md#check-the-set-up',
  'api-token': 'setup.md#1-an-api-token',
  'org-id': 'setup.md#3-your-organization-id',
  prompt: 'usage.md#start-a-run',
  'repo-id': 'setup.md#which-repository',
  repository: 'setup.md#which-repository',
  'agent-run-id': 'usage.md#start-now-resume-later',
  images: 'usage.md#images',
  model: 'usage.md#start-a-run',
  'agent-type': 'usage.md#start-a-run',
  metadata: 'usage.md#start-a-run',
  'base-url': 'security.md#the-token-and-other-secrets',
  wait: 'usage.md#start-now-resume-later',
  'timeout-minutes': 'limits.md#timeouts',
  'stop-run-on': 'limits.md#stopping-the-run',
  'poll-interval': 'limits.md#how-often-the-action-looks',
  'fail-on': 'usage.md#when-the-step-fails',
  'mirror-logs': 'usage.md#what-you-see',
  'trigger-phrase': 'triggers.md#codegen-comments',
  'label-trigger': 'triggers.md#labels-assignments-and-reviews',
  'assignee-trigger': 'triggers.md#labels-assignments-and-reviews',
  'allowed-bots': 'triggers.md#who-may-trigger-a-run',
  'thread-images': 'triggers.md#images-in-the-thread',
  plan: 'triggers.md#plan-then-approve',
  approvers: 'triggers.md#who-may-approve',
  'allow-self-approval': 'triggers.md#who-may-approve',
  'github-token': 'triggers.md#permissions',
  comment: 'triggers.md#the-tracking-comment',
  verdict: 'gates.md#verdicts',
  'output-schema': 'gates.md#structured-answers',
  'output-retries': 'gates.md#when-the-answer-is-not-valid',
  findings: 'gates.md#findings-on-the-lines',
  'review-comments': 'gates.md#a-review-on-the-diff',
  runs: 'many-runs.md',
  'max-parallel': 'many-runs.md#how-the-runs-start',
  'check-run': 'gates.md#check-runs',
  'check-name': 'gates.md#make-it-a-required-check',
  'daily-run-limit': 'limits.md#daily-run-limits',
  'daily-run-limit-per-author': 'limits.md#daily-run-limits',
  'max-fix-attempts': 'triggers.md#no-fix-loops'
}

/** A table cell: one line, its pipes escaped. */
const cell = (text: string): string => text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|')

/** The width Prettier gives a cell (it aligns the columns): code points, for the ASCII we write. */
const width = (text: string): number => [...text].length

/** A Markdown table with its columns aligned as Prettier aligns them, so the page stays formatted. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(3, width(title), ...rows.map(row => width(row[column] ?? '')))
  )
  const line = (cells: string[]): string =>
    `| ${cells.map((text, column) => text + ' '.repeat((widths[column] ?? 0) - width(text))).join(' | ')} |`
  return [line(header), line(widths.map(size => '-'.repeat(size))), ...rows.map(line)].join('\n')
}

/** The page's text, from action.yml's text. */
export function renderReference(actionYml: string): string {
  const action = parse(actionYml) as ActionFile
  const inputs = Object.entries(action.inputs ?? {}).map(([name, input]) => {
    const more = MORE[name] ? ` [More](${MORE[name]})` : ''
    const given = input?.default ?? ''
    return [
      `\`${name}\``,
      given === '' ? 'empty' : `\`${cell(given)}\``,
      input?.required ? 'yes' : 'no',
      cell(input?.description ?? '') + more
    ]
  })
  const outputs = Object.entries(action.outputs ?? {}).map(([name, output]) => [
    `\`${name}\``,
    cell(output?.description ?? '')
  ])
  return [
    '# Reference',
    '',
    '<!-- Generated from action.yml by `npm run docs`: edit action.yml, then run it. -->',
    '',
    `${cell(action.description ?? '')}`,
    '',
    'Every input and output of the action, as `action.yml` declares them. Inputs are strings: write',
    "`'true'` or `true`, both are read the same. The pages of [docs/](README.md) tell each one in full.",
    '',
    '## Inputs',
    '',
    table(['input', 'default', 'required', 'description'], inputs),
    '',
    '`api-token` is needed by every step: give the input, or set the `CODEGEN_API_TOKEN` environment',
    'variable. A bad input fails the step before any request, with one message naming each bad input',
    'and what was expected ([Troubleshooting](troubleshooting.md#input-errors)).',
    '',
    '## Outputs',
    '',
    table(['output', 'description'], outputs),
    '',
    'Outputs are set on every ending that has a run: failure, timeout and cancellation included. What',
    'each `outcome` means, and which fail the step: [When the step fails](usage.md#when-the-step-fails).',
    'Pass outputs to scripts through `env:`, never by pasting `${{ }}` into a `run:` script: they hold',
    "the agent's text.",
    ''
  ].join('\n')
}
