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
      if (rule.fault.kind === 'slow' && !(rule.fault.delayMs >= 0)) {
        throw new Error(`A slow fault needs delayMs >= 0, got ${rule.fault.delayMs}`)
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
