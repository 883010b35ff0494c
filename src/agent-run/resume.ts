import type { AgentRunApi, CallOptions } from '../api/client.js'
import { AmbiguousWriteError, DeadlineError, ServiceError } from '../api/errors.js'
import { backoffDelay } from '../api/retry.js'
import type { AgentRun } from '../api/types.js'
import type { CarriedFrom, RunBrief } from '../model.js'
import { inspectSetup } from '../org/inspect.js'
import type { ServiceClients } from '../org/clients.js'
import { reasonLine, RefusedResume, refusesTheRun, serviceReason, type EarlierRun } from './carry-on.js'
import { countLogEntries, LogReader, type LogBaseline } from './log-reader.js'
import {
  cutAfterSending,
  LATE_LOOK_SPACING_MS,
  lateLooksUntil,
  MAX_WRITE_SENDS,
  type SendDeps
} from './send-once.js'
import { classifyStatus } from './status.js'
import { resumeGraceMs, type ResumeGuard } from './watch-state.js'
import { isCutShort } from './watcher.js'

/**
 * Resuming a run, sent exactly once: a resume whose fate is unknown waits for a sign of a restart
 * before any resend, and one cut off is looked for late; a refusal for the run itself is told as such.
 */

/** What a resume needs of the step: a write's needs, and the service's clients for a diagnosis. */
export type ResumeDeps = SendDeps & { apis: ServiceClients }

/** A run started or resumed, as following it reads it (a StartedRun's own fields). */
export interface RunToFollow {
  run: AgentRun
  logs: LogReader
  /** Entries written before this step (a resume's earlier ones): not mirrored again. */
  earlierEntries: number
  /** What makes an ending the resumed run's own (always restarted for a new run). */
  guard: ResumeGuard
}

/**
 * Resumes the run, or says why the service refused it for the run itself: 400, 409 or 422 (the live
 * service may resume paused runs only), or 403 and 404 when the token, organization and integration
 * read fine. Any other failure is thrown as it is.
 */
export async function resumeRefusal(
  brief: RunBrief,
  runId: number,
  api: AgentRunApi,
  deps: ResumeDeps,
  orgId: number
): Promise<
  { resumed: RunToFollow } | { error: RefusedResume; earlier: EarlierRun; carriedFrom: CarriedFrom }
> {
  const earlier: EarlierRun = { id: runId, webUrl: null, result: null }
  const refused = async (error: unknown) => {
    const carried = await refusalOfTheRun(error, runId, earlier, deps, orgId)
    if (!carried) throw error
    return carried
  }
  // Only the answers about the run itself count: reading it, and resuming it (not its log's reads).
  let run: AgentRun
  try {
    run = await api.getRun(runId, { deadline: deps.deadline })
  } catch (error) {
    return refused(error)
  }
  Object.assign(earlier, { webUrl: run.web_url ?? null, result: run.result ?? null })
  const logs = new LogReader(api, runId, deps.warning)
  const before = await countLogEntries(logs, deps.deadline)
  try {
    return { resumed: await resume(brief, run, logs, before, api, deps) }
  } catch (error) {
    return refused(error)
  }
}

/** The refusal of the run as the user is told it, or undefined when the error is not one. */
async function refusalOfTheRun(
  error: unknown,
  runId: number,
  earlier: EarlierRun,
  deps: ResumeDeps,
  orgId: number
): Promise<{ error: RefusedResume; earlier: EarlierRun; carriedFrom: CarriedFrom } | undefined> {
  if (!(error instanceof ServiceError) || error instanceof AmbiguousWriteError) return undefined
  const setupFine = async (): Promise<boolean> => {
    const target = { orgId, repository: '' }
    const inspection = await inspectSetup(deps.apis, target, { deadline: deps.deadline }).catch(
      () => undefined
    )
    return inspection !== undefined && !inspection.problem
  }
  if (!(await refusesTheRun(error.httpStatus, setupFine))) return undefined
  const said = reasonLine(serviceReason(error))
  const message =
    `agent-run-id ${runId}: the service refused to resume this run (${error.httpStatus}): "${said}". ` +
    'Nothing was created. To start a fresh run instead, leave agent-run-id empty: the prompt then starts a new run.'
  const reason = `the service answered ${error.httpStatus}: ${said}`
  const carriedFrom = { runId, webUrl: earlier.webUrl, reason }
  return { error: new RefusedResume(message, error.httpStatus, reason), earlier, carriedFrom }
}

/**
 * Resumes the run exactly once. When a resume's fate is unknown, the run is watched for a while for
 * a sign that it restarted (a working status, new entries or a new result) before it is sent again.
 */
