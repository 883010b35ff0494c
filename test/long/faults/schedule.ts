import { mulberry32 } from '../../../emulator/random.js'
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../../src/api/client.js'
import type {
  EmulatorOptions,
  Fault,
  FaultRule,
  LogEntry,
  RouteName,
  RunScript,
  ScriptPullRequest,
  ScriptStep
} from '../../../emulator/index.js'

/**
 * Seeded fault schedules for the fault-injection suite. A seed always gives the same schedule: the
 * faults and where they hit, the run's script, create or resume, the inputs. What the bundle does
 * with them is timed by real clocks, so a seed replays the same faults against the same run, though
 * a poll may land a few milliseconds earlier or later; a schedule on the virtual clock replays exactly.
 */

/**
 * The client's own request time limit (30 s). The schedules whose answers outlive it ('slow past
 * request timeout', 'never answers') run in process on the virtual clock (execute.ts), where waiting
 * one out costs no real time; so do those that time out, whose deadline the judge holds to the
 * millisecond, which only virtual time makes hold at any machine speed. The others run the bundle.
 */
export const REQUEST_TIMEOUT_MS = DEFAULT_REQUEST_TIMEOUT_MS

/** How long, at least, a slow answer of the bundle's schedules takes: a second or so, answered in time. */
const SLOW_IN_TIME_MS = 800

/** The client's tries of a request that fails (not refused with 429). */
const MAX_ATTEMPTS = 6

/** What one answer past the time limit costs a step on the virtual clock: the limit, and a backoff. */
const PAST_LIMIT_COST_MS = REQUEST_TIMEOUT_MS + 5_000

class Dice {
  private readonly next: () => number

  constructor(seed: number) {
    this.next = mulberry32(seed)
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T
  }

  weighted<T>(table: ReadonlyArray<readonly [T, number]>): T {
    const total = table.reduce((sum, [, weight]) => sum + weight, 0)
    let roll = this.next() * total
    for (const [value, weight] of table) {
      roll -= weight
      if (roll < 0) return value
    }
    return (table[table.length - 1] as readonly [T, number])[0]
  }
}

// ---------------------------------------------------------------------------------------------
// Faults, each with a label for the suite's figures

const LABELS = new WeakMap<Fault, string>()

/** How the figures name a fault: "503", "429 + Retry-After", "reset after handler", "drift: status null"… */
export function faultLabel(fault: Fault): string {
  return LABELS.get(fault) ?? fault.kind
}

function labelled<F extends Fault>(fault: F, label: string): F {
  LABELS.set(fault, label)
  return fault
}

const status = (code: number): Fault => labelled({ kind: 'status', status: code }, String(code))
const retryAfter = (seconds: number): Fault =>
  labelled({ kind: 'status', status: 429, retryAfter: seconds }, '429 + Retry-After')
const resetBefore = (): Fault => labelled({ kind: 'reset-before' }, 'reset before handler')
const resetAfter = (): Fault => labelled({ kind: 'reset-after' }, 'reset after handler')
const slow = (delayMs: number): Fault =>
  labelled(
    { kind: 'slow', delayMs },
    delayMs >= REQUEST_TIMEOUT_MS ? 'slow past request timeout' : 'slow (answered in time)'
  )
const malformed = (): Fault => labelled({ kind: 'malformed' }, 'malformed JSON')
const truncated = (): Fault => labelled({ kind: 'truncated' }, 'truncated JSON')

/** True when the fault costs the create one of its sends: the request was not handled, yet not refused with 429. */
function costsASend(fault: Fault): boolean {
  return fault.kind === 'reset-before' || (fault.kind === 'status' && fault.status !== 429)
}

/** True when the client sees the request fail (and retries it, or for a write, checks first). */
export function failsRequest(fault: Fault, requestTimeoutMs = REQUEST_TIMEOUT_MS): boolean {
  if (fault.kind === 'slow') return fault.delayMs >= requestTimeoutMs
  return fault.kind !== 'drift'
}

type FaultMaker = (dice: Dice) => Fault

const TRANSIENT: ReadonlyArray<readonly [FaultMaker, number]> = [
  [() => status(429), 2],
  [dice => retryAfter(dice.int(0, 1)), 2],
  [() => status(500), 1],
  [() => status(502), 1],
  [() => status(503), 1.5],
  [() => resetBefore(), 1.5],
  [() => resetAfter(), 1.5],
  [dice => slow(dice.int(100, 400)), 1],
  [dice => slow(REQUEST_TIMEOUT_MS + dice.int(200, 600)), 1],
  [() => malformed(), 1],
  [() => truncated(), 1]
]

/** Faults of a resume that leave no doubt, or leave a trace (the run restarts): checked in seconds. */
const RESUME_TRANSIENT: ReadonlyArray<readonly [FaultMaker, number]> = [
  [() => status(429), 2],
  [dice => retryAfter(dice.int(0, 1)), 2],
  [() => resetAfter(), 2],
  [dice => slow(dice.int(100, 400)), 1],
  [dice => slow(REQUEST_TIMEOUT_MS + dice.int(200, 600)), 1.5],
  [() => malformed(), 1],
  [() => truncated(), 1]
]

