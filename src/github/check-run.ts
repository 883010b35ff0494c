import type { AgentRun, LogEntry } from '../api/types.js'
import type { Clock } from '../clock.js'
import type { RunReport } from '../model.js'
import { renderCheckRun, type CheckRunState } from '../report/check-run.js'
import type { Reporter } from '../report/reporters.js'
import type { CheckRunMode, Settings } from '../settings/settings.js'
import { workflowRunUrl } from '../settings/workflow-context.js'
import type { CheckRunWrite, GitHubApi } from './api.js'
import { ThrottledWrites } from './throttled-writes.js'
import type { Trigger } from './trigger.js'

/** At most one update of the check run this often while the run works, as for the tracking comment. */
export const CHECK_RUN_UPDATE_INTERVAL_MS = 5_000

/** Where a run's check run goes: on a commit, on a pull request's head (to be read), or nowhere. */
export type CheckRunPlace = { sha: string } | { pullNumber: number } | undefined

/** Pull request events: a run from the inputs there checks the pull request's head. */
const PULL_REQUEST_EVENTS = /^pull_request/

/**
 * Where this step's check run goes (issue #20): `auto`, a run asked for on a pull request, on its
 * head (the event's, or read from the pull request when the event lacks it: an issue comment);
 * `true`, a run from the inputs too, on the event's pull request head or else GITHUB_SHA; `false`,
 * none. A run asked for on an issue gets none.
 */
export function checkRunPlace(
  mode: CheckRunMode,
  trigger: Trigger,
  /** The event's name, GITHUB_SHA, and its payload, read only when a run from the inputs needs it. */
  event: { name: string; sha: string; payload?: () => unknown }
): CheckRunPlace {
  if (mode === 'false') return undefined
  if (trigger.kind === 'thread') {
    if (!trigger.thread.isPullRequest) return undefined
    const sha = trigger.pullRequest?.headSha
    return sha ? { sha } : { pullNumber: trigger.thread.number }
  }
  if (trigger.kind !== 'inputs' || mode !== 'true') return undefined
  if (PULL_REQUEST_EVENTS.test(event.name)) {
    const sha = headShaOf(event.payload)
    if (sha) return { sha }
  }
  return event.sha ? { sha: event.sha } : undefined
}

/** The event's pull_request.head.sha, or '' when the payload cannot be read or has none. */
function headShaOf(payload: (() => unknown) | undefined): string {
  try {
    const pr = (payload?.() as { pull_request?: { head?: { sha?: unknown } } } | undefined)?.pull_request
    return typeof pr?.head?.sha === 'string' ? pr.head.sha : ''
  } catch {
    return ''
  }
}

export interface OpenCheckRunOptions {
  github: GitHubApi
  settings: Pick<Settings, 'checkName' | 'triggerPhrase' | 'context'>
  /** The run is a follow-up of an earlier one. */
  resumed: boolean
  /** Asked for on a thread (a paused run is answered there), not run from the inputs. */
  onThread: boolean
  clock: Clock
  warn: (message: string) => void
}

/**
 * The step's check run, created in progress at `place` (a pull request's head is read first when
 * the event did not carry it); undefined when GitHub did not create it (the client warned why).
 */
export async function openCheckRun(
  place: NonNullable<CheckRunPlace>,
  options: OpenCheckRunOptions
): Promise<CheckRun | undefined> {
  const { github, settings } = options
  let headSha = 'sha' in place ? place.sha : ''
  if ('pullNumber' in place) {
    try {
      headSha = (await github.pullRequestBranches(place.pullNumber)).headSha ?? ''
    } catch (error) {
      options.warn(
        `No check run: could not read the head commit of pull request #${place.pullNumber} (${(error as Error).message}).`
      )
      return undefined
    }
  }
  const check = new CheckRun({
    github,
    name: settings.checkName,
    headSha,
    state: {
      entriesSeen: 0,
      resumed: options.resumed,
      workflowRunUrl: workflowRunUrl(settings.context),
      ...(options.onThread ? { triggerPhrase: settings.triggerPhrase } : {})
    },
    clock: options.clock,
    warn: options.warn
  })
  return (await check.open()) === undefined ? undefined : check
}

export interface CheckRunOptions {
  github: Pick<GitHubApi, 'createCheckRun' | 'updateCheckRun'>
  /** The check run's name (the check-name input). */
  name: string
  /** The commit it is on: the pull request's head, or GITHUB_SHA. */
  headSha: string
  state: CheckRunState
  clock: Clock
  /** A failure of the writes' own machinery (GitHub's failures are the client's warnings). */
  warn: (message: string) => void
  minIntervalMs?: number
}

/**
 * The check run of one step's run on the pull request's head commit: created in progress before the
 * run starts, updated (throttled) as it goes, concluded on every ending. GitHub's refusals are the
 * client's warnings; they never change the run's outcome nor fail the step.
 */
export class CheckRun implements Reporter {
  readonly remote = true
  /** The check run's id once GitHub created it. */
  id?: number
  private readonly writes: ThrottledWrites

  constructor(private readonly options: CheckRunOptions) {
    this.writes = new ThrottledWrites(
      () => this.update(),
      options.clock,
      options.minIntervalMs ?? CHECK_RUN_UPDATE_INTERVAL_MS,
      error => options.warn(`Check run: ${error.message}`)
    )
  }

  /** Creates the check run, in progress; its id, or undefined when GitHub did not create it. */
  async open(): Promise<number | undefined> {
    const { github, name, headSha } = this.options
    this.id = await github.createCheckRun(name, headSha, this.fields())
    return this.id
  }

  started(run: AgentRun): void {
    const state = this.options.state
    state.runId = run.id
    state.webUrl = run.web_url
    state.status = run.status
    // The run's own page replaces the workflow run's as the details link at once.
    this.writes.touch(true)
  }

  newEntries(entries: LogEntry[]): void {
    this.options.state.entriesSeen += entries.length
    this.writes.touch()
  }

  statusChanged(_from: string | null, to: string | null): void {
    this.options.state.status = to
    this.writes.touch()
  }

  heartbeat(): void {
    this.writes.touch()
  }

  warning(): void {}

  repairAsked(): void {
    this.writes.touch()
  }

  /** Concludes the check run with the ending, whatever it is, and waits for it. */
  async finish(report: RunReport): Promise<void> {
    const state = this.options.state
    state.report = report
    // The agent's verdict, when one was asked for and its answer is valid: its reason is the title's.
    const answer = report.answer?.answer
    if (answer?.valid && answer.verdict)
      state.verdict = { verdict: answer.verdict, reason: answer.reason ?? '' }
    await this.writes.flush()
  }

  private async update(): Promise<void> {
    if (this.id !== undefined) await this.options.github.updateCheckRun(this.id, this.fields())
  }

  /** The check run's text, its details link (the run's page, the workflow run's until known) and the run id. */
  private fields(): CheckRunWrite {
    const state = this.options.state
    const runId = state.report?.run?.id ?? state.runId
    const webUrl = state.report?.run?.web_url ?? state.webUrl
    const runPage = typeof webUrl === 'string' && /^https?:\/\/\S+$/i.test(webUrl) && webUrl.length <= 2_000
    const detailsUrl = runPage ? webUrl : state.workflowRunUrl
    return {
      ...renderCheckRun(state),
      ...(detailsUrl ? { detailsUrl } : {}),
      ...(runId !== undefined ? { externalId: String(runId) } : {})
    }
  }
}
