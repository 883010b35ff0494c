import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  AgentRunEmulator,
  type EmulatedRunView,
  type RecordedRequest,
  type RunScript
} from '../../../emulator/index.js'
import { runBundledAction, type RunnerResult } from '../../../scripts/runner-process.js'
import { runFlowStep, type FlowResult } from '../../support/flow-step.js'
import { VirtualClock } from '../../support/virtual-clock.js'
import { judge, type ScheduleResult } from './judge.js'
import { faultSchedule, type FaultSchedule } from './schedule.js'

/**
 * Runs the bundled action (or, for answers past the request time limit and steps that time out, the
 * step in process on the virtual clock) against one fault schedule, then judges (judge.ts) what must
 * hold whatever the faults: one create (or resume), every log entry mirrored once and in order,
 * outputs that match the run (or one clear error after a bounded number of tries), and no step past
 * timeout-minutes. Both run in one world: the earlier run of a resume, other jobs' runs beside a
 * create, the run played out before it is judged.
 */

const TOKEN = 'emulator-token'
// Read once: a step in process has process.env to itself while it runs, beside the bundle's steps.
const ACTION_NODE = process.env.ACTION_NODE
const TRACE = !!process.env.FAULT_TRACE
const ORIGIN = 'github_action'
const originOf = (key: string): Record<string, unknown> => ({ [ORIGIN]: { idempotency_key: key } })
/** The last step of a script: when it has played out. */
const lengthOf = (script: RunScript): number => Math.max(...script.steps.map(step => step.at))

export { TIMEOUT_SLACK_MS, type ScheduleResult } from './judge.js'

export const replayCommand = (seeds: number[]): string => `FAULT_SEEDS=${seeds.join(',')} npm run test:faults`

/** A schedule's step in process: what the suite judges, the step's result and its requests. */
export interface InProcessScheduleResult extends ScheduleResult {
  step: FlowResult
  /** The step's requests, each `at` in virtual ms from the step's start. */
  sent: RecordedRequest[]
}

export async function runSeed(seed: number): Promise<ScheduleResult> {
  return runSchedule(faultSchedule(seed))
}

/** The schedule's step: in process on the virtual clock when it asks for it, else the bundle. */
export async function runSchedule(schedule: FaultSchedule): Promise<ScheduleResult> {
  if (schedule.virtualTime) return runScheduleInProcess(schedule)
  return (await runOn(schedule, bundle)).judged
}

/**
 * The schedule's step in process on a virtual clock of its own, as the runner runs the bundle
 * (flow-step.ts), so that it is judged exactly as the bundle's is; waits cost no real time and the
 * request time limits are the client's own (30 s). One at a time: a step in process owns
 * process.env and stdout while it runs.
 */
export function runScheduleInProcess(schedule: FaultSchedule): Promise<InProcessScheduleResult> {
  return inTurn(async () => {
    const { judged, result, requests } = await runOn(schedule, inProcess(new VirtualClock()))
    const sent = requests.map(request => ({ ...request, at: request.at - result.startedAt }))
    return { ...judged, step: result, sent }
  })
}

let lane: Promise<unknown> = Promise.resolve()

/** Runs `work` once every earlier work of the lane has ended. */
function inTurn<T>(work: () => Promise<T>): Promise<T> {
  const turn = lane.then(work, work)
  lane = turn.catch(() => undefined)
  return turn
}

/** A POST to the service, as the world sends one of its own. */
type Post = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string }
) => Promise<{ json(): Promise<unknown> }>

/** Where the step runs, and the time the world keeps around it. */
interface Place<R extends RunnerResult> {
  /** The emulator's clock: the virtual one the step keeps, or (absent) the system's. */
  clock?: VirtualClock
  now(): number
  /** Runs `work` to its end (on a virtual clock: driving the clock meanwhile). */
  run<T>(work: () => Promise<T>): Promise<T>
  /** Waits `ms`, inside `run`. */
  wait(ms: number): Promise<void>
  post: Post
  /** The step; past `killAfterMs` it counts as killed (exit code null): it hung. */
  step(inputs: Record<string, string>, killAfterMs: number): Promise<R>
}