/** A resume that never reached the service is only known as such after the resume grace (30 s). */
const RESUME_UNSEEN: ReadonlyArray<readonly [FaultMaker, number]> = [
  [() => status(503), 1],
  [() => status(502), 1],
  [() => resetBefore(), 1]
]

const transient = (dice: Dice): Fault => dice.weighted(TRANSIENT)(dice)

// ---------------------------------------------------------------------------------------------
// Drift of the ALPHA log endpoint

type Page = Record<string, unknown>
type Mutate = (page: Page) => Page

const entriesOf = (page: Page): Array<Record<string, unknown>> =>
  Array.isArray(page.logs) ? (page.logs as Array<Record<string, unknown>>) : []

const eachEntry =
  (change: (entry: Record<string, unknown>) => Record<string, unknown>): Mutate =>
  page => ({ ...page, logs: entriesOf(page).map(entry => change({ ...entry })) })

/** Every variant keeps each entry's `thought`, which carries the mark the suite counts entries by. */
const DRIFTS: ReadonlyArray<readonly [string, (dice: Dice) => Mutate, number]> = [
  [
    'unknown message_type',
    dice => {
      const type = dice.pick(['TOOL_RESULT_V2', 'REFLECTION', 'agent_step', ''])
      return eachEntry(entry => ({ ...entry, message_type: type }))
    },
    1
  ],
  [
    'observation as text',
    () =>
      eachEntry(entry => ({
        ...entry,
        observation: entry.observation === null ? 'null' : JSON.stringify(entry.observation)
      })),
    1
  ],
  [
    'observation as object',
    () => eachEntry(entry => ({ ...entry, observation: { text: entry.observation, truncated: false } })),
    1
  ],
  ['observation null', () => eachEntry(entry => ({ ...entry, observation: null })), 1],
  [
    'missing fields',
    dice => {
      const entryFields = [
        'created_at',
        'tool_name',
        'tool_input',
        'tool_output',
        'message_type',
        'agent_run_id'
      ]
      const pageFields = ['total_logs', 'page', 'size', 'pages', 'web_url', 'result', 'metadata']
      const dropEntry = entryFields.filter(() => dice.chance(0.4))
      const dropPage = pageFields.filter(() => dice.chance(0.4))
      return page => {
        const drifted = eachEntry(entry => {
          for (const field of dropEntry) delete entry[field]
          return entry
        })(page)
        for (const field of dropPage) delete drifted[field]
        return drifted
      }
    },
    1.5
  ],
  [
    'extra fields',
    () => page => ({
      ...eachEntry(entry => ({ ...entry, span_id: 'sp_91f2', token_usage: { input: 812, output: 64 } }))(
        page
      ),
      next_cursor: null,
      reverse: false,
      trace: { region: 'us-east-1' }
    }),
    1
  ],
  ['status null', () => page => ({ ...page, status: null }), 1.5],
  [
    'status missing',
    () => page => {
      const drifted = { ...page }
      delete drifted.status
      return drifted
    },
    0.5
  ],
  [
    'total_logs lagging',
    dice => {
      const lag = dice.int(1, 4)
      return page => ({ ...page, total_logs: Math.max(0, Number(page.total_logs) - lag) })
    },
    1.5
  ],
  [
    'total_logs ahead',
    dice => {
      const lead = dice.int(1, 30)
      return page => ({ ...page, total_logs: Number(page.total_logs) + lead })
    },
    1.5
  ],
  ['total_logs null', () => page => ({ ...page, total_logs: null }), 0.5]
]

function drift(dice: Dice, among = DRIFTS): Fault {
  const [name, make] = dice.weighted(among.map(([label, maker, weight]) => [[label, maker], weight] as const))
  return labelled({ kind: 'drift', mutate: make(dice) }, `drift: ${name}`)
}

// ---------------------------------------------------------------------------------------------
// Run scripts: short, with log entries of every shape the service has been seen to send

/** The mark each scripted entry carries in its thought: "[e7]". The suite counts entries by it. */
export const entryMark = (entry: unknown): string | undefined =>
  /\[e(\d+)\]/.exec(JSON.stringify(entry ?? null))?.[0]

type Entry = Partial<LogEntry>

const THOUGHTS = [
  'Reading the failing test first.',
  'The parser skips one character too many after a closing quote.',
  'Running the whole suite to be sure nothing else breaks.',
  'Opening a pull request with the fix.',
  'Checking the changelog conventions.',
  'Multi-line thought:\n- first, reproduce\n- then fix',
  'Ünïcödé and emoji 🚀 in a thought.'
]

function observation(dice: Dice): Entry['observation'] {
  return dice.weighted<() => Entry['observation']>([
    [() => 'exit code 0', 3],
    [() => ({ exit_code: dice.int(0, 2), stdout: 'ok\n', files: ['src/parser.ts'] }), 2],
    [() => null, 2],
    [() => 'line one\nline two\n\tindented', 0.5],
    [() => 'x'.repeat(dice.int(1_000, 3_000)), 0.3]
  ])()
}

