import {
  AgentRunEmulator,
  type EmulatedRunView,
  type RecordedRequest,
  type RunScript
} from '../../emulator/index.js'
import { judge, type ScheduleResult } from '../long/faults/judge.js'
import type { FaultSchedule } from '../long/faults/schedule.js'
import { runFlowStep, type FlowResult } from './flow-step.js'
import { VirtualClock } from './virtual-clock.js'

/**
 * One fault schedule in process on the virtual clock (the step as the runner runs it: flow-step.ts),
 * judged by the fault suite's own checks (faults/judge.ts): the world of faults/execute.ts (the
 * earlier run of a resume, other jobs' runs beside a create) on a clock and emulator of its own.
 * Request time limits are the client's own (30 s), which cost nothing in virtual time: a slow answer
 * outlives one by being slower than 30 s.
 */

const TOKEN = 'emulator-token'
const ORIGIN = 'github_action'
const originOf = (key: string): Record<string, unknown> => ({ [ORIGIN]: { idempotency_key: key } })
/** The last step of a script: when it has played out. */
const lengthOf = (script: RunScript): number => Math.max(...script.steps.map(step => step.at))

export interface FlowScheduleResult extends ScheduleResult {
  step: FlowResult
  /** The step's requests, each `at` in virtual ms from the step's start. */
  sent: RecordedRequest[]
}

export async function runScheduleInFlow(schedule: FaultSchedule): Promise<FlowScheduleResult> {
  const clock = new VirtualClock()
  // Called on each answer: the moment the step's run exists (its create handled), others are added.
  let onAnswer = (): void => undefined
  const emulator = new AgentRunEmulator({ ...schedule.emulator, clock, onAnswer: () => onAnswer() })
  await emulator.start()
  try {
    let runId: number | undefined
    let baseline = 0
    if (schedule.mode === 'resume') {
      if (schedule.missingRun) {
        runId = 4_040
      } else {
        runId = await earlierRun(clock, emulator, schedule.earlier as RunScript)
        baseline = (emulator.run(runId) as EmulatedRunView).logs.length
      }
    }
    // Other jobs' runs: two older than the step's (before its script is queued, which they would take),
    // and two newer, added as the step's run is created: a look-up by key must pass them all.
    const neighbours = new Set<number>()
    if (schedule.neighbours) {
      neighbours.add(emulator.addRun(originOf(`other-job-${schedule.seed}-a`)))
      neighbours.add(emulator.addRun(null))
      const known = emulator.runs().length
      onAnswer = () => {
        if (emulator.runs().length <= known) return
        onAnswer = () => undefined
        neighbours.add(emulator.addRun({ [ORIGIN]: { workflow: 'ci' } }))
        neighbours.add(emulator.addRun(originOf(`other-job-${schedule.seed}-b`)))
      }
    }
    emulator.queueScript(schedule.script)
    const firstRequest = emulator.requests.length
    emulator.injectFaults(...schedule.faults)

    const result = await runFlowStep(clock, {
      inputs: {
        'api-token': TOKEN,
        'org-id': '1',
        'base-url': emulator.baseUrl,
        prompt: `Fix the failing test (fault seed ${schedule.seed})`,
        ...(runId === undefined ? {} : { 'agent-run-id': String(runId) }),
        ...schedule.inputs
      }
    })
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
      await clock.run(() => clock.advance(Math.max(0, playedOut + 50 - clock.now())))
    }
    return {
      ...judge({ schedule, emulator, result, requests, resumedId: runId, baseline, neighbours }),
      step: result,
      sent: requests.map(request => ({ ...request, at: request.at - result.startedAt }))
    }
  } finally {
    await emulator.stop()
  }
}

/** Creates the run a resume schedule resumes, through the service's own API, and lets it end. */
async function earlierRun(
  clock: VirtualClock,
  emulator: AgentRunEmulator,
  script: RunScript
): Promise<number> {
  emulator.queueScript(script)
  return clock.run(async () => {
    const response = await clock.network.service(`${emulator.baseUrl}/v1/organizations/1/agent/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'The earlier run' })
    })
    const { id } = (await response.json()) as { id: number }
    await clock.advance(lengthOf(script) + 30)
    return id
  })
}
