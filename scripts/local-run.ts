/**
 * `npm start`: runs the bundled action exactly as the GitHub runner does, against the embedded
 * emulator of the Agent Run service (no token needed), or against the real service when
 * CODEGEN_API_TOKEN is set. Prints the console mirror live, then the outputs, where the job summary
 * is, and what the step wrote to GitHub (simulated on loopback by the fake GitHub: scripts/sample-github.ts).
 * `npm start -- --help` prints the options (USAGE below).
 */
import { account, AgentRunEmulator, parseModes, parseRateLimits } from '../emulator/index.js'
import {
  emulatorInputs,
  emulatorScenario,
  IMAGES_SCENARIO,
  readCommand,
  USAGE,
  UsageError,
  type Command
} from './local-run-command.js'
import { runBundledAction } from './runner-process.js'
import { SAMPLE_PULL_REQUEST, SAMPLE_TOKEN, SAMPLE_WORKFLOW_RUN, SampleGitHub } from './sample-github.js'

/** A usage error: one line, and where the options are, never a stack trace. */
function usageError(message: string): never {
  console.error(`${message.replace(/\.?$/, '.')}\nSee: npm start -- --help`)
  process.exit(2)
}

const realToken = process.env.CODEGEN_API_TOKEN
let command: Command | 'help'
try {
  command = readCommand(process.argv.slice(2), !realToken)
} catch (error) {
  if (error instanceof UsageError) usageError(error.message)
  throw error
}
if (command === 'help') {
  console.log(USAGE)
  process.exit(0)
}
const { options: values } = command
let emulator: AgentRunEmulator | undefined
let inputs: Record<string, string>
/** The harness stands in a sample repository and workflow run; a real run records only what is true. */
let env: Record<string, string> = {}

if (realToken) {
  console.log('Running the action against the real Agent Run service (CODEGEN_API_TOKEN is set).\n')
  inputs = {
    'api-token': realToken,
    task: values.task,
    'org-id': values['org-id'] || (process.env.CODEGEN_ORG_ID ?? ''),
    repository: values.repository,
    'base-url': process.env.CODEGEN_BASE_URL ?? 'https://api.codegen.com',
    'repo-id': process.env.CODEGEN_REPO_ID ?? '',
    ...(values['timeout-minutes'] ? { 'timeout-minutes': values['timeout-minutes'] } : {})
  }
  env = {
    GITHUB_REPOSITORY: process.env.GITHUB_REPOSITORY ?? '',
    GITHUB_RUN_ID: '',
    GITHUB_WORKFLOW: 'npm start',
    GITHUB_EVENT_NAME: 'local',
    GITHUB_ACTOR: process.env.USER ?? '',
    GITHUB_SHA: ''
  }
} else {
  let modes: ReturnType<typeof parseModes>
  let rateLimits: ReturnType<typeof parseRateLimits> | undefined
  try {
    modes = parseModes(values.mode)
    rateLimits = values['rate-limits'] ? parseRateLimits(values['rate-limits']) : undefined
  } catch (error) {
    usageError((error as Error).message)
  }
  emulator = new AgentRunEmulator({
    defaultScenario: emulatorScenario(values.scenario),
    speed: Number(values.speed),
    modes,
    rateLimits,
    ...account(values.account)
  })
  const baseUrl = await emulator.start()
  console.log(
    `Agent Run emulator on ${baseUrl}, account "${values.account}", scenario "${values.scenario}"` +
      `${modes.length ? `, modes ${modes.join(', ')}` : ''} (no CODEGEN_API_TOKEN set).\n`
  )
  inputs = emulatorInputs(command, baseUrl)
}

Object.assign(inputs, command.inputs)
const ciFix = values.event === 'workflow-run'
const onPullRequest = values.event === 'pull-request'
const onComment = values.event === 'comment' || values.event === 'pr-comment'