function logEntry(dice: Dice, mark: number, finalAnswer: boolean): Entry {
  const thought = `[e${mark}] ${dice.pick(THOUGHTS)}`
  const createdAt = dice.weighted<Entry['created_at'] | undefined>([
    [undefined, 8],
    [null, 1],
    ['2025-06-21 11:20:04.338398', 1]
  ])
  const base: Entry = { thought, ...(createdAt === undefined ? {} : { created_at: createdAt }) }
  if (finalAnswer) return { ...base, message_type: 'FINAL_ANSWER', observation: 'Fixed; the suite passes.' }
  const type = dice.weighted<string | null>([
    ['ACTION', 4],
    ['PLAN_EVALUATION', 2],
    ['ERROR', 1],
    ['USER_MESSAGE', 0.5],
    ['TOOL_RESULT_V2', 0.7],
    ['action', 0.4],
    [null, 0.4]
  ])
  if (type === 'ACTION' || type === 'action') {
    return {
      ...base,
      message_type: type,
      tool_name: dice.pick(['ripgrep_search', 'view_file', 'run_command', 'create_pr']),
      tool_input: dice.chance(0.8) ? { path: 'src/parser.ts', start_line: dice.int(1, 90) } : null,
      tool_output: dice.chance(0.6) ? { ok: true, lines: dice.int(0, 40) } : null,
      observation: observation(dice)
    }
  }
  return { ...base, message_type: type, observation: observation(dice) }
}

/** `count` distinct moments in [from, to], ascending. */
function moments(dice: Dice, count: number, from: number, to: number): number[] {
  const chosen = new Set<number>()
  while (chosen.size < count) chosen.add(dice.int(from, to))
  return [...chosen].sort((a, b) => a - b)
}

interface ScriptShape {
  /** ms until the ending; undefined: the run never ends (the step times out). */
  durationMs?: number
  entries: number
  firstMark: number
  staleAfterResumeMs?: number
  result: string
}

function runScript(dice: Dice, shape: ScriptShape): RunScript {
  const steps: ScriptStep[] = [{ at: 0, status: 'ACTIVE' }]
  const lastEntryAt = shape.durationMs === undefined ? 1_200 : shape.durationMs - 40
  const times = moments(dice, shape.entries, 20, Math.max(20 + shape.entries, lastEntryAt))
  const finalAnswer = shape.durationMs !== undefined && shape.entries > 0 && dice.chance(0.8)
  times.forEach((at, index) => {
    const last = index === times.length - 1
    steps.push({ at, log: logEntry(dice, shape.firstMark + index, finalAnswer && last) })
  })
  if (shape.entries > 1 && dice.chance(0.25)) {
    // A status that moves while the run works: a known working one, or one nobody documented.
    steps.push({ at: times[1] as number, status: dice.pick(['RUNNING', 'EVALUATION', 'THINKING']) })
  }
  if (shape.durationMs !== undefined) {
    const pullRequests: ScriptPullRequest[] = Array.from(
      {
        length: dice.weighted([
          [0, 2],
          [1, 3],
          [2, 1]
        ])
      },
      (_, n) => ({
        id: 9_000 + n,
        title: `Fix #${n + 1}`,
        url: dice.chance(0.9) ? `https://github.com/octo-org/octo-repo/pull/${40 + n}` : null,
        head_branch_name: `codegen/fix-${n + 1}`,
        ...(dice.chance(0.5) ? { state: 'open', merged: false } : {})
      })
    )
    steps.push({
      at: shape.durationMs,
      status: dice.weighted([
        ['COMPLETE', 6],
        ['COMPLETED', 1],
        ['complete', 1]
      ]),
      result: shape.result,
      summary: dice.chance(0.7) ? `Summary: ${shape.entries} steps.` : null,
      pullRequests
    })
  }
  return {
    steps,
    ...(shape.staleAfterResumeMs === undefined ? {} : { staleAfterResumeMs: shape.staleAfterResumeMs })
  }
}

// ---------------------------------------------------------------------------------------------
// Schedules

export type Expectation = 'success' | 'timeout' | 'error'

/** A fault the action cannot get past: it must fail the step with one clear message, soon. */
export interface PermanentFault {
  kind: 'unauthorized' | 'forbidden' | 'not-found' | 'allowance' | 'never-recovers' | 'never-answers'
  /** What the step's one error message must say. */
  message: RegExp
  /** At most `max` requests on these routes in all: the action gives up after a bounded number of tries. */
  bound: { routes: RouteName[]; max: number }
}

