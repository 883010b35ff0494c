import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { FaultPlan } from '../../emulator/faults.js'
import {
  AgentRunEmulator,
  type EmulatedRunView,
  type Fault,
  type RecordedRequest,
  type RunScript
} from '../../emulator/index.js'
import { runBundledAction, type RunnerResult } from '../../scripts/runner-process.js'
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../src/api/client.js'
import { runActionInProcess } from './in-process.js'
import { entryMark, failsRequest, faultLabel, faultSchedule, type FaultSchedule } from './schedule.js'

/**
 * Runs the bundled action (or, for answers past a shorter request time limit, runAction in process)
 * against one fault schedule and checks what must hold whatever the faults:
 * one create (or resume), every log entry mirrored once and in order, outputs that match the run (or
 * one clear error after a bounded number of tries), and no step past timeout-minutes.
 */

const TOKEN = 'emulator-token'
/** How far past timeout-minutes the step may end: the last quick read (3 s), and the process's start and exit. */
export const TIMEOUT_SLACK_MS = 5_000

export interface ScheduleResult {
  seed: number
  description: string
  /** The properties that did not hold; empty when the schedule passed. */
  violations: string[]
  durationMs: number
  outcome: string
  requests: number
  /** Requests that repeated one that had just failed (same method, path, query and body). */
  retries: number
  /** Answers with status 429, injected or from the emulator's own limits. */
  rateLimited: number
  /** Faults that hit a request, by label. */
  faults: Record<string, number>
  /** The end of the step's console, for a failure's report. */
  consoleTail: string[]
}

export const replayCommand = (seeds: number[]): string => `FAULT_SEEDS=${seeds.join(',')} npm run test:faults`

export async function runSeed(seed: number): Promise<ScheduleResult> {
  return runSchedule(faultSchedule(seed))
}

export async function runSchedule(schedule: FaultSchedule): Promise<ScheduleResult> {
  const emulator = new AgentRunEmulator(schedule.emulator)
  await emulator.start()
  try {
    let runId: number | undefined
    let baseline = 0
    if (schedule.mode === 'resume') {
      if (schedule.missingRun) {
        runId = 4_040
      } else {
        runId = await earlierRun(emulator, schedule.earlier as RunScript)
        baseline = (emulator.run(runId) as EmulatedRunView).logs.length
      }
    }
    // Other jobs' runs: two older than the step's (before its script is queued, which they would take),
    // and two newer, added the moment the step's run exists: a look-up by key must pass them all.
    const neighbours = new Set<number>()
    let watchForRun: NodeJS.Timeout | undefined
    if (schedule.neighbours) {
      neighbours.add(emulator.addRun(originOf(`other-job-${schedule.seed}-a`)))
      neighbours.add(emulator.addRun(null))
      const known = emulator.runs().length
      watchForRun = setInterval(() => {
        if (emulator.runs().length <= known) return
        clearInterval(watchForRun)
        neighbours.add(emulator.addRun({ [ORIGIN]: { workflow: 'ci' } }))
        neighbours.add(emulator.addRun(originOf(`other-job-${schedule.seed}-b`)))
      }, 5)
    }
    emulator.queueScript(schedule.script)
    const firstRequest = emulator.requests.length
    emulator.injectFaults(...schedule.faults)

    const inputs = {
      'api-token': TOKEN,
      'org-id': '1',
      'base-url': emulator.baseUrl,
      prompt: `Fix the failing test (fault seed ${schedule.seed})`,
      ...(runId === undefined ? {} : { 'agent-run-id': String(runId) }),
      ...schedule.inputs
    }
    const killAfterMs = schedule.timeoutMs + 30_000
    // Answers that outlive a request time limit shorter than the client's own: in process, where
    // the limit is handed in; every other schedule runs the bundle as the runner does.
    const requestTimeoutMs = schedule.requestTimeoutMs
    const result = await (
      requestTimeoutMs === undefined
        ? runBundledAction({ inputs, killAfterMs })
        : runActionInProcess({ inputs, killAfterMs, serviceLimits: { requestTimeoutMs } })
    ).finally(() => clearInterval(watchForRun))
    const requests = emulator.requests.slice(firstRequest)
    // The run is judged as it ends: a step that stopped early must not be compared with a run caught midway.
    const startedAt =
      schedule.mode === 'create'
        ? requests.find(request => request.route === 'create' && request.status === 200)?.at
        : runId === undefined
          ? undefined
          : emulator.run(runId)?.resumes[0]?.at
    if (startedAt !== undefined) {
      const playedOut =
        startedAt +
        (schedule.script.staleAfterResumeMs ?? 0) +
        Math.max(...schedule.script.steps.map(step => step.at))
      await new Promise(resolve => setTimeout(resolve, Math.max(0, playedOut + 50 - Date.now())))
    }
    if (process.env.FAULT_TRACE) {
      const requestLines = requests.map(
        request =>
          `${request.at - (requests[0]?.at ?? 0)} ms ${request.method} ${request.path} ${JSON.stringify(request.query)} -> ${request.status}${request.fault ? ` (${request.fault})` : ''}`
      )
      writeFileSync(
        join(tmpdir(), `codegen-fault-seed-${schedule.seed}.log`),
        [schedule.description, '', ...requestLines, '', result.stdout, result.stderr].join('\n')
      )
    }
    return judge(schedule, emulator, result, requests, runId, baseline, neighbours)
  } finally {
    await emulator.stop()
  }
}

