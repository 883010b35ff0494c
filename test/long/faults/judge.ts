import { existsSync, readFileSync } from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { FaultPlan } from '../../../emulator/faults.js'
import type { AgentRunEmulator, EmulatedRunView, Fault, RecordedRequest } from '../../../emulator/index.js'
import type { RunnerResult } from '../../../scripts/runner-process.js'
import { entryMark, failsRequest, faultLabel, type FaultSchedule } from './schedule.js'

/**
 * What must hold after a fault schedule, whatever the faults: the step ended in time; one create (or
 * resume), never sent again once one may have arrived; every log entry mirrored once and in order;
 * outputs that match the run (or one clear error after a bounded number of tries); the run it
 * announced in its outputs. Each check adds what did not hold to the schedule's violations.
 */

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

/** What the step did, as the checks read it. */
export interface Step {
  schedule: FaultSchedule
  emulator: AgentRunEmulator
  result: RunnerResult
  /** The step's requests to the emulator, in order. */
  requests: RecordedRequest[]
  /** The run a resume schedule resumed. */
  resumedId: number | undefined
  /** Entries the resumed run had before the step. */
  baseline: number
  /** Other jobs' runs beside the step's. */
  neighbours: Set<number>
}

type Fail = (message: string) => void

export function judge(step: Step): ScheduleResult {
  const { schedule, result, requests } = step
  const violations: string[] = []
  const fail: Fail = message => void violations.push(message)
  const lines = result.stdout.split('\n')
  const hits = faultHits(schedule, requests, fail)
  checkEnded(step, fail)
  const run = checkOneWrite(step, fail)
  const expected = checkMirrored(step, run, lines, fail)
  const errors = lines.filter(line => line.startsWith('::error::'))
  if (schedule.expect === 'success' || schedule.expect === 'timeout') {
    checkOutputsOfRun(step, run, expected.length, errors, fail)
  } else {
    checkOneClearError(step, errors, fail)
  }
  checkAnnouncedRun(schedule, result.outputs, lines, fail)
  return {
    seed: schedule.seed,
    description: schedule.description,
    violations,
    durationMs: result.durationMs,
    outcome: result.outputs['outcome'] ?? '',
    requests: requests.length,
    retries: retries(requests, hits),
    rateLimited: requests.filter(request => request.status === 429).length,
    faults: faultCounts(hits),
    consoleTail: consoleTail(result, lines)
  }
}

/** Which rule hit which request: the emulator's own fault plan, replayed over the same routes. */
function faultHits(
  schedule: FaultSchedule,
  requests: RecordedRequest[],
  fail: Fail
): Array<Fault | undefined> {
  const plan = new FaultPlan()
  plan.add(schedule.faults)
  const hits: Array<Fault | undefined> = requests.map(request => plan.take(request.route))
  requests.forEach((request, index) => {
    if (hits[index]?.kind !== request.fault)
      fail(`replaying the fault plan disagrees at request ${index + 1}`)
  })
  return hits
}

/** The step ended, in time. */
function checkEnded({ schedule, result }: Step, fail: Fail): void {
  if (result.exitCode === null) fail('the step was killed: it hung')
  if (result.stdout.includes('Unexpected error')) fail('the step crashed with an unexpected error')
  if (result.durationMs > schedule.timeoutMs + TIMEOUT_SLACK_MS) {
    fail(
      `the step ran ${result.durationMs} ms, past timeout-minutes (${schedule.timeoutMs} ms) plus ${TIMEOUT_SLACK_MS} ms`
    )
  }
}

