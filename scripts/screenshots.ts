/**
 * `npm run screenshots`: pictures of real runs for README and docs/. Runs the bundle dist/index.js as
 * the runner runs it (scripts/runner-process.ts) against the emulator and GitHub simulated on
 * loopback (the fake GitHub with a sample repository, scripts/sample-github.ts, as for `npm start`),
 * for a few scenarios; renders the job summary, the tracking comment and the check run as GitHub
 * shows them (scripts/screenshot-pages.ts); photographs each page with headless Chromium.
 *
 *   npm run screenshots -- [--out docs/images] [--html DIR] [--only summary,verdict] [--scale 2]
 *
 * Scenarios: summary (a success with a pull request), failure, verdict (the review gate: verdict.png
 * and check-run.png), findings (the review gate with findings and review-comments: annotations.png,
 * the check's annotations, and review.png, the review of the pull request), tracking-comment (the
 * /codegen bot on a pull request), many-runs. --scale is Chromium's device scale factor (2: sharp
 * on high-density screens).
 * Needs Chromium: Debian's package `chromium` (`apt-get install chromium`, and
 * `fonts-noto-color-emoji` for the emoji), or CHROMIUM=/path/to/chrome. --html keeps the pages.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { AgentRunEmulator, systemServerClock } from '../emulator/index.js'
import { ACTION_ENTRY, runBundledAction, type RunnerResult } from './runner-process.js'
import { SAMPLE_PULL_REQUEST as PR, SAMPLE_REPOSITORY, SAMPLE_TOKEN, SampleGitHub } from './sample-github.js'
import {
  annotationsBody,
  checkRunBody,
  COLUMN_PX,
  measuredHeight,
  page,
  PAGE_MARGIN_PX,
  reviewPageBody,
  summaryBody,
  threadBody
} from './screenshot-pages.js'

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'docs/images' },
    html: { type: 'string', default: '' },
    only: { type: 'string', default: '' },
    scale: { type: 'string', default: '2' }
  }
})

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'
if (!existsSync(CHROMIUM)) {
  console.error(
    `Chromium not found at ${CHROMIUM}. Install Debian's package: apt-get install chromium fonts-noto-color-emoji ` +
      '(or set CHROMIUM to the path of a Chrome or Chromium binary).'
  )
  process.exit(1)
}
if (!existsSync(ACTION_ENTRY)) {
  console.error(`${ACTION_ENTRY} is missing: run npm run bundle first.`)
  process.exit(1)
}

/** The log's times start here, whatever the day: the pictures do not change from one run to the next. */
const EPOCH = Date.parse('2025-06-02T09:00:00Z')
const JOB = 'agent'

/** An emulator whose clock starts at EPOCH when first asked, and runs at the speed of real time. */
async function startEmulator(defaultScenario: string, firstRunId: number): Promise<AgentRunEmulator> {
  let origin: number | undefined
  const now = (): number => EPOCH + (Date.now() - (origin ??= Date.now()))
  const emulator = new AgentRunEmulator({
    defaultScenario,
    firstRunId,
    speed: 2,
    clock: systemServerClock(now)
  })
  await emulator.start()
  return emulator
}

interface Example {
  name: string
  examples: Array<Record<string, unknown>>
}
/* eslint-disable-next-line @typescript-eslint/no-explicit-any -- webhook payloads are untyped JSON edited field by field */
type Payload = Record<string, any>

/** GitHub's own webhook examples (@octokit/webhooks-examples), made into the simulated repository's. */
function event(
  name: string,
  action: string,
  edit: (payload: Payload) => void
): { name: string; payload: unknown } {
  const all = createRequire(import.meta.url)('@octokit/webhooks-examples') as Example[]
  const found = all.find(e => e.name === name)?.examples.find(e => e.action === action)
  if (!found) throw new Error(`no ${name}.${action} example in @octokit/webhooks-examples`)
  const payload = structuredClone(found) as Payload
  payload.repository.full_name = SAMPLE_REPOSITORY
  edit(payload)
  return { name, payload }
}

/**
 * The bundle on `inputs` (and `event`), as the runner runs it, against `emulator` and `github`; it
 * must end with the `outcome` the scenario is for, or there is no picture of it.
 */