/** Creates the run a resume schedule resumes, through the service's own API, and lets it end. */
async function earlierRun(emulator: AgentRunEmulator, script: RunScript): Promise<number> {
  emulator.queueScript(script)
  const response = await fetch(`${emulator.baseUrl}/v1/organizations/1/agent/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'The earlier run' })
  })
  const { id } = (await response.json()) as { id: number }
  const ends = Math.max(...script.steps.map(step => step.at))
  await new Promise(resolve => setTimeout(resolve, ends + 30))
  return id
}

const announcedRun = /^Agent run (\d+) (?:created|resumed)(?:: (\S+))? \(status (.*)\)$/
const statusLine = /^Status .* → (.*) \((?:working|success|failure|paused)\)$/

function judge(
  schedule: FaultSchedule,
  emulator: AgentRunEmulator,
  result: RunnerResult,
  requests: RecordedRequest[],
  resumedId: number | undefined,
  baseline: number,
  neighbours: Set<number>
): ScheduleResult {
  const violations: string[] = []
  const fail = (message: string): void => void violations.push(message)
  const outputs = result.outputs
  const lines = result.stdout.split('\n')
  const errors = lines.filter(line => line.startsWith('::error::'))

  // Which rule hit which request: the emulator's own fault plan, replayed over the same routes.
  const plan = new FaultPlan()
  plan.add(schedule.faults)
  const hits: Array<Fault | undefined> = requests.map(request => plan.take(request.route))
  requests.forEach((request, index) => {
    if (hits[index]?.kind !== request.fault)
      fail(`replaying the fault plan disagrees at request ${index + 1}`)
  })
  const failed = (index: number): boolean => {
    const request = requests[index] as RecordedRequest
    const hit = hits[index]
    return (
      request.status === 0 ||
      request.status >= 400 ||
      (hit !== undefined && failsRequest(hit, schedule.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS))
    )
  }

  // -- the step ended, in time
  if (result.exitCode === null) fail('the step was killed: it hung')
  if (result.stdout.includes('Unexpected error')) fail('the step crashed with an unexpected error')
  if (result.durationMs > schedule.timeoutMs + TIMEOUT_SLACK_MS) {
    fail(
      `the step ran ${result.durationMs} ms, past timeout-minutes (${schedule.timeoutMs} ms) plus ${TIMEOUT_SLACK_MS} ms`
    )
  }

  // -- one create, or one resume; never sent again once one may have arrived
  const creates = requests.filter(request => request.route === 'create')
  const resumes = requests.filter(request => request.route === 'resume')
  let run: EmulatedRunView | undefined
  if (schedule.mode === 'create') {
    const runs = emulator.runs().filter(candidate => !neighbours.has(candidate.id))
    run = runs[0]
    if (runs.length > 1) fail(`the service created ${runs.length} runs`)
    // Whatever else went wrong, a step whose run was created reports that run, not a neighbour.
    if (run && outputs['agent-run-id'] !== String(run.id))
      fail(`output agent-run-id is "${outputs['agent-run-id']}", the run created for this step is ${run.id}`)
    if (schedule.expect !== 'error' && runs.length !== 1)
      fail(`the service created ${runs.length} runs, not 1`)
    if (resumes.length > 0) fail('a create schedule sent a resume')
    // A create reset before the handler was never read: it has no body to look at.
    const keys = new Set(
      creates.filter(request => request.body !== undefined).map(request => idempotencyKey(request.body))
    )
    if (keys.size > 1 || keys.has(undefined)) fail('the creates did not all carry one idempotency key')
    if (run && idempotencyKey({ metadata: run.metadata }) === undefined)
      fail('the run has no idempotency key')
    checkResends(creates, requests, 'create', run && serviceTime(run.created_at), fail)
  } else {
    run = resumedId === undefined ? undefined : emulator.run(resumedId)
    const resumed = run?.resumes.length ?? 0
    if (resumed > 1) fail(`the run was resumed ${resumed} times`)
    if (schedule.expect !== 'error' && resumed !== 1) fail(`the run was resumed ${resumed} times, not once`)
    if (creates.length > 0) fail('a resume schedule sent a create')
    checkResends(resumes, requests, 'resume', run?.resumes[0]?.at, fail)
  }

  // -- every entry of the run mirrored once, in order
  const logFile = outputs['log-file'] ?? ''
  const mirrored =
    logFile && existsSync(logFile)
      ? readFileSync(logFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map(line => JSON.parse(line) as unknown)
      : []
  if (outputs['log-count'] !== String(mirrored.length)) {
    fail(`log-count is ${outputs['log-count']} but the log file holds ${mirrored.length} entries`)
  }
  const expected = (run?.logs ?? []).slice(baseline).map(entryMark)
  const seen = mirrored.map(entryMark)
  // All of them, unless the step failed: then those it read, which the answers it got tell.
  const complete = schedule.expect !== 'error'
  const prefix = expected.slice(0, seen.length)
  if (complete ? !isDeepStrictEqual(seen, expected) : !isDeepStrictEqual(seen, prefix)) {
    fail(`mirrored entries ${seen.join(' ') || '(none)'}; the run's are ${expected.join(' ') || '(none)'}`)
  }
  // Every entry a log answer carried (whole, on time) reached the log file, also when the step failed.
  const read = Math.max(
    0,
    ...requests
      .filter(request => request.served !== undefined)
      .map(request => Number(request.query.skip ?? 0) + (request.served ?? 0) - baseline)
  )
  if (seen.length < read)
    fail(`the log answers carried ${read} of the run's entries; ${seen.length} mirrored`)
  // The console shows the same entries as the log file, unless told not to mirror there.
  if ((schedule.inputs['mirror-logs'] ?? 'console').includes('console')) {
    const shown = lines
      .filter(line => !line.startsWith('::debug::') && !line.startsWith('  │'))
      .map(entryMark)
      .filter(mark => mark !== undefined)
    if (!isDeepStrictEqual(shown, seen))
      fail(
        `the console shows entries ${shown.join(' ') || '(none)'}; the log file ${seen.join(' ') || '(none)'}`
      )
  }

  // -- outputs and the step's verdict
  const outcome = outputs['outcome'] ?? ''
  if (schedule.expect === 'success' || schedule.expect === 'timeout') {
    const timeout = schedule.expect === 'timeout'
    if (result.exitCode !== (timeout ? 1 : 0))
      fail(`exit code ${result.exitCode}, expected ${timeout ? 1 : 0}`)
    if (run) {
      const prs = run.github_pull_requests ?? []
      const want: Record<string, string> = {
        'agent-run-id': String(run.id),
        status: run.status ?? '',
        outcome: schedule.expect,
        'web-url': run.web_url ?? '',
        result: run.result ?? '',
        summary: run.summary ?? '',
        'pull-request-url': prs.find(pr => pr.url)?.url ?? '',
        'log-count': String(expected.length)
      }
      for (const [name, value] of Object.entries(want)) {
        if (outputs[name] !== value)
          fail(`output ${name} is ${JSON.stringify(outputs[name])}, the run's ${JSON.stringify(value)}`)
      }
      const pullRequests = safeJson(outputs['github-pull-requests'])
      if (!isDeepStrictEqual(pullRequests, prs)) fail("output github-pull-requests differs from the run's")
    }
    const wantErrors = timeout ? 1 : 0
    if (errors.length !== wantErrors)
      fail(`${errors.length} error messages, expected ${wantErrors}: ${errors.join(' | ')}`)
    if (timeout && errors[0] && !/did not end within timeout-minutes/.test(errors[0])) {
      fail(`the timeout's message is unclear: ${errors[0]}`)
    }
  } else {
    const permanent = schedule.permanent
    if (errors.some(line => /<\/?[a-z][^>]*>/i.test(line)))
      fail(`the error message carries markup: ${errors[0]}`)
    if (result.exitCode !== 1) fail(`exit code ${result.exitCode}, expected 1 (a permanent fault)`)
    if (outcome !== 'error') fail(`outcome ${outcome}, expected error`)
    if (errors.length !== 1) fail(`${errors.length} error messages, expected 1: ${errors.join(' | ')}`)
    else if (permanent && !permanent.message.test(errors[0] as string)) {
      fail(`the error does not say ${permanent.message}: ${errors[0]}`)
    }
    if (permanent) {
      const tries = requests.filter(request => permanent.bound.routes.includes(request.route as never)).length
      if (tries > permanent.bound.max) {
        fail(
          `${tries} requests on ${permanent.bound.routes.join('|')}, more than the bound ${permanent.bound.max}`
        )
      }
    }
  }
  // Outputs what it has: the run it announced, and the last status it showed.
  let announced: { id: string; url: string; status: string } | undefined
  for (const line of lines) {
    const started = announcedRun.exec(line)
    if (started) announced = { id: started[1] ?? '', url: started[2] ?? '', status: started[3] ?? '' }
    const changed = statusLine.exec(line)
    if (changed && announced) announced.status = changed[1] ?? ''
  }
  if (announced) {
    if (outputs['agent-run-id'] !== announced.id)
      fail(`output agent-run-id is "${outputs['agent-run-id']}", the step announced run ${announced.id}`)
    if (outputs['web-url'] !== announced.url)
      fail(`output web-url is "${outputs['web-url']}", the step announced ${announced.url}`)
    // A run followed to its end reports the final read's status; one cut short, the last one shown.
    const last = announced.status === 'none' ? '' : announced.status
    if (schedule.expect === 'error' && last && outputs['status'] !== last) {
      fail(`output status is "${outputs['status']}", the last status the step showed is "${last}"`)
    }
  } else if (outputs['agent-run-id']) {
    fail(`output agent-run-id is ${outputs['agent-run-id']} but the step announced no run`)
  }

  // -- figures
  const faults: Record<string, number> = {}
  hits.forEach(hit => {
    if (hit) faults[faultLabel(hit)] = (faults[faultLabel(hit)] ?? 0) + 1
  })
  let retries = 0
  const lastFailed = new Map<string, boolean>()
  requests.forEach((request, index) => {
    const key = `${request.method} ${request.path} ${JSON.stringify(request.query)} ${JSON.stringify(request.body)}`
    if (lastFailed.get(key)) retries++
    lastFailed.set(key, failed(index))
  })

  return {
    seed: schedule.seed,
    description: schedule.description,
    violations,
    durationMs: result.durationMs,
    outcome,
    requests: requests.length,
    retries,
    rateLimited: requests.filter(request => request.status === 429).length,
    faults,
    consoleTail: [
      ...lines.filter(line => line && !line.startsWith('::debug::') && !line.startsWith('::add-mask::')),
      ...result.stderr
        .split('\n')
        .filter(Boolean)
        .map(line => `stderr: ${line}`)
    ].slice(-12)
  }
}

