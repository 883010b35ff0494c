import type { Clock } from '../clock.js'
import type { RunReport } from '../model.js'
import { renderCheckRun, type CheckRunState } from './check-run-text.js'
import { annotationBatches } from './findings-text.js'
import type { CheckRunMode, Settings } from '../settings/settings.js'
import { workflowRunUrl } from '../settings/workflow-context.js'
import type { CheckRunWrite, GitHubApi } from '../github/api.js'
import { LiveReporter } from './live-reporter.js'
import type { Trigger } from '../thread/trigger.js'

/** At most one update of the check run this often while the run works, as for the tracking comment. */
export const CHECK_RUN_UPDATE_INTERVAL_MS = 5_000

/**
 * Where a run's check run goes: a commit, and the pull request whose head it is (the prompt then
 * names that commit, so the verdict is on the commit reviewed); or nowhere.
 */
export type CheckRunPlace = { sha: string; pullRequest?: number } | undefined

/** Pull request events: a run from the inputs there checks the pull request's head. */
const PULL_REQUEST_EVENTS = /^pull_request/

/**
 * Where this step's check run goes (issue #20): `auto`, a run asked for on a pull request, on the
 * head its prompt names (the event's, or read from the pull request when the event lacks it: an
 * issue comment; none when it could not be read); `true`, a run from the inputs too, on the event's
 * pull request head or else GITHUB_SHA; `false`, none. A run asked for on an issue gets none.
 */
export function checkRunPlace(
  mode: CheckRunMode,
  trigger: Trigger,
  /** The event's name, GITHUB_SHA, and its payload, read only when a run from the inputs needs it. */
  event: { name: string; sha: string; payload?: () => unknown }
): CheckRunPlace {
  if (mode === 'false') return undefined
  if (trigger.kind === 'thread') {
    const sha = trigger.pullRequest?.headSha
    return trigger.thread.isPullRequest && sha ? { sha, pullRequest: trigger.thread.number } : undefined
  }
  if (trigger.kind !== 'inputs' || mode !== 'true') return undefined
  if (PULL_REQUEST_EVENTS.test(event.name)) {
    const head = pullRequestHead(event.payload)
    if (head) return head
  }
  return event.sha ? { sha: event.sha } : undefined
}

/** The event's pull request head: its sha and number; undefined when the payload cannot be read or has none. */
export function pullRequestHead(payload: (() => unknown) | undefined): CheckRunPlace {
  try {
    const pr = (payload?.() as { pull_request?: { number?: unknown; head?: { sha?: unknown } } } | undefined)
      ?.pull_request
    const sha = pr?.head?.sha
    if (typeof sha !== 'string' || !sha) return undefined
    return Number.isSafeInteger(pr?.number) ? { sha, pullRequest: pr?.number as number } : { sha }
  } catch {
    return undefined
  }
}

export interface OpenCheckRunOptions {
  github: GitHubApi
  settings: Pick<Settings, 'checkName' | 'triggerPhrase' | 'context' | 'failOn'>
  /** The run is a follow-up of an earlier one. */
  resumed: boolean
  /** Asked for on a thread (a paused run is answered there), not run from the inputs. */
  onThread: boolean
  /** The run writes a plan (or revises one): the check says so while it works. */
  planning?: boolean
  clock: Clock
  warn: (message: string) => void
  /** Aborted when the job is cancelled: the check concludes at once. */
  cancellation?: AbortSignal
}

/**
 * The step's check run at `place`, its create sent and not waited for: the run starts whether or
 * not GitHub has answered it, and the check's writes queue behind it.
 */
export function openCheckRun(place: NonNullable<CheckRunPlace>, options: OpenCheckRunOptions): CheckRun {
  const { github, settings } = options
  const check = new CheckRun({
    github,
    name: settings.checkName,
    headSha: place.sha,
    state: {
      entriesSeen: 0,
      resumed: options.resumed,
      workflowRunUrl: workflowRunUrl(settings.context),
      policy: { failOn: settings.failOn, triggerPhrase: settings.triggerPhrase },
      ...(options.onThread ? { triggerPhrase: settings.triggerPhrase } : {}),
      ...(options.planning ? { planning: true } : {})
    },
    clock: options.clock,
    warn: options.warn,
    ...(options.cancellation ? { cancellation: options.cancellation } : {})
  })
  check.open()
  return check
}