const bundle: Place<RunnerResult> = {
  now: Date.now,
  run: work => work(),
  wait: ms => new Promise(resolve => setTimeout(resolve, ms)),
  post: (url, init) => fetch(url, init),
  step: (inputs, killAfterMs) =>
    runBundledAction({ inputs, killAfterMs, ...(ACTION_NODE ? { node: ACTION_NODE } : {}) })
}

function inProcess(clock: VirtualClock): Place<FlowResult> {
  return {
    clock,
    now: () => clock.now(),
    run: work => clock.run(work),
    wait: ms => clock.advance(ms),
    // Through the clock's network, which follows the request while it is on its way.
    post: (url, init) => clock.network.service(url, init),
    step: async (inputs, killAfterMs) => {
      const result = await runFlowStep(clock, { inputs, terminateAfterMs: killAfterMs })
      return result.terminatedAtMs === undefined ? result : { ...result, exitCode: null }
    }
  }
}

async function runOn<R extends RunnerResult>(
  schedule: FaultSchedule,
  place: Place<R>
): Promise<{ judged: ScheduleResult; result: R; requests: RecordedRequest[] }> {
  let onCreate: (() => void) | undefined
  const emulator = new AgentRunEmulator({
    ...schedule.emulator,
    ...(place.clock ? { clock: place.clock } : {}),
    onAnswer: (request, body) => {
      schedule.emulator.onAnswer?.(request, body)
      if (request.route === 'create') onCreate?.()
    }
  })
  await emulator.start()
  try {
    let runId: number | undefined
    let baseline = 0
    if (schedule.mode === 'resume') {
      if (schedule.missingRun) {
        runId = 4_040
      } else {
        runId = await earlierRun(place, emulator, schedule.earlier as RunScript)
        baseline = (emulator.run(runId) as EmulatedRunView).logs.length
      }
    }
    // Other jobs' runs: two older than the step's (before its script is queued, which they would take),
    // and two newer, added as the step's create is answered: a look-up by key must pass them all.
    const neighbours = new Set<number>()
    if (schedule.neighbours) {
      neighbours.add(emulator.addRun(originOf(`other-job-${schedule.seed}-a`)))
      neighbours.add(emulator.addRun(null))
      const known = emulator.runs().length
      onCreate = () => {
        if (emulator.runs().length <= known) return
        onCreate = undefined
        neighbours.add(emulator.addRun({ [ORIGIN]: { workflow: 'ci' } }))
        neighbours.add(emulator.addRun(originOf(`other-job-${schedule.seed}-b`)))
      }
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
    const result = await place.step(inputs, schedule.timeoutMs + 30_000)
    const requests = emulator.requests.slice(firstRequest)
    // The run is judged as it ends: a step that stopped early must not be compared with a run caught midway.
    const startedAt =
      schedule.mode === 'create'
        ? requests.find(request => request.route === 'create' && request.status === 200)?.at
        : runId === undefined
          ? undefined
          : emulator.run(runId)?.resumes[0]?.at
    if (startedAt !== undefined) {
      const playedOut = startedAt + (schedule.script.staleAfterResumeMs ?? 0) + lengthOf(schedule.script)
      await place.run(() => place.wait(Math.max(0, playedOut + 50 - place.now())))
    }
    if (TRACE) {
      const requestLines = requests.map(
        request =>
          `${request.at - (requests[0]?.at ?? 0)} ms ${request.method} ${request.path} ${JSON.stringify(request.query)} -> ${request.status}${request.fault ? ` (${request.fault})` : ''}`
      )
      writeFileSync(
        join(tmpdir(), `codegen-fault-seed-${schedule.seed}.log`),
        [schedule.description, '', ...requestLines, '', result.stdout, result.stderr].join('\n')
      )
    }
    const judged = judge({ schedule, emulator, result, requests, resumedId: runId, baseline, neighbours })
    return { judged, result, requests }
  } finally {
    await emulator.stop()
  }
}

/** Creates the run a resume schedule resumes, through the service's own API, and lets it end. */
async function earlierRun<R extends RunnerResult>(
  place: Place<R>,
  emulator: AgentRunEmulator,
  script: RunScript
): Promise<number> {
  emulator.queueScript(script)
  return place.run(async () => {
    const response = await place.post(`${emulator.baseUrl}/v1/organizations/1/agent/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'The earlier run' })
    })
    const { id } = (await response.json()) as { id: number }
    await place.wait(lengthOf(script) + 30)
    return id
  })
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