export interface FaultSchedule {
  seed: number
  mode: 'create' | 'resume'
  /** The run the step follows: the created run's script, or the resume's follow-up script. */
  script: RunScript
  /** Resume mode: the earlier run that the step resumes (created and ended before the step). */
  earlier?: RunScript
  /** Resume mode: resume a run that does not exist. */
  missingRun?: boolean
  faults: FaultRule[]
  expect: Expectation
  permanent?: PermanentFault
  /** The step's inputs besides token, organization, address and prompt. */
  inputs: Record<string, string>
  emulator: EmulatorOptions
  /**
   * The step runs in process on the virtual clock (execute.ts), where answers past the request time
   * limit cost no real time. Otherwise: the bundled action, on the system's clock.
   */
  virtualTime?: boolean
  /** Create mode: other jobs' runs beside the step's, created before it and right after its run. */
  neighbours: boolean
  timeoutMs: number
  /** A rough guess of the step's duration, to start the long ones first. */
  estimateMs: number
  description: string
}

interface Incident {
  route: RouteName | RouteName[]
  after: number
  times: number
  fault: Fault
}

/** Non-overlapping incidents on one route: at most `times` failures in a row, then a success. */
function spread(dice: Dice, route: RouteName, count: number, firstAt: number, maxTimes = 2): Incident[] {
  const incidents: Incident[] = []
  let at = firstAt
  for (let n = 0; n < count; n++) {
    const times = dice.int(1, maxTimes)
    incidents.push({ route, after: at, times, fault: transient(dice) })
    at += times + dice.int(1, 3)
  }
  return incidents
}

function drifts(dice: Dice, count: number, upTo: number): Incident[] {
  return Array.from({ length: count }, () => ({
    route: ['logs', 'logs-alpha'] as RouteName[],
    after: dice.int(0, upTo),
    times: dice.int(1, 3),
    fault: drift(dice)
  }))
}

/** The create's faults: at most two that leave it unsent (the action sends a create three times at most). */
function createIncidents(dice: Dice): Incident[] {
  const incidents: Incident[] = []
  let unsent = 0
  for (let n = dice.int(1, 2); n > 0; n--) {
    const fault = transient(dice)
    const times =
      fault.kind === 'status' || fault.kind === 'reset-before'
        ? dice.weighted([
            [1, 7],
            [2, 3]
          ])
        : 1
    if (costsASend(fault)) unsent += times
    if (unsent > 2) break
    incidents.push({ route: 'create', after: 0, times, fault })
  }
  return incidents
}

function describeIncident(incident: Incident): string {
  const route = [incident.route].flat().join('|')
  const times = incident.times > 1 ? `×${incident.times}` : ''
  return `${route} ${faultLabel(incident.fault)}${times}@${incident.after}`
}

function describeScript(script: RunScript): string {
  const entries = script.steps.filter(step => step.log).length
  const end = script.steps.find(step => step.result !== undefined)
  const stale = script.staleAfterResumeMs ? `, stale ${script.staleAfterResumeMs} ms` : ''
  return end
    ? `${entries} entries, ${end.status} at ${end.at} ms${stale}`
    : `${entries} entries, never ends${stale}`
}

/**
 * Cases too rare to leave to the dice, forced on every seed ≡ n (mod 40): each of them is in any 40
 * consecutive seeds. The permanent kinds, the resume that never reached the service, and the
 * deadline's edges: a Retry-After longer than the time left, and a hang across the deadline with the
 * client's own 30 s request time limit (through the bundle).
 */
type Forced =
  | PermanentFault['kind']
  | 'resume-unseen'
  | 'long-retry-after'
  | 'hang-across-deadline'
  | 'own-request-timeout'
const FORCED: Partial<Record<number, Forced>> = {
  3: 'allowance',
  7: 'unauthorized',
  11: 'forbidden',
  15: 'not-found',
  19: 'never-recovers',
  23: 'never-answers',
  27: 'resume-unseen',
  31: 'long-retry-after',
  35: 'hang-across-deadline',
  39: 'own-request-timeout'
}
const PERMANENT_KINDS = new Set<Forced>([
  'allowance',
  'unauthorized',
  'forbidden',
  'not-found',
  'never-recovers',
  'never-answers'
])