/**
 * A write is sent again only when the service certainly did not act on it: never after one was
 * handled, and (but after a 429) only once the action has looked for its effect.
 */
function checkResends(
  writes: RecordedRequest[],
  requests: RecordedRequest[],
  what: 'create' | 'resume',
  /** When the write took effect (the run's creation, or its resume), if it did. */
  tookEffectAt: number | undefined,
  fail: (message: string) => void
): void {
  const later = tookEffectAt === undefined ? [] : writes.filter(request => request.at > tookEffectAt)
  if (later.length > 0)
    fail(`the ${what} was sent ${later.length} more times after one had reached the service`)
  for (let n = 1; n < writes.length; n++) {
    const previous = writes[n - 1] as RecordedRequest
    if (previous.status === 429) continue
    const between = requests.slice(
      requests.indexOf(previous) + 1,
      requests.indexOf(writes[n] as RecordedRequest)
    )
    const looked = between.some(request =>
      what === 'create'
        ? request.route === 'list-runs'
        : ['logs', 'logs-alpha', 'get'].includes(request.route)
    )
    if (!looked) fail(`${what} send ${n + 1} went out without first checking whether send ${n} had arrived`)
  }
}

/** The emulator's `2025-06-21 11:20:04.338000` (UTC, no zone) as epoch ms. */
function serviceTime(text: string | null): number | undefined {
  const ms = text ? Date.parse(`${text.replace(' ', 'T').slice(0, 23)}Z`) : Number.NaN
  return Number.isNaN(ms) ? undefined : ms
}

const ORIGIN = 'github_action'
const originOf = (key: string): Record<string, unknown> => ({ [ORIGIN]: { idempotency_key: key } })

function idempotencyKey(body: unknown): string | undefined {
  const origin = (body as { metadata?: { github_action?: { idempotency_key?: unknown } } } | undefined)
    ?.metadata?.github_action
  return typeof origin?.idempotency_key === 'string' ? origin.idempotency_key : undefined
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '')
  } catch {
    return undefined
  }
}

/** One failing schedule, as a report prints it: what broke, the schedule, the console's end, how to replay. */
export function describeFailure(result: ScheduleResult): string {
  return [
    `✗ ${result.description}`,
    ...result.violations.map(violation => `    - ${violation}`),
    `    outcome ${result.outcome || '(none)'} after ${result.durationMs} ms; console ends:`,
    ...result.consoleTail.map(line => `      | ${line.slice(0, 240)}`),
    `    replay: ${replayCommand([result.seed])}`
  ].join('\n')
}