async function resume(
  brief: RunBrief,
  earlier: AgentRun,
  logs: LogReader,
  before: LogBaseline,
  api: AgentRunApi,
  deps: ResumeDeps
): Promise<RunToFollow> {
  const { deadline } = deps
  const runId = earlier.id
  // The result it ended with: a new one proves the resume took effect.
  const earlierResult = earlier.result ?? null
  const request = {
    agent_run_id: runId,
    prompt: brief.prompt,
    ...(brief.images.length ? { images: brief.images } : {})
  }
  const resumed = { logs, earlierEntries: before.count }
  // Not yet seen restarted: its earlier ending may linger, and only a sign of a restart ends the wait.
  const unseen = () => ({ restarted: false, resumedAt: deps.clock.now(), earlierResult })
  // Whether a resume may have reached the service: a cut then leaves a restart to look for.
  let maybeSent = false
  for (let send = 1; ; send++) {
    try {
      return { ...resumed, run: await api.resumeRun(request, { deadline }), guard: unseen() }
    } catch (error) {
      // Cut off: the run may restart, now or a moment later; it is the step's to stop.
      if (cutAfterSending(error, maybeSent))
        return { ...resumed, ...(await restartedLate(api, logs, earlier, before, deps, unseen)) }
      if (!(error instanceof AmbiguousWriteError)) throw error
      maybeSent = true
      deps.warning(`${error.message}. Checking whether the run restarted before sending again.`)
      const window = resumeGraceMs(brief.pollIntervalMs)
      let restarted: AgentRun | undefined
      try {
        if (deps.clock.now() >= deadline) throw new DeadlineError()
        restarted = await waitForRestart(api, logs, runId, before, window, deps)
      } catch (cut) {
        if (!isCutShort(cut)) throw cut
        return { ...resumed, ...(await restartedLate(api, logs, earlier, before, deps, unseen)) }
      }
      if (restarted) {
        deps.warning(
          `Agent run ${restarted.id} restarted: the resume had reached the service; it is not sent again.`
        )
        return { ...resumed, run: restarted, guard: { restarted: true } }
      }
      if (send >= MAX_WRITE_SENDS)
        throw new ServiceError(
          `${error.message} (sent ${send} times; the run did not restart)`,
          error.httpStatus
        )
    }
  }
}

async function waitForRestart(
  api: AgentRunApi,
  logs: LogReader,
  runId: number,
  before: LogBaseline,
  windowMs: number,
  deps: ResumeDeps
): Promise<AgentRun | undefined> {
  const { clock, deadline } = deps
  const until = Math.min(deadline, clock.now() + windowMs)
  for (let check = 1; clock.now() < until; check++) {
    await clock.sleep(
      Math.min(backoffDelay(check, (deps.random ?? Math.random)()), until - clock.now()),
      deps.signal
    )
    const restarted = await restartSign(api, logs, runId, before, { deadline })
    if (restarted) return restarted
  }
  return undefined
}

/** The run when one check shows it restarted; else undefined. */
async function restartSign(
  api: AgentRunApi,
  logs: LogReader,
  runId: number,
  before: LogBaseline,
  options: CallOptions
): Promise<AgentRun | undefined> {
  const page = await logs.read(before.count, 1, options)
  const run = page ? undefined : await api.getRun(runId, options)
  const status = page ? page.status : (run?.status ?? null)
  const result = page ? page.result : run?.result
  // Signs of a restart: a working status (null says nothing: the ALPHA endpoint drifts), new
  // entries, or a new result (a run may restart and end between two checks without an entry).
  const working = status !== null && classifyStatus(status) === 'working'
  const newResult = !!before.result && !!result && result !== before.result
  if (working || (page && page.logs.length > 0) || newResult) return run ?? (await api.getRun(runId, options))
  return undefined
}

/**
 * A resume cut off by the cancellation or the deadline: the run checked for a sign of a restart
 * every LATE_LOOK_SPACING_MS (not aborted by the cancellation) until the stop and the last read are
 * all the service's last calls have left. Seen restarted, or not (it may show its earlier ending a
 * while yet), it is the step's: the watch stops it as stop-run-on says, as late as that allows.
 */
async function restartedLate(
  api: AgentRunApi,
  logs: LogReader,
  earlier: AgentRun,
  before: LogBaseline,
  deps: ResumeDeps,
  unseen: () => ResumeGuard
): Promise<Pick<RunToFollow, 'run' | 'guard'>> {
  const until = lateLooksUntil(deps)
  const options = { deadline: until, lastRead: true, maxAttempts: 1 }
  for (;;) {
    const run = await restartSign(api, logs, earlier.id, before, options).catch(() => undefined)
    if (run) return { run, guard: { restarted: true } }
    if (deps.clock.now() + LATE_LOOK_SPACING_MS >= until) return { run: earlier, guard: unseen() }
    await deps.clock.sleep(LATE_LOOK_SPACING_MS)
  }
}