export function faultSchedule(seed: number): FaultSchedule {
  // The dice are drawn in one order (a seed's schedule must stay what it was): mode and kind, the
  // inputs, the scripts, the transient faults, the drifts, then what the kind adds.
  const dice = new Dice(seed)
  const forced = FORCED[seed % 40]
  const { mode, kind } = drawModeAndKind(dice, forced)
  const ownRequestTimeout = forced === 'hang-across-deadline' || forced === 'own-request-timeout'
  const { pollInterval, withRepoId, inputs } = drawInputs(dice, mode)
  const { script, earlier } = drawScripts(dice, seed, mode, kind)
  const emulator: EmulatorOptions = {}
  const { incidents, logRoute, unseenResume } = transientIncidents(dice, mode, kind, forced, withRepoId)
  const driftRules = drifts(dice, dice.weighted(DRIFT_COUNTS), 8)
  // Roomy: a few 429s slow the client down to a fraction of its budget, as they should.
  let timing = { timeoutMinutes: 1.5, estimateMs: 3_000 + (unseenResume ? 32_000 : 0) }
  let permanent: PermanentFault | undefined
  let missingRun = false
  if (kind === 'timeout') timing = deadlineEdges(dice, forced, script, logRoute, incidents)
  if (kind === 'error') {
    const readRoutes: RouteName[] =
      mode === 'create' ? [...(withRepoId ? [] : ['repos' as const]), logRoute, 'get'] : [logRoute, 'get']
    const drawn = withPermanentFault(
      dice,
      forced,
      mode,
      readRoutes,
      script,
      incidents,
      emulator,
      REQUEST_TIMEOUT_MS
    )
    ;({ permanent, missingRun } = drawn)
    timing = drawn
  }
  if (mode === 'resume' && kind !== 'error' && dice.chance(0.35)) driftRules.push(statusDrift(dice))
  const estimateMs = timing.estimateMs + incidents.length * 800
  if (ownRequestTimeout) answeredInTime(incidents)
  // An answer past the request time limit: the step runs on the virtual clock, its deadline later by
  // what each such answer costs (the deadline edges stay after all the run shows). A step that times
  // out runs there too: a loaded machine's slow start of the bundle must not pass for a late end.
  const pastLimit =
    !ownRequestTimeout && incidents.some(({ fault }) => failsRequest(fault) && fault.kind === 'slow')
  const virtualTime = pastLimit || kind === 'timeout'
  const timeoutMinutes = pastLimit
    ? Math.ceil(timing.timeoutMinutes * 100 + pastLimitCostMs(incidents) / 600) / 100
    : timing.timeoutMinutes
  // Other jobs' runs beside the step's, so that a look-up that ignores the key adopts the wrong one.
  // (402: the allowance is zero; no job can create a run.)
  const neighbours = mode === 'create' && permanent?.kind !== 'allowance'
  const description = describeSchedule({
    head: `seed ${seed}: ${mode}${missingRun ? ' (of a run that does not exist)' : ''}, expect ${kind}`,
    settings:
      `poll ${pollInterval} s, timeout ${timeoutMinutes} min${withRepoId ? ', repo-id' : ''}${inputs['mirror-logs'] ? `, mirror-logs ${inputs['mirror-logs']}` : ''}` +
      `${ownRequestTimeout ? ', own request time limit' : ''}${virtualTime ? ', in process on the virtual clock' : ''}` +
      `${neighbours ? ', other jobs’ runs' : ''}`,
    script,
    permanent,
    incidents,
    driftRules
  })

  return {
    seed,
    mode,
    script,
    ...(earlier ? { earlier } : {}),
    ...(missingRun ? { missingRun } : {}),
    // Failures before drift: a drift rule that wants a request a failure took hits the next one.
    faults: [...incidents, ...driftRules].map(({ route, after, times, fault }) => ({
      route,
      after,
      times,
      fault
    })),
    expect: kind,
    ...(permanent ? { permanent } : {}),
    inputs: { ...inputs, 'timeout-minutes': String(timeoutMinutes) },
    emulator,
    ...(virtualTime ? { virtualTime } : {}),
    neighbours,
    timeoutMs: Math.round(timeoutMinutes * 60_000),
    estimateMs,
    description
  }
}

/** How many drift rules a schedule has, by weight. */
const DRIFT_COUNTS: Array<[number, number]> = [
  [0, 3],
  [1, 3],
  [2, 2],
  [3, 1]
]

/** Create or resume, and the ending expected: drawn, unless the seed forces a case. */
function drawModeAndKind(
  dice: Dice,
  forced: Forced | undefined
): { mode: 'create' | 'resume'; kind: Expectation } {
  const drawnMode = dice.chance(0.35) ? 'resume' : 'create'
  const mode = forced === 'allowance' ? 'create' : forced === 'resume-unseen' ? 'resume' : drawnMode
  const drawnKind = dice.weighted<Expectation>([
    ['success', 75],
    ['timeout', 10],
    ['error', 15]
  ])
  if (forced === undefined) return { mode, kind: drawnKind }
  if (PERMANENT_KINDS.has(forced)) return { mode, kind: 'error' }
  if (forced === 'long-retry-after' || forced === 'hang-across-deadline') return { mode, kind: 'timeout' }
  if (forced === 'own-request-timeout') return { mode, kind: drawnKind === 'error' ? 'success' : drawnKind }
  return { mode, kind: 'success' }
}

function drawInputs(
  dice: Dice,
  mode: 'create' | 'resume'
): { pollInterval: string; withRepoId: boolean; inputs: Record<string, string> } {
  const pollInterval = dice.pick(['0.1', '0.15', '0.2'])
  const withRepoId = mode === 'create' && dice.chance(0.3)
  const inputs: Record<string, string> = {
    'poll-interval': pollInterval,
    ...(withRepoId ? { 'repo-id': '101' } : {}),
    ...dice.weighted<Record<string, string>>([
      [{}, 8],
      [{ 'mirror-logs': 'summary' }, 1],
      [{ 'mirror-logs': 'none' }, 1]
    ])
  }
  return { pollInterval, withRepoId, inputs }
}

