import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { ACCOUNT_NAMES, SCENARIO_NAMES } from '../emulator/index.js'

/** `npm start`'s command line (scripts/local-run.ts): its usage, and what it asks the step to run. */

/**
 * The events `--event` plays: a comment on an issue or on a pull request, a pull request opened, a
 * CI run that completed.
 */
const EVENTS = ['comment', 'pr-comment', 'pull-request', 'workflow-run']

/** The scenario whose agent answers with findings: it asks for them, with a verdict and a review. */
const FINDINGS_SCENARIO = 'findings'

/**
 * The scenario of a comment with screenshots (issue 45): a "/codegen" comment on issue #9 whose
 * images, and the issue's, go with the run; the emulator plays its success scenario.
 */
export const IMAGES_SCENARIO = 'images'

/** The scenario that plays a plan, its revision and its approval, as three comments on one thread. */
const PLAN_SCENARIO = 'plan'

/** A comment played on the sample thread, by `login` (who may write). */
export interface PlayedComment {
  body: string
  login: string
}

/**
 * The plan scenario's comments, in turn: `prompt` asked as a plan by octocat, the plan revised by
 * octocat, then approved by monalisa (another person, as a team's checkpoint has it).
 */
export function planComments(prompt: string): PlayedComment[] {
  return [
    { body: `/codegen plan ${prompt}`, login: 'octocat' },
    { body: '/codegen plan also write one object a line with --json-lines', login: 'octocat' },
    { body: '/codegen approve', login: 'monalisa' }
  ]
}

/** How a workflow run can conclude (GitHub's `conclusion`): a CI fix is asked for failure and timed_out. */
export const WORKFLOW_RUN_CONCLUSIONS = [
  'failure',
  'timed_out',
  'success',
  'cancelled',
  'skipped',
  'neutral',
  'action_required',
  'stale',
  'startup_failure'
]

export const USAGE = `Usage: npm start -- [options] [prompt]

Runs the bundled action (dist/index.js) as the GitHub runner does, against the embedded emulator of
the Agent Run service, or against the real service when CODEGEN_API_TOKEN is set (CODEGEN_ORG_ID,
else the token's only organization; CODEGEN_REPO_ID, or GITHUB_REPOSITORY=owner/name, picks the
repository). GitHub is simulated on loopback: nothing is written to github.com.

What to run
  [prompt]                    the run's instruction (default: a sample one); with --event
                              workflow-run, the workflow's instructions for the fix (optional)
  --scenario NAME             the emulator's script of the run (default success):
                              ${SCENARIO_NAMES.join(', ')};
                              images: a comment with screenshots on issue #9 (the issue's own too),
                              sent with the run as data URIs, the prompt naming each
  --task run|check|setup-commands   check: the set-up check; setup-commands: octo-org/octo-repo's
  --event comment|pr-comment  a "/codegen <prompt>" comment on issue #9, or on pull request #7 (which
                              also gets a check run): reaction, tracking comment, check shown at the end;
                              --scenario plan plays three comments in turn on issue #9 (or #7): "/codegen
                              plan <prompt>", "/codegen plan <a change>" and another person's
                              "/codegen approve", each a step of its own
  --event pull-request        pull request #7 opened: the step from its inputs, as a review gate, with a
                              check run on its head (the findings scenario's event unless one is given)
  --event workflow-run        the workflow "CI" failed on pull request #7's branch: a CI fix, its prompt
                              written from the failed jobs and their logs, and its tracking comment
  --conclusion NAME           with workflow-run, how CI ended: failure (the default) or timed_out start
                              a fix; success, cancelled, skipped and the others start nothing
  --fork                      with workflow-run, CI ran on a fork's branch (nothing starts)
  --runs N|FILE               many runs from one step: N copies of the prompt, or a YAML/JSON list file
  --max-parallel N            with --runs, how many work at once (default 10)

What to ask of the agent
  --verdict                   ask for a pass/fail verdict (the verdict-* scenarios set it themselves)
  --findings                  ask for findings on the lines they are about (findings: true)
  --review-comments           and one review of pull request #7 with them (review-comments: true);
                              --scenario findings sets both and --verdict: its agent finds two problems
                              on lines of #7's diff (inline comments) and two elsewhere (the review's
                              body), all four annotations of the check
  --output-schema TEXT|FILE   a JSON Schema the answer must satisfy
  --output-retries N          follow-ups asking for a valid answer (default 1)

How the step behaves
  --wait true|false           follow the run to its end, or return at once (default true)
  --timeout-minutes N         how long to follow it (default 5 here, 30 in a workflow)
  --fail-on LIST              outcomes that fail the step (default the action's)
  --poll-interval SECONDS     (default 1 here)
  --check-run                 write a check run for a run from the inputs too (check-run: true)
  --check-name NAME           the check run's name (default Codegen)

The emulator
  --account NAME              ${ACCOUNT_NAMES.join(', ')} (with --org-id N to pick one)
  --org-id N, --repository owner/name
  --mode LIST                 emulator modes (emulator/modes.ts), e.g. pending-start,extra-statuses
  --rate-limits SPEC          rate windows (requests/seconds), e.g. general=20/20,logs=20/20, or off
  --speed N                   play the scenario N times faster

Examples
  npm start
  npm start -- --scenario failure "Fix it"
  npm start -- --event pr-comment --scenario verdict-fail "review the public API"
  npm start -- --scenario findings
  npm start -- --scenario plan "add a --json flag to the export command"
  npm start -- --event workflow-run "Fix the cause, not the test"
  npm start -- --runs 3 --max-parallel 2
  npm start -- --scenario endless --timeout-minutes 0.2 --fail-on none
`