// GitHub, simulated, when the step would read or write it: a comment's reaction and tracking comment,
// check runs and their annotations, a pull request's files and review, and a failed CI run's jobs
// and logs.
let github: SampleGitHub | undefined
let event: { name: string; payload: unknown } | undefined
if (onComment || onPullRequest || ciFix || values['check-run']) {
  // The repository the step names: the runner's sample one, or GITHUB_REPOSITORY for the real service.
  github = new SampleGitHub({ repository: env.GITHUB_REPOSITORY })
  env.GITHUB_API_URL = await github.start()
  env.GITHUB_SHA = SAMPLE_PULL_REQUEST.sha
  inputs['github-token'] = SAMPLE_TOKEN
  // Its attachments are on its own origin, the server's, as a GitHub Enterprise Server's are.
  if (onComment && values.scenario === IMAGES_SCENARIO)
    env.GITHUB_SERVER_URL = new URL(env.GITHUB_API_URL).origin
  if (onPullRequest) {
    event = github.pullRequestEvent()
    env.GITHUB_EVENT_NAME = event.name
  }
  if (ciFix) {
    event = github.ciRun({ conclusion: values.conclusion, fork: values.fork })
    env.GITHUB_EVENT_NAME = event.name
  }
  console.log(
    `GitHub simulated on ${env.GITHUB_API_URL} (the fake GitHub of scripts/github-fake/): ` +
      'nothing reaches github.com.\n'
  )
  if (ciFix) {
    const { name, runNumber } = SAMPLE_WORKFLOW_RUN
    const where = values.fork
      ? `the branch ${SAMPLE_PULL_REQUEST.head} of a fork`
      : `pull request #${SAMPLE_PULL_REQUEST.number}'s branch ${SAMPLE_PULL_REQUEST.head}`
    console.log(
      `The workflow run ${name} #${runNumber} concluded ${values.conclusion || 'failure'} on ${where}; ` +
        'GitHub sends workflow_run (completed), and serves its jobs and their logs.\n'
    )
  }
  if (onPullRequest)
    console.log(
      `Pull request #${SAMPLE_PULL_REQUEST.number} "${SAMPLE_PULL_REQUEST.title}" was opened: GitHub sends ` +
        'pull_request (opened), and serves its files and their patches.\n'
    )
}

/** The outputs of a step, each on one line. */
function printOutputs(outputs: Record<string, string>): void {
  console.log('\nOutputs:')
  for (const [name, value] of Object.entries(outputs)) {
    const shown =
      value.length > 200 ? `${value.slice(0, 200).replace(/\n/g, ' ')}…` : value.replace(/\n/g, ' ')
    console.log(`  ${name.padEnd(22)} ${shown}`)
  }
}

// One step, or one a comment played on the thread, in turn (the plan scenario's three).
const comments = onComment ? command.comments : []
let result: Awaited<ReturnType<typeof runBundledAction>> | undefined
for (const [index, comment] of comments.length ? comments.entries() : [[0, undefined] as const]) {
  if (comment && github) {
    // A person reads the answer before writing the next comment; GitHub's times are whole seconds.
    if (index > 0) await new Promise(resolve => setTimeout(resolve, 1_100))
    if (comments.length > 1)
      console.log(
        `\n── Step ${index + 1} of ${comments.length}: ${comment.login} comments "${comment.body}"\n`
      )
    event =
      values.scenario === IMAGES_SCENARIO
        ? github.askWithScreenshots(comment.body)
        : github.ask(comment.body, values.event === 'pr-comment', comment.login)
    env.GITHUB_EVENT_NAME = event.name
  }
  result = await runBundledAction({ inputs, env, event, inheritOutput: true, killAfterMs: 60 * 60_000 })
  // A step before the last: its outputs now; a failed one ends the conversation.
  if (index < comments.length - 1 && result.exitCode === 0) {
    printOutputs(result.outputs)
    console.log(`Exit code: ${result.exitCode}`)
  } else break
}
await Promise.all([emulator?.stop(), github?.stop()])
if (!result) throw new Error('No step ran')
printOutputs(result.outputs)
if (github) console.log(`\n${github.written()}`)
// A CI fix's prompt is the action's own writing: show it as the service received it (and the images').
const created = emulator?.requests.find(request => request.route === 'create')
if ((ciFix || values.scenario === IMAGES_SCENARIO) && created) {
  const { prompt: sent, images } = created.body as { prompt?: unknown; images?: unknown }
  if (typeof sent === 'string') console.log(`\nThe prompt the agent got:\n${sent.replace(/^/gm, '    ')}`)
  if (Array.isArray(images))
    console.log(
      `\nWith ${images.length} images: ${images.map(uri => `${String(uri).slice(0, 30)}…`).join(', ')}`
    )
}
console.log(`\nJob summary (Markdown): ${result.summaryPath}`)
console.log(`Exit code: ${result.exitCode}`)
process.exit(result.exitCode ?? 1)
