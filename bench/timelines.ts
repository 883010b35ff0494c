import type { LogEntry, RunScript, ScriptStep } from '../emulator/index.js'
import { mulberry32 } from '../emulator/random.js'

/**
 * The runs the benchmark follows, as emulator scripts. Seeded, so every run of the benchmark
 * replays the same timelines and two commits are compared on the same work.
 *
 * The realistic timeline is a model of an agent at work, written down before the watcher's pacing
 * was tuned and not changed since:
 * - the sandbox starts and the first plan lands 2–6 s after the create;
 * - work phases of 3–8 steps: each step is one model turn (4–15 s of silence) whose entries land
 *   together, 1–3 within a second (a thought, then the tool calls and their results): the bursts;
 * - between phases a long tool (installing, building, a test suite): 40–150 s of silence;
 * - the end: a last step (the pull request), one model turn later the FINAL_ANSWER entry, and the
 *   service closes the run 2–10 s after that (it still writes the result, the summary and the pull
 *   requests), ending it COMPLETE.
 */

export interface Timeline {
  script: RunScript
  /** ms after the create at which the run takes its terminal status. */
  endAt: number
  /** ms after the create of each log entry, in order. */
  entryTimes: number[]
}

export type Ending =
  /** FINAL_ANSWER one model turn after the last step, the terminal status `finalGapMs` after it. */
  | { kind: 'final-answer'; finalGapMs: [number, number] }
  /** ERROR at a random moment of the run's second half, no FINAL_ANSWER (a crash, a cancellation). */
  | { kind: 'error' }

export interface AgentTimelineOptions {
  /** The run's length; a final-answer ending falls within 10 s of it. */
  durationMs: number
  ending: Ending
  /** A final-answer ending exactly this long after the create (runs that end together); the rest as seeded. */
  endAtMs?: number
}

export const REALISTIC_FINAL_GAP: [number, number] = [2_000, 10_000]

const TOOLS = ['view_file', 'ripgrep_search', 'run_command', 'edit_file', 'list_directory']
const PROSE =
  'Reading the module and its tests to see where the quoted field handling diverges from the grammar; ' +
  'the fix should stay local to the parser and keep the public API unchanged. '

function text(random: () => number, min: number, max: number): string {
  const length = Math.round(min + random() * (max - min))
  return PROSE.repeat(Math.ceil(length / PROSE.length)).slice(0, length)
}

/** One entry of a step: a thought first, then tool calls with their output (200 B to 1.5 KB). */
function stepEntry(random: () => number, n: number, first: boolean): Partial<LogEntry> {
  if (first && random() < 0.6)
    return { message_type: 'PLAN_EVALUATION', thought: `#${n} ${text(random, 150, 600)}` }
  const tool = TOOLS[Math.floor(random() * TOOLS.length)] as string
  if (random() < 0.04) {
    return {
      message_type: 'ERROR',
      tool_name: tool,
      observation: { error: `#${n} ${text(random, 80, 300)}` }
    }
  }
  return {
    message_type: 'ACTION',
    tool_name: tool,
    tool_input: { path: `src/module_${n % 17}.ts`, query: text(random, 10, 60) },
    tool_output: { content: text(random, 100, 1_200) },
    thought: random() < 0.5 ? text(random, 40, 200) : undefined,
    observation: `#${n} ${text(random, 20, 120)}`
  }
}

const between = (random: () => number, [min, max]: [number, number]): number =>
  Math.round(min + random() * (max - min))