const OPTIONS = {
  help: { type: 'boolean', short: 'h', default: false },
  scenario: { type: 'string', default: 'success' },
  task: { type: 'string', default: 'run' },
  event: { type: 'string', default: '' },
  runs: { type: 'string', default: '' },
  'max-parallel': { type: 'string', default: '' },
  account: { type: 'string', default: 'one-org' },
  'org-id': { type: 'string', default: '' },
  repository: { type: 'string', default: '' },
  speed: { type: 'string', default: '1' },
  'poll-interval': { type: 'string', default: '1' },
  mode: { type: 'string', multiple: true, default: [] as string[] },
  'rate-limits': { type: 'string', default: '' },
  verdict: { type: 'boolean', default: false },
  findings: { type: 'boolean', default: false },
  'review-comments': { type: 'boolean', default: false },
  'output-schema': { type: 'string', default: '' },
  'output-retries': { type: 'string', default: '1' },
  wait: { type: 'string', default: 'true' },
  'timeout-minutes': { type: 'string', default: '' },
  'fail-on': { type: 'string', default: '' },
  'check-run': { type: 'boolean', default: false },
  'check-name': { type: 'string', default: '' },
  conclusion: { type: 'string', default: '' },
  fork: { type: 'boolean', default: false }
} as const

/** A bad command line, said in one line (never a stack trace). */
export class UsageError extends Error {}

export type Options = ReturnType<typeof parse>['values']

