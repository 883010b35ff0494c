import type { Fault, FaultRule, RouteName } from './types.js'

interface ActiveRule {
  routes: Array<RouteName | 'unknown'> | undefined
  /** Matching requests still to let through before the rule starts hitting. */
  toSkip: number
  /** Matching requests the rule will still hit. */
  hitsLeft: number
  fault: Fault
}

/**
 * Injected faults. Each rule counts the requests of its routes on its own (so `after: 3` means "the
 * fourth matching request", whatever other rules did to the first three); when several rules want
 * the same request, the one injected first takes it and the others keep their hit for later.
 */
export class FaultPlan {
  private readonly rules: ActiveRule[] = []

  add(rules: FaultRule[]): void {
    for (const rule of rules) {
      const times = rule.times ?? 1
      const after = rule.after ?? 0
      if (!Number.isInteger(times) || times < 1 || !Number.isInteger(after) || after < 0) {
        throw new Error(`A fault rule needs times >= 1 and after >= 0 (integers), got ${times} and ${after}`)
      }
      if ((rule.fault.kind === 'slow' || rule.fault.kind === 'late') && !(rule.fault.delayMs >= 0)) {
        throw new Error(`A ${rule.fault.kind} fault needs delayMs >= 0, got ${rule.fault.delayMs}`)
      }
      const routes = rule.route === undefined ? undefined : [rule.route].flat()
      this.rules.push({ routes, toSkip: after, hitsLeft: times, fault: rule.fault })
    }
  }

  /** The fault for this request, if any; every rule that matches the route counts the request. */
  take(route: RouteName | 'unknown'): Fault | undefined {
    let taken: Fault | undefined
    for (const rule of this.rules) {
      if (rule.hitsLeft === 0 || (rule.routes && !rule.routes.includes(route))) continue
      if (rule.toSkip > 0) {
        rule.toSkip--
      } else if (!taken) {
        rule.hitsLeft--
        taken = rule.fault
      }
    }
    return taken
  }
}

/**
 * A hostile log: every read on either path answers a full page (as many entries as asked for, or
 * `perPage` whatever was asked) of about `entryBytes` each and a total far beyond it, for as long
 * as the run is read (a lying, endless log).
 */
export function endlessLog(entryBytes: number, perPage?: number): FaultRule {
  const padding = 'x'.repeat(Math.max(0, entryBytes))
  return {
    route: ['logs', 'logs-alpha'],
    times: Number.MAX_SAFE_INTEGER,
    fault: {
      kind: 'drift',
      mutate: (body, query) => {
        const runId = Number(body.id)
        const length = perPage ?? Math.min(100, Number(query.limit) || 100)
        const logs = Array.from({ length }, (_, i) => ({
          agent_run_id: runId,
          created_at: '2025-06-21 11:20:04.338000',
          tool_name: 'run_command',
          message_type: 'ACTION',
          thought: `Step ${i}`,
          observation: padding,
          tool_input: null,
          tool_output: null
        }))
        return { ...body, logs, total_logs: 1_000_000_000 }
      }
    }
  }
}