async function step(
  outcome: string,
  emulator: AgentRunEmulator,
  inputs: Record<string, string>,
  extra: {
    github?: SampleGitHub
    event?: { name: string; payload: unknown }
    env?: Record<string, string>
  } = {}
): Promise<RunnerResult> {
  const result = await runBundledAction({
    inputs: {
      'api-token': 'emulator-token',
      'org-id': '1',
      'base-url': emulator.baseUrl,
      'poll-interval': '1',
      'timeout-minutes': '2',
      ...(extra.github ? { 'github-token': SAMPLE_TOKEN } : {}),
      ...inputs
    },
    env: { ...(extra.github ? { GITHUB_API_URL: extra.github.baseUrl } : {}), ...extra.env },
    event: extra.event,
    killAfterMs: 180_000
  })
  await emulator.stop()
  await extra.github?.stop()
  const unanswered = extra.github?.unanswered().map(request => `${request.method} ${request.path}`) ?? []
  if (unanswered.length) throw new Error(`The simulated GitHub had no answer for: ${unanswered.join(', ')}`)
  const ended = result.outputs['outcome'] ?? '(none)'
  console.log(`  outcome ${ended}, exit code ${result.exitCode}`)
  if (ended !== outcome)
    throw new Error(`The action ended with outcome ${ended}, not ${outcome}:\n${result.stdout.slice(-3000)}`)
  return result
}

/** A picture to take: its file name and its page's body. */
type Shot = [file: string, body: string]

async function success(): Promise<Shot[]> {
  const emulator = await startEmulator('success', 4821)
  const result = await step('success', emulator, { prompt: 'Fix the failing test in src/parser.ts' })
  return [['summary', summaryBody(JOB, result.summary)]]
}

async function failure(): Promise<Shot[]> {
  const emulator = await startEmulator('failure', 4822)
  const result = await step('failure', emulator, { prompt: 'Upgrade the build to Node 24' })
  return [['failure', summaryBody(JOB, result.summary)]]
}

/** The sample pull request opened, as GitHub's example payload says it. */
function pullRequestOpened(): { name: string; payload: unknown } {
  return event('pull_request', 'opened', payload => {
    Object.assign(payload.pull_request, { number: PR.number, title: PR.title })
    payload.number = PR.number
    payload.pull_request.head.ref = PR.head
    payload.pull_request.head.sha = PR.sha
    payload.pull_request.head.repo.full_name = SAMPLE_REPOSITORY
    payload.pull_request.base.repo.full_name = SAMPLE_REPOSITORY
  })
}

/** The review gate: a pull request's review with a verdict, as a check on its head commit. */
async function verdict(): Promise<Shot[]> {
  const emulator = await startEmulator('verdict-fail', 4823)
  const github = new SampleGitHub()
  await github.start()
  const pullRequest = pullRequestOpened()
  // As the recipes of docs/gates.md name it.
  const inputs = {
    prompt: 'Review this pull request. Fail it if it breaks the public API.',
    verdict: 'true',
    'check-run': 'true',
    'check-name': 'Codegen review'
  }
  const result = await step('rejected', emulator, inputs, {
    github,
    event: pullRequest,
    env: { GITHUB_EVENT_NAME: 'pull_request' }
  })
  const [check] = github.checkRuns()
  if (!check) throw new Error('The review gate wrote no check run')
  return [
    ['verdict', summaryBody(JOB, result.summary)],
    [
      'check-run',
      checkRunBody({
        name: check.name,
        status: check.status,
        conclusion: check.conclusion ?? undefined,
        title: check.output.title ?? '',
        summary: check.output.summary ?? ''
      })
    ]
  ]
}

/**
 * The review gate with findings (docs/examples/review-findings.yml): the emulator's findings
 * scenario on the sample pull request, whose diff holds two of its findings.
 */
async function findings(): Promise<Shot[]> {
  const emulator = await startEmulator('findings', 4825)
  const github = new SampleGitHub()
  await github.start()
  const inputs = {
    prompt:
      'Review this pull request. Fail it if it breaks the public API. Report each problem on the lines it is about.',
    verdict: 'true',
    findings: 'true',
    'review-comments': 'true',
    'check-run': 'true',
    'check-name': 'Codegen review'
  }
  await step('rejected', emulator, inputs, {
    github,
    event: pullRequestOpened(),
    env: { GITHUB_EVENT_NAME: 'pull_request' }
  })
  const [check] = github.checkRuns()
  if (!check?.annotations.length) throw new Error('The review gate annotated no finding on its check')
  const [review] = github.reviews(PR.number)
  if (!review) throw new Error('The review gate posted no review')
  const comments = github.reviewComments(PR.number).filter(comment => review.comments.includes(comment.id))
  if (comments.length === 0 || comments.length === check.annotations.length)
    throw new Error(
      `The review has ${comments.length} of ${check.annotations.length} findings inline: some should be in its body`
    )
  return [
    ['annotations', annotationsBody(check, check.annotations)],
    ['review', reviewPageBody(review, comments)]
  ]
}