/** The step's run, and for a resume the earlier run it resumes. */
function drawScripts(
  dice: Dice,
  seed: number,
  mode: 'create' | 'resume',
  kind: Expectation
): { script: RunScript; earlier: RunScript | undefined } {
  const earlierEntries = mode === 'resume' ? dice.int(1, 5) : 0
  const script = runScript(dice, {
    durationMs: kind === 'timeout' ? undefined : dice.int(kind === 'error' ? 1_000 : 300, 2_000),
    entries: dice.weighted([
      [0, 1],
      [dice.int(1, 4), 8],
      [dice.int(5, 12), 8]
    ]),
    firstMark: earlierEntries + 1,
    result: `Result of seed ${seed}`,
    ...(mode === 'resume' ? { staleAfterResumeMs: dice.pick([0, 200, 500, 900]) } : {})
  })
  const earlier =
    mode === 'resume'
      ? runScript(dice, {
          durationMs: 150,
          entries: earlierEntries,
          firstMark: 1,
          result: 'The earlier result'
        })
      : undefined
  return { script, earlier }
}

/** Transient faults along the way the step goes; `unseenResume`: a resume that never reached the service. */
function transientIncidents(
  dice: Dice,
  mode: 'create' | 'resume',
  kind: Expectation,
  forced: Forced | undefined,
  withRepoId: boolean
): { incidents: Incident[]; logRoute: RouteName; unseenResume: boolean } {
  const incidents: Incident[] = []
  let unseenResume = false
  const logRoute: RouteName = dice.chance(0.1) ? 'logs-alpha' : 'logs'
  if (logRoute === 'logs-alpha') {
    // The interface document's path is missing: the action has to find the OpenAPI one.
    incidents.push({
      route: 'logs',
      after: 0,
      times: 10_000,
      fault: labelled(status(404), 'logs path missing')
    })
  }
  const noise = kind === 'timeout' ? 0.5 : 1
  if (mode === 'create') {
    if (!withRepoId && dice.chance(0.4 * noise)) incidents.push(...spread(dice, 'repos', 1, 0))
    if (kind !== 'timeout' && dice.chance(0.55)) {
      incidents.push(...createIncidents(dice))
      if (dice.chance(0.4)) incidents.push(...spread(dice, 'list-runs', 1, 0))
    }
  } else if (kind !== 'timeout' && (dice.chance(0.55) || forced === 'resume-unseen')) {
    const unseen = dice.chance(0.04) || forced === 'resume-unseen'
    const fault =
      forced === 'resume-unseen'
        ? resetBefore()
        : unseen
          ? dice.weighted(RESUME_UNSEEN)(dice)
          : dice.weighted(RESUME_TRANSIENT)(dice)
    incidents.push({ route: 'resume', after: 0, times: 1, fault })
    // Unseen, the resume is sent again only after the resume grace (30 s) shows no restart.
    unseenResume = unseen
  }
  incidents.push(...spread(dice, logRoute, dice.int(0, kind === 'timeout' ? 1 : 3), dice.int(0, 4)))
  if (dice.chance(0.3 * noise)) incidents.push(...spread(dice, 'get', 1, 0))
  return { incidents, logRoute, unseenResume }
}

/** A schedule that times out: its deadline, and the forced edges of it. */
function deadlineEdges(
  dice: Dice,
  forced: Forced | undefined,
  script: RunScript,
  logRoute: RouteName,
  incidents: Incident[]
): { timeoutMinutes: number; estimateMs: number } {
  const timeoutMinutes = dice.pick([0.07, 0.09, 0.11])
  // These end the reads early: the run shows all it will within 0.1 s (steps 12 times faster, no
  // stale ending), so that the eighth read, well before the deadline, has seen everything.
  const late = { route: logRoute, after: 8 }
  if (forced === 'long-retry-after' || forced === 'hang-across-deadline') {
    script.steps = script.steps.map(step => ({ ...step, at: Math.round(step.at / 12) }))
    if (script.staleAfterResumeMs !== undefined) script.staleAfterResumeMs = 0
  }
  if (forced === 'long-retry-after') {
    // The wait asked for is past the deadline: the step ends now, not two minutes on.
    incidents.push({
      ...late,
      times: FOREVER,
      fault: labelled({ kind: 'status', status: 429, retryAfter: 120 }, '429 + Retry-After 120 s')
    })
  } else if (forced === 'hang-across-deadline') {
    // A read that hangs from before the deadline to long after: only the deadline cuts it.
    incidents.push({
      ...late,
      times: 1,
      fault: labelled({ kind: 'slow', delayMs: 25_000 }, 'hang across the deadline')
    })
  }
  return { timeoutMinutes, estimateMs: timeoutMinutes * 60_000 + 1_000 }
}

