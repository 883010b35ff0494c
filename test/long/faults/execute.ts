import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentRunEmulator, type EmulatedRunView, type RunScript } from '../../../emulator/index.js'
import { runBundledAction } from '../../../scripts/runner-process.js'
import { VirtualClock } from '../../support/virtual-clock.js'
import { inTurn, runOnVirtualClock } from './in-process.js'
import { judge, type ScheduleResult } from './judge.js'
import { faultSchedule, type FaultSchedule } from './schedule.js'

/**
 * Runs the bundled action (or, for answers past the request time limit, the step in process on the
 * virtual clock) against one fault schedule, then judges (judge.ts) what must hold whatever
 * the faults: one create (or resume), every log entry mirrored once and in order, outputs that match
 * the run (or one clear error after a bounded number of tries), and no step past timeout-minutes.
 */

const TOKEN = 'emulator-token'
// Read once: a step in process has process.env to itself while it runs, beside the bundle's steps.
const ACTION_NODE = process.env.ACTION_NODE
const TRACE = !!process.env.FAULT_TRACE

/** Time as the schedule's step keeps it: the system's, or a virtual clock's (moved only by its runs). */
interface Time {
  now: () => number
  wait: (ms: number) => Promise<void>
}
const systemTime: Time = { now: Date.now, wait: ms => new Promise(resolve => setTimeout(resolve, ms)) }
const virtualTime = (clock: VirtualClock): Time => ({
  now: () => clock.now(),
  wait: ms => clock.run(() => clock.advance(ms))
})
export { TIMEOUT_SLACK_MS, type ScheduleResult } from './judge.js'

export const replayCommand = (seeds: number[]): string => `FAULT_SEEDS=${seeds.join(',')} npm run test:faults`

export async function runSeed(seed: number): Promise<ScheduleResult> {
  return runSchedule(faultSchedule(seed))
}

/** The schedule's step: on the virtual clock when it asks for it (one at a time), else the bundle. */
export async function runSchedule(schedule: FaultSchedule): Promise<ScheduleResult> {
  return schedule.virtualTime ? inTurn(() => runOn(schedule, new VirtualClock())) : runOn(schedule)
}

async function runOn(schedule: FaultSchedule, clock?: VirtualClock): Promise<ScheduleResult> {
  const time = clock ? virtualTime(clock) : systemTime
  let onCreate: (() => void) | undefined
  const emulator = new AgentRunEmulator({
    ...schedule.emulator,
    ...(clock ? { clock } : {}),
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
        runId = await earlierRun(emulator, schedule.earlier as RunScript, clock)
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
    const killAfterMs = schedule.timeoutMs + 30_000
    const result = clock
      ? await runOnVirtualClock(clock, { inputs, killAfterMs })
      : await runBundledAction({ inputs, killAfterMs, ...(ACTION_NODE ? { node: ACTION_NODE } : {}) })
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
      await time.wait(Math.max(0, playedOut + 50 - time.now()))
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
    return judge({ schedule, emulator, result, requests, resumedId: runId, baseline, neighbours })
  } finally {
    await emulator.stop()
  }
}

/** Creates the run a resume schedule resumes, through the service's own API, and lets it end. */
async function earlierRun(
  emulator: AgentRunEmulator,
  script: RunScript,
  clock?: VirtualClock
): Promise<number> {
  emulator.queueScript(script)
  const url = `${emulator.baseUrl}/v1/organizations/1/agent/run`
  const request = {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'The earlier run' })
  }
  const ends = Math.max(...script.steps.map(step => step.at))
  const create = async (): Promise<number> => {
    // On the virtual clock through its network, which follows the request while it is on its way.
    const response = clock ? await clock.network.service(url, request) : await fetch(url, request)
    return ((await response.json()) as { id: number }).id
  }
  if (!clock) {
    const id = await create()
    await systemTime.wait(ends + 30)
    return id
  }
  return clock.run(async () => {
    const id = await create()
    await clock.advance(ends + 30)
    return id
  })
}

const ORIGIN = 'github_action'
const originOf = (key: string): Record<string, unknown> => ({ [ORIGIN]: { idempotency_key: key } })

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