/** The /codegen bot: a comment on a pull request, answered by the tracking comment. */
async function trackingComment(): Promise<Shot[]> {
  const emulator = await startEmulator('success', 4824)
  const github = new SampleGitHub()
  await github.start()
  const comment = github.ask(
    '/codegen the parser drops the last field when it is quoted: fix it',
    true,
    'alice'
  )
  await step('success', emulator, {}, { github, event: comment, env: { GITHUB_EVENT_NAME: 'issue_comment' } })
  const thread = github.comments(PR.number).map(c => ({
    login: c.user.login,
    bot: c.user.type === 'Bot',
    markdown: c.body
  }))
  if (!thread.some(c => c.bot)) throw new Error('The action wrote no tracking comment')
  return [['tracking-comment', threadBody(thread)]]
}

/** Many runs from one step: each item's scenario chosen by the emulator's directive in its prompt. */
async function manyRuns(): Promise<Shot[]> {
  const emulator = await startEmulator('success', 4830)
  const runs = [
    ['api', 'success', 'Add request ids to the API logs'],
    ['web', 'success', 'Fix the flaky login test'],
    ['docs', 'no-pr', 'Check the docs for dead links'],
    ['cli', 'failure', 'Upgrade the CLI to Node 24']
  ]
    .map(([name, scenario, prompt]) => `- name: ${name}\n  prompt: '${prompt} [emulator:${scenario}]'`)
    .join('\n')
  const result = await step('failure', emulator, { runs, 'max-parallel': '4' })
  return [['many-runs', summaryBody(JOB, result.summary)]]
}

const SCENARIOS: Record<string, () => Promise<Shot[]>> = {
  summary: success,
  failure,
  verdict,
  findings,
  'tracking-comment': trackingComment,
  'many-runs': manyRuns
}

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars'
]

/** Chromium on `file` with `args`, in a profile of its own; its standard output. */
function chromium(args: string[], file: string): string {
  const profile = mkdtempSync(join(tmpdir(), 'screenshots-chromium-'))
  try {
    const run = spawnSync(
      CHROMIUM,
      [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, ...args, pathToFileURL(file).href],
      {
        encoding: 'utf8',
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024
      }
    )
    if (run.status !== 0)
      throw new Error(`Chromium failed on ${file}: ${run.error?.message ?? run.stderr.slice(-2000)}`)
    return run.stdout
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
}

/** The page measured in a first pass, then photographed at its own height. */
function photograph(htmlFile: string, pngFile: string): void {
  const width = COLUMN_PX + 2 * PAGE_MARGIN_PX
  const height = measuredHeight(chromium([`--window-size=${width},800`, '--dump-dom'], htmlFile))
  if (!height) throw new Error(`${htmlFile} did not measure itself`)
  const scale = `--force-device-scale-factor=${values.scale}`
  chromium([`--window-size=${width},${height}`, scale, `--screenshot=${pngFile}`], htmlFile)
}

const only = values.only ? values.only.split(',') : Object.keys(SCENARIOS)
const unknown = only.filter(name => !(name in SCENARIOS))
if (unknown.length) {
  console.error(`Unknown scenario ${unknown.join(', ')}: one of ${Object.keys(SCENARIOS).join(', ')}.`)
  process.exit(2)
}
const out = resolve(values.out)
const htmlDir = values.html ? resolve(values.html) : mkdtempSync(join(tmpdir(), 'screenshots-html-'))
mkdirSync(out, { recursive: true })
mkdirSync(htmlDir, { recursive: true })
const stylesheet = readFileSync(
  createRequire(import.meta.url).resolve('github-markdown-css/github-markdown-light.css'),
  'utf8'
)

try {
  for (const name of only) {
    console.log(`${name}: running the action`)
    for (const [file, body] of await SCENARIOS[name]!()) {
      const htmlFile = join(htmlDir, `${file}.html`)
      const pngFile = join(out, `${file}.png`)
      writeFileSync(htmlFile, page(stylesheet, file, body))
      photograph(htmlFile, pngFile)
      console.log(`  ${pngFile} (${Math.round(statSync(pngFile).size / 1024)} KB)`)
    }
  }
} catch (error) {
  console.error(`npm run screenshots: ${(error as Error).message}`)
  process.exitCode = 1
} finally {
  if (!values.html) rmSync(htmlDir, { recursive: true, force: true })
}
// A scenario that failed may leave its emulator listening.
process.exit(process.exitCode ?? 0)