export interface Command {
  options: Options
  /** The run's instruction, a comment's request, or a CI fix's instructions (may be empty). */
  prompt: string
  /** The runs input (inline), or empty. */
  runs: string
  /** The comments played on the thread, one step each, in turn (none without a comment event). */
  comments: PlayedComment[]
  /** The step's inputs the options set, whatever the service. */
  inputs: Record<string, string>
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

/** The command `argv` asks for, 'help', or a UsageError; `emulated`: against the emulator. */
export function readCommand(argv: string[], emulated: boolean): Command | 'help' {
  const { values: options, positionals } = parse(argv)
  if (options.help) return 'help'
  const findingsScenario = options.scenario === FINDINGS_SCENARIO
  if (options.scenario === IMAGES_SCENARIO) {
    if (options.event && options.event !== 'comment')
      throw new UsageError('--scenario images is a comment on issue #9: leave --event out, or use comment')
    options.event = 'comment'
  }
  // The findings scenario reviews pull request #7: opened, unless the command names another event.
  if (findingsScenario && !options.event && !options.runs) options.event = 'pull-request'
  // The plan scenario is a conversation on a thread: issue #9 unless pull request #7 is named.
  const planScenario = options.scenario === PLAN_SCENARIO
  if (planScenario && !options.event && !options.runs) options.event = 'comment'
  if (planScenario && options.event !== 'comment' && options.event !== 'pr-comment')
    throw new UsageError('--scenario plan plays comments on a thread: --event comment or pr-comment')
  if (options.event && !EVENTS.includes(options.event))
    throw new UsageError(
      `Unknown event "${options.event}": comment, pr-comment, pull-request or workflow-run`
    )
  if (options.event && options.runs)
    throw new UsageError('--event and --runs do not go together: an event asks for one run')
  const ciFix = options.event === 'workflow-run'
  const onComment = options.event === 'comment' || options.event === 'pr-comment'
  if (!ciFix && (options.conclusion || options.fork))
    throw new UsageError('--conclusion and --fork go with --event workflow-run')
  if (options.conclusion && !WORKFLOW_RUN_CONCLUSIONS.includes(options.conclusion))
    throw new UsageError(
      `Unknown conclusion "${options.conclusion}": one of ${WORKFLOW_RUN_CONCLUSIONS.join(', ')}`
    )
  if (emulated && !SCENARIO_NAMES.includes(emulatorScenario(options.scenario)))
    throw new UsageError(`Unknown scenario "${options.scenario}": one of ${SCENARIO_NAMES.join(', ')}`)
  if (emulated && !ACCOUNT_NAMES.includes(options.account))
    throw new UsageError(`Unknown account "${options.account}": one of ${ACCOUNT_NAMES.join(', ')}`)
  // Only a run needs a prompt; setup commands take one as extra guidance, a CI fix as the workflow's
  // instructions (the action writes the rest from the failure).
  const prompt =
    positionals.join(' ') ||
    (options.task !== 'run' || ciFix
      ? ''
      : findingsScenario
        ? 'Review the change; fail it if it breaks the public API. Report each problem on the lines it is about.'
        : options.scenario.startsWith('verdict-')
          ? 'Review the change; fail it if it breaks the public API.'
          : options.scenario === IMAGES_SCENARIO
            ? 'Make the Save button fit on small screens, as in the design'
            : planScenario
              ? 'add a --json flag to the export command'
              : 'Fix the failing test in src/parser.ts')
  const runs = runsInput(options.runs, prompt)
  const inputs: Record<string, string> = {
    // The verdict scenarios answer a step that asks for a verdict; any run may ask with --verdict.
    verdict: String(options.verdict || options.scenario.startsWith('verdict-') || findingsScenario),
    ...(options.findings || findingsScenario ? { findings: 'true' } : {}),
    ...(options['review-comments'] || findingsScenario ? { 'review-comments': 'true' } : {}),
    'output-schema': options['output-schema'],
    'output-retries': options['output-retries'],
    wait: options.wait,
    ...(options['fail-on'] ? { 'fail-on': options['fail-on'] } : {}),
    ...(options['max-parallel'] ? { 'max-parallel': options['max-parallel'] } : {}),
    // A pull request's review gate writes its check (as review-gate.yml asks).
    ...(options['check-run'] || options.event === 'pull-request' ? { 'check-run': 'true' } : {}),
    ...(options['check-name'] ? { 'check-name': options['check-name'] } : {}),
    // What to run: a comment's request (from the event), a CI fix (its prompt the instructions),
    // many runs, or the prompt.
    ...(onComment ? { prompt: '' } : runs ? { runs } : { prompt })
  }
  const comments = !onComment
    ? []
    : planScenario
      ? planComments(prompt)
      : [{ body: `/codegen ${prompt}`, login: 'octocat' }]
  return { options, prompt, runs, inputs, comments }
}

/** The emulator's scenario of `--scenario`: the images scenario's run succeeds. */
export function emulatorScenario(scenario: string): string {
  return scenario === IMAGES_SCENARIO ? 'success' : scenario
}

/** The step's inputs against the emulator at `baseUrl`: the sample account's, then the command's. */
export function emulatorInputs(command: Command, baseUrl: string): Record<string, string> {
  const { options } = command
  return {
    task: options.task,
    'api-token': 'emulator-token',
    // Empty: the action finds the token's only organization (or says which to choose).
    'org-id': options['org-id'],
    repository: options.repository,
    'base-url': baseUrl,
    'poll-interval': options['poll-interval'],
    'timeout-minutes': options['timeout-minutes'] || '5',
    ...command.inputs
  }
}

/** The runs input: N copies of the prompt, or a list file's text (passed inline). */
function runsInput(given: string, prompt: string): string {
  if (!given) return ''
  if (/^\d+$/.test(given)) {
    const count = Number(given)
    if (count < 1 || count > 100) throw new UsageError(`--runs ${given}: from 1 to 100 runs`)
    return JSON.stringify(Array.from({ length: count }, (_, i) => ({ name: `run-${i + 1}`, prompt })))
  }
  try {
    return readFileSync(given, 'utf8')
  } catch (error) {
    throw new UsageError(
      `--runs ${given}: neither a number nor a readable file (${(error as Error).message})`
    )
  }
}
