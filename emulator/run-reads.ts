import { json, pageOf, serviceError, type Answer } from './answers.js'
import type { ModeName } from './modes.js'
import { pathIds, SOURCE_TYPES, type Admission, type Call } from './routes.js'
import type { EmulatedRun } from './runs.js'
import { Validator } from './validation.js'

/** What the routes of existing runs read of the emulator: its runs, its modes, its admission. */
export interface RunState {
  runsById: ReadonlyMap<number, EmulatedRun>
  modes: ReadonlySet<ModeName>
  /** Auth, rate limits and organization access (the server's). */
  admit: (call: Call, orgId: number | undefined) => Admission
}

/** The service's routes of runs that exist: stop one, read one, page its log, list them. */
export class RunReads {
  constructor(private readonly deps: RunState) {}

  /** A run of that organization (another organization's run is as unknown as a missing one). */
  private find(orgId: number, runId: number): EmulatedRun | undefined {
    const run = this.deps.runsById.get(runId)
    return run?.organizationId === orgId ? run : undefined
  }

  /**
   * The beta stop path, which no published document describes (see routes.ts). Its body is read as
   * StopAgentRunInput, the published ban path's body, which names the run the same way. Its answer
   * is not documented either: 200 with the run as a GET then shows it, as Codegen's Raycast client
   * types it (AgentRunResponse). A run that has ended is left as it is, with the same 200: a stop
   * retried after a lost answer, or one that crossed the run's own ending, is no error, and the
   * caller sees the status either way. Counts in the general rate window only.
   */
  stopRun(call: Call): Answer {
    const v = new Validator()
    const { orgId } = pathIds(v, call)
    const body = v.bodyObject(call.body)
    // In StopAgentRunInput's field order; the card order keys are read and ignored.
    const runId = body && v.requiredInteger(body, 'agent_run_id')
    if (body) {
      v.optionalString(body, 'before_card_order_id')
      v.optionalString(body, 'after_card_order_id')
    }
    if (v.failed || runId === undefined) return json(v.body, 422)

    const admission = this.deps.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const run = this.find(orgId, runId)
    if (!run) return serviceError(404)
    run.stop(call.now, this.deps.modes.has('stop-cancelled') ? 'CANCELLED' : 'STOPPED')
    return json(run.response(call.now))
  }

  getRun(call: Call): Answer {
    const v = new Validator()
    const { orgId, runId } = pathIds(v, call)
    if (v.failed) return json(v.body, 422)

    const admission = this.deps.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const run = this.find(orgId, runId)
    return run ? json(run.response(call.now)) : serviceError(404)
  }

  getLogs(call: Call): Answer {
    const v = new Validator()
    const { orgId, runId } = pathIds(v, call)
    const skip = v.queryInteger(call.query, 'skip', 0, { ge: 0 })
    const limit = v.queryInteger(call.query, 'limit', 100, { ge: 1, le: 100 })
    // Only the OpenAPI (alpha) path has `reverse`; elsewhere it is an unknown parameter, ignored.
    const reverse = call.route.name === 'logs-alpha' ? v.queryBoolean(call.query, 'reverse', false) : false
    if (v.failed) return json(v.body, 422)

    const admission = this.deps.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const run = this.find(orgId, runId)
    return run ? json(run.withLogs(call.now, skip, limit, reverse)) : serviceError(404)
  }

  listRuns(call: Call): Answer {
    const v = new Validator()
    const { orgId } = pathIds(v, call)
    const userId = v.queryOptionalInteger(call.query, 'user_id')
    const sourceType = v.queryEnum(call.query, 'source_type', SOURCE_TYPES)
    const skip = v.queryInteger(call.query, 'skip', 0, { ge: 0 })
    const limit = v.queryInteger(call.query, 'limit', 100, { ge: 1, le: 100 })
    if (v.failed) return json(v.body, 422)

    const admission = this.deps.admit(call, orgId)
    if (!admission.admitted) return admission.answer
    const runs = [...this.deps.runsById.values()]
      .filter(
        run =>
          run.organizationId === orgId &&
          (userId === null || run.userId === userId) &&
          (sourceType === null || run.sourceType === sourceType)
      )
      // Newest first by creation date, as the document says; a run seeded as older may have a larger id.
      .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
    const page = pageOf(runs, skip, limit)
    // Only the page's runs are worked out at this moment.
    return json({ ...page, items: page.items.map(run => run.response(call.now)) })
  }
}