export interface CheckRunOptions {
  github: Pick<GitHubApi, 'createCheckRun' | 'updateCheckRun' | 'annotateCheckRun' | 'findLostCheckRun'>
  /** The check run's name (the check-name input). */
  name: string
  /** The commit it is on: the pull request's head, or GITHUB_SHA. */
  headSha: string
  state: CheckRunState
  clock: Clock
  /** A failure of the writes' own machinery (GitHub's failures are the client's warnings). */
  warn: (message: string) => void
  minIntervalMs?: number
  /**
   * Aborted when the job is cancelled: the check concludes at once (cancelled, as fail-on makes it),
   * ahead of the run's stop: a required check left in progress blocks the pull request.
   */
  cancellation?: AbortSignal
}

/**
 * The check run of one step's run on the pull request's head commit: its create sent before the run
 * starts (never waited for: a stalled GitHub costs the run nothing), updated (throttled, each write
 * behind the create) as it goes, concluded on every ending. GitHub's refusals are the client's
 * warnings; they never change the run's outcome nor fail the step.
 */
export class CheckRun extends LiveReporter<CheckRunState> {
  /** The check run's id once GitHub created it. */
  id?: number
  /** GitHub's answer to the create: the id, or undefined when it was not created. */
  private created: Promise<number | undefined> = Promise.resolve(undefined)

  constructor(private readonly options: CheckRunOptions) {
    super(
      options.state,
      options.clock,
      options.minIntervalMs ?? CHECK_RUN_UPDATE_INTERVAL_MS,
      options.warn,
      'Check run'
    )
  }

  /** Sends the create, in progress, once: every write after it waits for its answer. */
  open(): void {
    const { github, name, headSha, cancellation } = this.options
    this.created = github.createCheckRun(name, headSha, this.fields()).then(id => (this.id = id))
    cancellation?.addEventListener('abort', this.concludeCancelled, { once: true })
  }

  private readonly concludeCancelled = (): void => {
    if (this.options.state.report) return
    this.options.state.cancelled = true
    void this.writes.flush()
  }

  /**
   * The id once GitHub answered the create (it ends with GitHub's deadline), or as known when
   * `signal` aborts first: a cancelled job writes its outputs without waiting for GitHub.
   */
  whenCreated(signal: AbortSignal): Promise<number | undefined> {
    if (signal.aborted) return Promise.resolve(this.id)
    return new Promise(resolve => {
      const stop = (): void => resolve(this.id)
      signal.addEventListener('abort', stop, { once: true })
      void this.created
        .then(resolve, () => resolve(undefined))
        .finally(() => signal.removeEventListener('abort', stop))
    })
  }

  /**
   * Concludes the check run with the ending, whatever it is, and waits for it; then annotates the
   * findings on their lines, when the answer has any.
   */
  async finish(report: RunReport): Promise<void> {
    this.options.cancellation?.removeEventListener('abort', this.concludeCancelled)
    const state = this.options.state
    state.report = report
    // The agent's verdict, when one was asked for and its answer is valid: its reason is the title's.
    const answer = report.answer?.answer
    if (answer?.valid && answer.verdict)
      state.verdict = { verdict: answer.verdict, reason: answer.reason ?? '' }
    await this.writes.flush()
    if (answer?.valid && answer.findings?.length) await this.annotate(annotationBatches(answer.findings))
  }

  /**
   * The annotations, 50 a request, after the conclusion (a required check in progress blocks
   * merging). GitHub appends each write's annotations: each batch is sent once, whatever becomes of
   * it, and the title and summary go with it as they are.
   */
  private async annotate(batches: ReturnType<typeof annotationBatches>): Promise<void> {
    const id = await this.created
    if (id === undefined) return
    const { title, summary } = this.fields()
    for (const batch of batches) await this.options.github.annotateCheckRun(id, { title, summary }, batch)
  }

  protected async write(): Promise<void> {
    let id = await this.created
    // The conclusion of a check whose create's answer was lost unfound: looked for once more, for a
    // required check left in progress would block the pull request for good.
    if (id === undefined && (this.options.state.report || this.options.state.cancelled)) {
      const { github, name, headSha } = this.options
      this.created = github.findLostCheckRun(name, headSha).then(found => (this.id = found))
      id = await this.created
    }
    if (id !== undefined) await this.options.github.updateCheckRun(id, this.fields())
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
