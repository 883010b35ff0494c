import type { LogEntry, RunScript, ScriptStep, ServiceErrorBody, ValidationIssue } from './types.js'

/**
 * Modes: where the live service may answer otherwise than the emulator does by default, each one
 * the way the service could plausibly do it (its documents leave these open). `npm start -- --mode
 * NAME` and `npm run emulator -- --mode NAME` turn them on (comma-separated, or repeated).
 */
const MODES = {
  /** A resume of a run that is not PAUSED answers 422 with a FastAPI validation `detail` list. */
  'resume-paused-only': 'a resume of a run that is not PAUSED is refused with 422 (a validation detail)',
  /** The same refusal as 400 with the service's `{message, status_code}` body. */
  'resume-paused-only-400': 'a resume of a run that is not PAUSED is refused with 400 (a message)',
  /** The organization's members (its list, one member) are shown to its admins only: 403 to others. */
  'members-admin-only': "the organization's members are shown to admins only (403 to other tokens)",
  /** A new run answers PENDING and stays so a moment (`pendingMs`) before its script starts. */
  'pending-start': 'a new run starts PENDING',
  /** RUNNING from a run's first log entry, EVALUATION from its last one before it ends. */
  'extra-statuses': 'runs go ACTIVE, RUNNING, EVALUATION before they end',
  /** A resume appends a USER_MESSAGE entry carrying the follow-up prompt to the run's log. */
  'resume-user-message': 'a resume writes a USER_MESSAGE entry to the log',
  /** The beta stop path is not there: 404 `{"detail": "Not Found"}`, as FastAPI answers an unknown path. */
  'no-stop': 'the beta stop path answers 404 (a service without it)',
  /**
   * The stop path answers 405 `{"detail": "Method Not Allowed"}` with `Allow: GET`: what FastAPI
   * answers when only a `GET …/agent/run/{agent_run_id}` matches the path ("stop" as the run id).
   */
  'stop-405': 'the beta stop path answers 405 Method Not Allowed',
  /**
   * A stopped run shows CANCELLED, not STOPPED: StopAgentRunInput (the body of the published ban
   * path) places a stopped run's card "in the CANCELLED column".
   */
  'stop-cancelled': 'a stopped run shows CANCELLED rather than STOPPED'
} as const

export type ModeName = keyof typeof MODES

export const MODE_NAMES = Object.keys(MODES) as ModeName[]

/** `a,b` (or several such lists) as mode names; an unknown one fails, naming the known ones. */
export function parseModes(lists: readonly string[]): ModeName[] {
  const names = lists.flatMap(list => list.split(',')).map(name => name.trim())
  const modes: ModeName[] = []
  for (const name of names.filter(Boolean)) {
    if (!(name in MODES)) throw new Error(`Unknown mode "${name}": one of ${MODE_NAMES.join(', ')}`)
    if (!modes.includes(name as ModeName)) modes.push(name as ModeName)
  }
  return modes
}

/** One line per mode, for usage texts. */
export function describeModes(): string {
  return MODE_NAMES.map(name => `  ${name}: ${MODES[name]}`).join('\n')
}

/** How long a new run stays PENDING in `pending-start`, at speed 1. */
export const PENDING_MS = 1_500

/** `pending-start`: PENDING at once, the script `pendingMs` later. */
export function pendingFirst(script: RunScript, pendingMs: number): RunScript {
  const steps = script.steps.map(step => ({ ...step, at: step.at + pendingMs }))
  return { ...script, steps: [{ at: 0, status: 'PENDING' }, ...steps] }
}

const isActive = (status: string | null | undefined): boolean => status?.toUpperCase() === 'ACTIVE'

/**
 * `extra-statuses`: while the script's status is ACTIVE, RUNNING from its first log entry on and
 * EVALUATION from its last entry before the status changes (the ending). A script with no entry
 * while ACTIVE is left as it is.
 */
export function withExtraStatuses(script: RunScript): RunScript {
  const steps = [...script.steps].sort((a, b) => a.at - b.at)
  const active = steps.findIndex(step => isActive(step.status))
  if (active < 0) return script
  const ending = steps.findIndex((step, i) => i > active && step.status !== undefined)
  const endsAt = ending < 0 ? Number.POSITIVE_INFINITY : (steps[ending] as ScriptStep).at
  // Entries sharing the ending's moment would put the new status after the ending: left out.
  const during = steps.slice(active + 1, ending < 0 ? undefined : ending)
  const entries = during.filter(step => step.log !== undefined && step.at < endsAt)
  const first = entries[0]
  const last = entries.at(-1)
  if (!first || !last) return script
  const extra: ScriptStep[] = [{ at: first.at, status: 'RUNNING' }]
  if (ending >= 0 && last !== first) extra.push({ at: last.at, status: 'EVALUATION' })
  // A stable sort keeps the new statuses after the entries they share a moment with.
  return { ...script, steps: [...steps, ...extra].sort((a, b) => a.at - b.at) }
}

/** `resume-user-message`: the entry a resume writes. */
export function userMessage(prompt: string): Partial<LogEntry> {
  return { message_type: 'USER_MESSAGE', observation: prompt }
}

/** The refusal of a resume of a run that is not PAUSED: 400 with a message, or 422 with a detail. */
export function resumeRefusal(
  mode: 'resume-paused-only' | 'resume-paused-only-400',
  runId: number,
  status: string | null
): { status: number; body: ServiceErrorBody | { detail: ValidationIssue[] } } {
  const reason = `Agent run ${runId} is ${status ?? 'without a status'}: only a paused agent run can be resumed.`
  if (mode === 'resume-paused-only-400') return { status: 400, body: { message: reason, status_code: 400 } }
  const issue: ValidationIssue = {
    type: 'value_error',
    loc: ['body', 'agent_run_id'],
    msg: `Value error, ${reason}`,
    input: runId
  }
  return { status: 422, body: { detail: [issue] } }
}

/** The refusal of a member read to a token that is not the organization's admin. */
export const MEMBERS_ADMIN_ONLY = 'Only administrators of this organization can view its members.'