/** One create, or one resume; never sent again once one may have arrived. Returns the step's run. */
function checkOneWrite(step: Step, fail: Fail): EmulatedRunView | undefined {
  const { schedule, emulator, requests } = step
  const creates = requests.filter(request => request.route === 'create')
  const resumes = requests.filter(request => request.route === 'resume')
  if (schedule.mode !== 'create') {
    const run = step.resumedId === undefined ? undefined : emulator.run(step.resumedId)
    const resumed = run?.resumes.length ?? 0
    if (resumed > 1) fail(`the run was resumed ${resumed} times`)
    if (schedule.expect !== 'error' && resumed !== 1) fail(`the run was resumed ${resumed} times, not once`)
    if (creates.length > 0) fail('a resume schedule sent a create')
    checkResends(resumes, requests, 'resume', run?.resumes[0]?.at, fail)
    return run
  }
  const runs = emulator.runs().filter(candidate => !step.neighbours.has(candidate.id))
  const run = runs[0]
  const outputs = step.result.outputs
  if (runs.length > 1) fail(`the service created ${runs.length} runs`)
  // Whatever else went wrong, a step whose run was created reports that run, not a neighbour.
  if (run && outputs['agent-run-id'] !== String(run.id))
    fail(`output agent-run-id is "${outputs['agent-run-id']}", the run created for this step is ${run.id}`)
  if (schedule.expect !== 'error' && runs.length !== 1) fail(`the service created ${runs.length} runs, not 1`)
  if (resumes.length > 0) fail('a create schedule sent a resume')
  // A create reset before the handler was never read: it has no body to look at.
  const keys = new Set(
    creates.filter(request => request.body !== undefined).map(request => idempotencyKey(request.body))
  )
  if (keys.size > 1 || keys.has(undefined)) fail('the creates did not all carry one idempotency key')
  if (run && idempotencyKey({ metadata: run.metadata }) === undefined) fail('the run has no idempotency key')
  checkResends(creates, requests, 'create', run && serviceTime(run.created_at), fail)
  return run
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
  fail: Fail
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

/** Every entry of the run mirrored once, in order, to the log file and the console. Returns the run's marks. */
function checkMirrored(step: Step, run: EmulatedRunView | undefined, lines: string[], fail: Fail): unknown[] {
  const { schedule, requests, baseline } = step
  const outputs = step.result.outputs
  const mirrored = logFileEntries(outputs['log-file'] ?? '')
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
  return expected
}

function logFileEntries(logFile: string): unknown[] {
  if (!logFile || !existsSync(logFile)) return []
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(line => JSON.parse(line) as unknown)
}

/** A run that succeeded or timed out: the step's verdict, and outputs equal to the run's. */
function checkOutputsOfRun(
  { schedule, result }: Step,
  run: EmulatedRunView | undefined,
  entries: number,
  errors: string[],
  fail: Fail
): void {
  const timeout = schedule.expect === 'timeout'
  const outputs = result.outputs
  if (result.exitCode !== (timeout ? 1 : 0)) fail(`exit code ${result.exitCode}, expected ${timeout ? 1 : 0}`)
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
      'log-count': String(entries)
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
}

/** A permanent fault: one clear error, after at most the bounded number of requests. */
function checkOneClearError({ schedule, result, requests }: Step, errors: string[], fail: Fail): void {
  const permanent = schedule.permanent
  const outcome = result.outputs['outcome'] ?? ''
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

const announcedRun = /^Agent run (\d+) (?:created|resumed)(?:: (\S+))? \(status (.*)\)$/
// The meanings console-text.ts gives a status (STATUS_MEANING).
const statusLine = /^Status .* → (.*) \((?:working|the run paused|the run ended|the run failed)\)$/

/** Outputs what it has: the run it announced, and the last status it showed. */
function checkAnnouncedRun(
  schedule: FaultSchedule,
  outputs: Record<string, string>,
  lines: string[],
  fail: Fail
): void {
  let announced: { id: string; url: string; status: string } | undefined
  for (const line of lines) {
    const started = announcedRun.exec(line)
    if (started) announced = { id: started[1] ?? '', url: started[2] ?? '', status: started[3] ?? '' }
    const changed = statusLine.exec(line)
    if (changed && announced) announced.status = changed[1] ?? ''
  }
  if (!announced) {
    if (outputs['agent-run-id'])
      fail(`output agent-run-id is ${outputs['agent-run-id']} but the step announced no run`)
    return
  }
  if (outputs['agent-run-id'] !== announced.id)
    fail(`output agent-run-id is "${outputs['agent-run-id']}", the step announced run ${announced.id}`)
  if (outputs['web-url'] !== announced.url)
    fail(`output web-url is "${outputs['web-url']}", the step announced ${announced.url}`)
  // A run followed to its end reports the final read's status; one cut short, the last one shown.
  const last = announced.status === 'none' ? '' : announced.status
  if (schedule.expect === 'error' && last && outputs['status'] !== last) {
    fail(`output status is "${outputs['status']}", the last status the step showed is "${last}"`)
  }
}

function faultCounts(hits: Array<Fault | undefined>): Record<string, number> {
  const faults: Record<string, number> = {}
  hits.forEach(hit => {
    if (hit) faults[faultLabel(hit)] = (faults[faultLabel(hit)] ?? 0) + 1
  })
  return faults
}

/** Requests that repeated one that had just failed (same method, path, query and body). */
function retries(requests: RecordedRequest[], hits: Array<Fault | undefined>): number {
  const failed = (request: RecordedRequest, hit: Fault | undefined): boolean =>
    request.status === 0 || request.status >= 400 || (hit !== undefined && failsRequest(hit))
  let count = 0
  const lastFailed = new Map<string, boolean>()
  requests.forEach((request, index) => {
    const key = `${request.method} ${request.path} ${JSON.stringify(request.query)} ${JSON.stringify(request.body)}`
    if (lastFailed.get(key)) count++
    lastFailed.set(key, failed(request, hits[index]))
  })
  return count
}

function consoleTail(result: RunnerResult, lines: string[]): string[] {
  return [
    ...lines.filter(line => line && !line.startsWith('::debug::') && !line.startsWith('::add-mask::')),
    ...result.stderr
      .split('\n')
      .filter(Boolean)
      .map(line => `stderr: ${line}`)
  ].slice(-12)
}

/** The emulator's `2025-06-21 11:20:04.338000` (UTC, no zone) as epoch ms. */
function serviceTime(text: string | null): number | undefined {
  const ms = text ? Date.parse(`${text.replace(' ', 'T').slice(0, 23)}Z`) : Number.NaN
  return Number.isNaN(ms) ? undefined : ms
}

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