/** A schedule that ends in error: its permanent fault among the transient ones already drawn. */
function withPermanentFault(
  dice: Dice,
  forced: Forced | undefined,
  mode: 'create' | 'resume',
  readRoutes: RouteName[],
  script: RunScript,
  incidents: Incident[],
  emulator: EmulatorOptions,
  requestTimeoutMs: number
): PermanentDraw {
  const noise = [...incidents]
  const { midRun, ...drawn } = permanentFault(
    dice,
    forced !== undefined && PERMANENT_KINDS.has(forced) ? (forced as PermanentFault['kind']) : undefined,
    mode,
    readRoutes,
    incidents,
    emulator
  )
  // The first look may come seconds after the create (the gentle start, and the pace after 429s
  // on the create): a run of a second or two would be read whole by it, and the later log read
  // the fault waits for would never come. The run lasts long enough; the fault ends the step.
  if (midRun) script.steps = stretched(script.steps, MID_RUN_MS)
  // The transient faults on the same routes cost retries (or a create's look-up and resend) of their own.
  drawn.permanent.bound.max += noise
    .filter(
      ({ route, fault }) =>
        failsRequest(fault, requestTimeoutMs) &&
        [route].flat().some(r => drawn.permanent.bound.routes.includes(r))
    )
    .reduce((sum, { times }) => sum + Math.min(times, 2), 0)
  return drawn
}

/**
 * The first polls after a resume meet the run still showing its earlier ending: a status missing
 * there must not pass for a restart. (Drawn last, so earlier seeds keep their schedules.)
 */
function statusDrift(dice: Dice): Incident {
  const statusDrifts = DRIFTS.filter(([label]) => label.startsWith('status'))
  return {
    route: ['logs', 'logs-alpha'],
    after: dice.int(1, 3),
    times: dice.int(1, 2),
    fault: drift(dice, statusDrifts)
  }
}

/**
 * The bundle's schedules with the client's own limit keep their slow answers a second or so long, as
 * drawn past the limit (the same dice), so that they are answered in time.
 */
function answeredInTime(incidents: Incident[]): void {
  for (const incident of incidents) {
    const { fault } = incident
    if (fault.kind === 'slow' && faultLabel(fault) === 'slow past request timeout')
      incident.fault = labelled(
        { kind: 'slow', delayMs: fault.delayMs - REQUEST_TIMEOUT_MS + SLOW_IN_TIME_MS },
        'slow (answered in time)'
      )
  }
}

/** The most the answers past the time limit can cost a step: each one the limit and a backoff. */
function pastLimitCostMs(incidents: Incident[]): number {
  return incidents
    .filter(({ fault }) => fault.kind === 'slow' && failsRequest(fault))
    .reduce((sum, { times }) => sum + Math.min(times, MAX_ATTEMPTS) * PAST_LIMIT_COST_MS, 0)
}

function describeSchedule(parts: {
  head: string
  settings: string
  script: RunScript
  permanent: PermanentFault | undefined
  incidents: Incident[]
  driftRules: Incident[]
}): string {
  const { incidents, driftRules, permanent } = parts
  const failing = incidents.filter(incident => failsRequest(incident.fault))
  return [
    parts.head,
    parts.settings,
    `script ${describeScript(parts.script)}`,
    ...(permanent ? [`permanent ${permanent.kind}`] : []),
    `faults: ${[...incidents, ...driftRules].map(describeIncident).join(', ') || 'none'} (${failing.length} failing)`
  ].join('; ')
}

const FOREVER = 10_000

/** How long a run lasts at least when a permanent fault waits for its second log read. */
const MID_RUN_MS = 15_000

/** The steps spread over `atLeastMs`, in the same order, when they end sooner. */
function stretched(steps: RunScript['steps'], atLeastMs: number): RunScript['steps'] {
  const last = Math.max(1, ...steps.map(step => step.at))
  const factor = Math.max(1, atLeastMs / last)
  return steps.map(step => ({ ...step, at: Math.round(step.at * factor) }))
}

interface PermanentDraw {
  permanent: PermanentFault
  missingRun: boolean
  timeoutMinutes: number
  estimateMs: number
  /** The fault is on a later log read: the run must still be working after the first. */
  midRun?: boolean
}

/** One permanent fault, put where the step is sure to meet it. */
function permanentFault(
  dice: Dice,
  forced: PermanentFault['kind'] | undefined,
  mode: 'create' | 'resume',
  /** The reads the step makes, in order: the permanent fault goes on one of them. */
  readRoutes: RouteName[],
  incidents: Incident[],
  emulator: EmulatorOptions
): PermanentDraw {
  // The transient noise stays; the permanent fault is injected first, so it takes its requests.
  const add = (incident: Incident): void => void incidents.unshift(incident)
  const drawn = dice.weighted<PermanentFault['kind']>([
    ['unauthorized', 1],
    ['forbidden', 1],
    ['not-found', 1],
    ['allowance', mode === 'create' ? 1 : 0],
    ['never-recovers', 2.5],
    ['never-answers', 1]
  ])
  const kind = forced ?? drawn
  const place = { dice, mode, readRoutes, add }
  if (kind === 'unauthorized' || kind === 'forbidden') return refusedAccess(place, kind)
  if (kind === 'allowance') {
    emulator.runAllowance = 0
    return {
      ...PERMANENT_BASE,
      permanent: { kind, message: /allowance is used up \(402\)/, bound: { routes: ['create'], max: 1 } }
    }
  }
  if (kind === 'not-found') return runNotFound(place)
  if (kind === 'never-answers') return neverAnswers(place)
  return neverRecovers(place)
}

