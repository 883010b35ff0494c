import type {
  AgentRun,
  AgentRunWithLogs,
  EmulatedRunView,
  LogEntry,
  PullRequest,
  ResumeRecord,
  RunScript,
  ScriptStep
} from './types.js'

/** What a run was created from. */
export interface RunInput {
  prompt: string
  images: string[] | null
  repo_id: number | null
  model: string | null
  agent_type: string | null
  metadata: Record<string, unknown> | null
}

/** A script step placed on the run's clock, with its log entry already built. */
interface TimedStep {
  at: number
  step: ScriptStep
  entry?: LogEntry
}

interface RunState {
  status: string | null
  result: string | null
  summary: string | null
  pullRequests: PullRequest[]
  logs: LogEntry[]
}

/** Run timestamps as the live service writes them: `2025-06-21 11:20:04.338398` (UTC, no zone). */
export function serviceTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000`
}

/**
 * The statuses of a run that has ended, as Codegen's own clients read them (the OpenAPI document types
 * status as a free string): COMPLETE and the ways of ending badly. PAUSED is not among them: such a
 * run waits for a follow-up.
 */
export const ENDED_STATUSES: ReadonlySet<string> = new Set([
  'COMPLETE',
  'ERROR',
  'FAILED',
  'CANCELLED',
  'STOPPED',
  'TIMEOUT',
  'MAX_ITERATIONS_REACHED',
  'OUT_OF_TOKENS'
])

export function checkScript(script: RunScript): void {
  for (const step of script.steps) {
    if (!Number.isFinite(step.at) || step.at < 0)
      throw new Error(`A script step needs at >= 0, got ${step.at}`)
  }
  const stale = script.staleAfterResumeMs ?? 0
  if (!Number.isFinite(stale) || stale < 0) throw new Error(`staleAfterResumeMs must be >= 0, got ${stale}`)
}

/**
 * One agent run. Nothing runs in the background: the run's state at any moment is its script steps
 * due by then, applied in order, so every answer is computed from the clock at request time.
 */
export class EmulatedRun {
  readonly resumes: ResumeRecord[] = []
  private timeline: TimedStep[] = []
  private followUps: RunScript[] = []

  constructor(
    readonly id: number,
    readonly organizationId: number,
    readonly userId: number,
    readonly createdAt: number,
    readonly input: RunInput,
    readonly webUrl: string,
    script: RunScript,
    /** API for runs created through the API; SETUP_COMMANDS for setup-command generation. */
    readonly sourceType = 'API'
  ) {
    this.follow(script, createdAt)
  }

  /**
   * A follow-up prompt interrupts whatever the current script had not done yet; the new script
   * starts after its staleness, until when the old status and result are still reported (the live
   * service takes a moment to pick a resumed run up).
   */
  resume(
    script: RunScript,
    prompt: string,
    images: string[] | null,
    now: number,
    /** An entry the resume itself writes, at once (the `resume-user-message` mode). */
    entry?: Partial<LogEntry>
  ): void {
    this.timeline = this.timeline.filter(timed => timed.at <= now)
    this.resumes.push({ at: now, prompt, images })
    if (entry) this.timeline.push({ at: now, step: { at: 0, log: entry }, entry: this.logEntry(entry, now) })
    this.follow(script, now + (script.staleAfterResumeMs ?? 0))
  }

  /**
   * Stops the run at `now`: it shows `status` from then on and does nothing more of its script (no
   * more log entries). A run that has ended is left as it is; false then. One resumed a moment ago
   * still shows its old ending but is working again: it is stopped.
   */
  stop(now: number, status: string): boolean {
    const current = this.state(now).status
    const ended = current !== null && ENDED_STATUSES.has(current.toUpperCase())
    if (ended && !this.timeline.some(timed => timed.at > now)) return false
    this.timeline = this.timeline.filter(timed => timed.at <= now)
    this.timeline.push({ at: now, step: { at: 0, status } })
    return true
  }

  /** The script this run answers its next follow-up with, when its script said. */
  nextFollowUp(): RunScript | undefined {
    return this.followUps.shift()
  }

  private follow(script: RunScript, start: number): void {
    if (script.followUps) this.followUps = [...script.followUps]
    // A stable sort: steps with equal `at` keep their array order.
    const steps = [...script.steps].sort((a, b) => a.at - b.at)
    for (const step of steps) {
      const at = start + step.at
      this.timeline.push({ at, step, entry: step.log && this.logEntry(step.log, at) })
    }
  }

  private logEntry(log: Partial<LogEntry>, at: number): LogEntry {
    return {
      agent_run_id: log.agent_run_id ?? this.id,
      created_at: log.created_at === undefined ? new Date(at).toISOString() : log.created_at,
      tool_name: log.tool_name ?? null,
      message_type: log.message_type ?? null,
      thought: log.thought ?? null,
      observation: log.observation ?? null,
      tool_input: log.tool_input ?? null,
      tool_output: log.tool_output ?? null
    }
  }

  private state(now: number): RunState {
    const state: RunState = { status: null, result: null, summary: null, pullRequests: [], logs: [] }
    for (const { at, step, entry } of this.timeline) {
      if (at > now) break
      if (step.status !== undefined) state.status = step.status
      if (step.result !== undefined) state.result = step.result
      if (step.summary !== undefined) state.summary = step.summary
      if (step.pullRequests) {
        const createdAt = new Date(at).toISOString()
        state.pullRequests = step.pullRequests.map(pr => ({ ...pr, created_at: pr.created_at ?? createdAt }))
      }
      if (entry) state.logs.push(entry)
    }
    return state
  }

  /** AgentRunResponse at this moment. */
  response(now: number): AgentRun {
    return this.toResponse(this.state(now))
  }

  private toResponse(state: RunState): AgentRun {
    return {
      id: this.id,
      organization_id: this.organizationId,
      status: state.status,
      created_at: serviceTimestamp(this.createdAt),
      web_url: this.webUrl,
      result: state.result,
      summary: state.summary,
      source_type: this.sourceType,
      github_pull_requests: state.pullRequests,
      // As the creator sent it, whole: neither document sets a bound on it.
      metadata: this.input.metadata
    }
  }

  /** AgentRunWithLogsResponse at this moment: the same status as the run's, one page of its log. */
  withLogs(now: number, skip: number, limit: number, reverse: boolean): AgentRunWithLogs {
    const state = this.state(now)
    const logs = reverse ? [...state.logs].reverse() : state.logs
    const total = logs.length
    return {
      id: this.id,
      organization_id: this.organizationId,
      status: state.status,
      created_at: serviceTimestamp(this.createdAt),
      web_url: this.webUrl,
      result: state.result,
      metadata: this.input.metadata,
      logs: logs.slice(skip, skip + limit),
      total_logs: total,
      page: Math.floor(skip / limit) + 1,
      size: limit,
      pages: Math.ceil(total / limit)
    }
  }

  view(now: number): EmulatedRunView {
    const state = this.state(now)
    return {
      ...this.toResponse(state),
      prompt: this.input.prompt,
      images: this.input.images,
      repo_id: this.input.repo_id,
      model: this.input.model,
      agent_type: this.input.agent_type,
      user_id: this.userId,
      resumes: this.resumes.map(resume => ({ ...resume })),
      logs: state.logs.map(entry => ({ ...entry }))
    }
  }
}
