import { serviceError } from './answers.js'
import type { SlidingWindowLimiter } from './rate-limits.js'
import { EXTRA_WINDOWS, type Admission, type Call } from './routes.js'

/** What lets a request in: the tokens and their organizations, the rate windows, Retry-After or not. */
export interface Gate {
  readonly tokens: ReadonlyMap<string, { orgIds: number[]; userId: number }>
  readonly limiter: SlidingWindowLimiter | undefined
  readonly retryAfterHeader: boolean
}

/**
 * Auth, rate limits and organization access, after validation as in FastAPI (the token is read in
 * the endpoint, which runs only once the parameters are valid). A request counts toward its token's
 * windows from here on, refused ones excepted.
 */
export function admit(gate: Gate, call: Call, orgId: number | undefined): Admission {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(call.authorization ?? '')?.[1]
  const holder = token === undefined ? undefined : gate.tokens.get(token)
  if (token === undefined || !holder) return { admitted: false, answer: serviceError(401) }

  if (gate.limiter) {
    const extra = EXTRA_WINDOWS[call.route.name]
    const admission = gate.limiter.admit(token, extra ? ['general', extra] : ['general'], call.now)
    if (!admission.admitted) {
      const answer = serviceError(429)
      if (gate.retryAfterHeader) {
        answer.headers = { 'retry-after': String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000))) }
      }
      return { admitted: false, answer }
    }
  }

  if (orgId !== undefined && !holder.orgIds.includes(orgId))
    return { admitted: false, answer: serviceError(403) }
  return { admitted: true, userId: holder.userId }
}