/** A run of the agent model above. */
export function agentTimeline(seed: number, options: AgentTimelineOptions): Timeline {
  const random = mulberry32(seed)
  const { durationMs, ending } = options
  let endAt: number
  let finalAnswerAt: number | undefined
  let lastStepAt: number
  if (ending.kind === 'final-answer') {
    // Drawn even when endAtMs replaces it, so the rest of the timeline stays the seed's.
    const seeded = durationMs + between(random, [-10_000, 10_000])
    endAt = options.endAtMs ?? seeded
    finalAnswerAt = endAt - between(random, ending.finalGapMs)
    lastStepAt = finalAnswerAt - between(random, [4_000, 15_000])
  } else {
    endAt = between(random, [durationMs / 2, durationMs])
    lastStepAt = endAt
  }

  const entries: Array<{ at: number; log: Partial<LogEntry> }> = []
  let n = 0
  let t = between(random, [2_000, 6_000])
  while (t < lastStepAt) {
    const steps = 3 + Math.floor(random() * 6)
    for (let step = 0; step < steps && t < lastStepAt; step++) {
      const burst = 1 + Math.floor(random() * 3)
      for (let i = 0; i < burst; i++) {
        const at = t + Math.round(i * (100 + random() * 400))
        if (at < lastStepAt) entries.push({ at, log: stepEntry(random, ++n, i === 0) })
      }
      t += between(random, [4_000, 15_000])
    }
    t += between(random, [40_000, 150_000])
  }
  const steps: ScriptStep[] = [{ at: 0, status: 'ACTIVE' }, ...entries]
  if (ending.kind === 'final-answer' && finalAnswerAt !== undefined) {
    steps.push({
      at: lastStepAt,
      log: {
        message_type: 'ACTION',
        tool_name: 'create_pr',
        tool_input: { title: 'Fix quoted field parsing', head_branch_name: 'codegen/fix' },
        tool_output: { number: 42, url: 'https://github.com/octo-org/octo-repo/pull/42' }
      }
    })
    steps.push({
      at: finalAnswerAt,
      log: {
        message_type: 'FINAL_ANSWER',
        observation: `Fixed the parser; ${n} steps. ${text(random, 100, 400)}`
      }
    })
    steps.push({
      at: endAt,
      status: 'COMPLETE',
      result: 'Fixed quoted field parsing.',
      summary: 'Fixed the parser and opened a pull request.',
      pullRequests: [
        {
          id: 42,
          title: 'Fix quoted field parsing',
          url: 'https://github.com/octo-org/octo-repo/pull/42',
          head_branch_name: 'codegen/fix'
        }
      ]
    })
  } else {
    steps.push({ at: endAt, status: 'ERROR', result: 'The agent stopped: the sandbox was lost.' })
  }
  const entryTimes = steps.filter(step => step.log).map(step => step.at)
  return { script: { steps }, endAt, entryTimes }
}

/** The same timeline `factor` times faster. */
export function compressed(timeline: Timeline, factor: number): Timeline {
  const scale = (at: number): number => Math.round(at / factor)
  return {
    script: {
      ...timeline.script,
      steps: timeline.script.steps.map(step => ({ ...step, at: scale(step.at) }))
    },
    endAt: scale(timeline.endAt),
    entryTimes: timeline.entryTimes.map(scale)
  }
}

/**
 * A run that writes `count` short entries evenly over `durationMs`, the last a FINAL_ANSWER one
 * model turn (2 s) before the end, then ends COMPLETE: a busy run, for a poll-interval far below
 * what the rate limits allow.
 */
export function busyRun(count: number, durationMs: number): Timeline {
  const steps: ScriptStep[] = [{ at: 0, status: 'ACTIVE' }]
  const last = durationMs - 2_000
  for (let n = 1; n <= count; n++) {
    const at = Math.round((last * n) / count)
    steps.push({
      at,
      log:
        n === count
          ? { message_type: 'FINAL_ANSWER', observation: `Done after ${count} steps.` }
          : { message_type: 'ACTION', tool_name: 'run_command', observation: `Step ${n} of ${count}.` }
    })
  }
  steps.push({ at: durationMs, status: 'COMPLETE', result: 'Done.', summary: 'A busy run.' })
  return {
    script: { steps },
    endAt: durationMs,
    entryTimes: steps.filter(step => step.log).map(step => step.at)
  }
}

/** `count` entries (of about 2 KB, or `fillerRepeats` lines), all in the log at the create, then COMPLETE. */
export function largeRun(count: number, fillerRepeats = 28): Timeline {
  const filler = 'Reading the generated sources and comparing them with the schema. '.repeat(fillerRepeats)
  const steps: ScriptStep[] = [{ at: 0, status: 'ACTIVE' }]
  for (let n = 1; n <= count; n++) {
    steps.push({
      at: 0,
      log:
        n % 2 === 1
          ? { message_type: 'PLAN_EVALUATION', thought: `Entry ${n} of ${count}. ${filler}` }
          : {
              message_type: 'ACTION',
              tool_name: 'view_file',
              tool_input: { path: `src/generated/model_${n}.ts` },
              tool_output: { content: filler },
              observation: `Entry ${n} of ${count}.`
            }
    })
  }
  steps.push({ at: 0, status: 'COMPLETE', result: `Regenerated ${count} models.`, summary: 'A long run.' })
  return { script: { steps }, endAt: 0, entryTimes: steps.filter(step => step.log).map(() => 0) }
}