/** Where a permanent fault is put: the dice, the step's mode and reads, and how to add the fault. */
interface Placement {
  dice: Dice
  mode: 'create' | 'resume'
  readRoutes: RouteName[]
  add: (incident: Incident) => void
}

const PERMANENT_BASE = { missingRun: false, timeoutMinutes: 1, estimateMs: 4_000 }

/** 401 or 403 on a read, or on the create or resume, from some request on. */
function refusedAccess(
  { dice, mode, readRoutes, add }: Placement,
  kind: 'unauthorized' | 'forbidden'
): PermanentDraw {
  const code = kind === 'unauthorized' ? 401 : 403
  const route = dice.pick<RouteName>([...readRoutes, mode === 'create' ? 'create' : 'resume'])
  const after = route === 'logs' || route === 'logs-alpha' ? dice.int(0, 1) : 0
  add({ route, after, times: FOREVER, fault: status(code) })
  // A resume's run refused (read or resumed) with the set-up reading fine: the run's refusal (issue 21).
  const runRefused = code === 403 && mode === 'resume' && (route === 'get' || route === 'resume')
  const message =
    code === 401
      ? /Authentication failed \(401\)/
      : runRefused
        ? /agent-run-id \d+: the service refused to resume this run \(403\)/
        : /Permission denied \(403\)/
  return {
    ...PERMANENT_BASE,
    ...(after > 0 ? { midRun: true } : {}),
    permanent: { kind, message, bound: { routes: [route], max: after + 1 } }
  }
}

/** A resume of a run that does not exist, or a run gone from under the step. */
function runNotFound({ dice, mode, add }: Placement): PermanentDraw {
  const kind = 'not-found'
  if (mode === 'resume') {
    return {
      ...PERMANENT_BASE,
      missingRun: true,
      permanent: {
        kind,
        // The set-up reads fine: the run itself is refused (issue 21).
        message: /agent-run-id \d+: the service refused to resume this run \(404\)/,
        bound: { routes: ['logs', 'logs-alpha', 'get', 'resume'], max: 2 }
      }
    }
  }
  // The run is gone from under the step: every path answers 404.
  const routes: RouteName[] = ['logs', 'logs-alpha', 'get']
  const after = dice.int(0, 1)
  add({ route: routes, after, times: FOREVER, fault: status(404) })
  return {
    ...PERMANENT_BASE,
    permanent: { kind, message: /Not found \(404\)/, bound: { routes, max: after + 2 } }
  }
}

/**
 * A read that never gets an answer: each attempt ends at the request time limit. (Not a write: the
 * service acts on those before it hangs, and the action finds the run.)
 */
function neverAnswers({ dice, readRoutes, add }: Placement): PermanentDraw {
  const route = dice.pick<RouteName>(readRoutes)
  add({
    route,
    after: 0,
    times: FOREVER,
    fault: labelled({ kind: 'slow', delayMs: 120_000 }, 'never answers')
  })
  return {
    ...PERMANENT_BASE,
    estimateMs: 30_000,
    permanent: {
      kind: 'never-answers',
      message: /after 6 attempts: no answer within/,
      bound: { routes: [route], max: 6 }
    }
  }
}

/**
 * A service that never recovers on one route. A 429 without Retry-After reads as a crowded token,
 * which the action waits out up to the deadline; these refuse with Retry-After, fail or hang up.
 */
function neverRecovers({ dice, mode, readRoutes, add }: Placement): PermanentDraw {
  const route = dice.pick<RouteName>([...readRoutes, mode === 'create' ? 'create' : 'resume'])
  const fault =
    route === 'resume'
      ? retryAfter(1)
      : dice.pick([status(500), status(502), status(503), retryAfter(1), resetBefore()])
  add({ route, after: 0, times: FOREVER, fault })
  const refused = fault.kind === 'status' && fault.status === 429
  const ambiguousCreate = route === 'create' && !refused
  // The client's allowance for one request: 20 attempts when refused with 429, 6 when failing.
  const attempts = refused ? 20 : 6
  return {
    ...PERMANENT_BASE,
    estimateMs: refused ? 21_000 : ambiguousCreate ? 8_000 : 17_000,
    permanent: {
      kind: 'never-recovers',
      message: ambiguousCreate
        ? /sent 3 times; no run was created/
        : new RegExp(`after ${attempts} attempts`),
      bound: { routes: [route], max: ambiguousCreate ? 3 : attempts }
    }
  }
}
