import { HttpAgentRunApi, type AgentRunApi, type OrganizationApi } from '../api/client.js'
import { RateBudget } from '../api/rate-budget.js'
import type { Clock } from '../clock.js'
import type { Settings } from '../settings/settings.js'

/** The service's clients by organization id (undefined: the calls not scoped to one). */
export type ServiceClients = (orgId: number | undefined) => AgentRunApi & OrganizationApi

/**
 * One client per organization id, sharing one rate budget: the limits are the token's, whatever the
 * organization.
 */
export function serviceClients(
  settings: Pick<Settings, 'baseUrl' | 'apiToken'> & Partial<Pick<Settings, 'pollIntervalMs'>>,
  clock: Clock,
  signal: AbortSignal,
  debug: (message: string) => void,
  env: Record<string, string | undefined>
): ServiceClients {
  const budget = new RateBudget()
  const clients = new Map<number, HttpAgentRunApi>()
  // Undocumented, for the fault-injection tests: a per-request time limit below the default 30 s.
  const requestTimeoutMs = Number(env.CODEGEN_REQUEST_TIMEOUT_MS)
  return orgId => {
    const key = orgId ?? 0
    let client = clients.get(key)
    if (!client) {
      client = new HttpAgentRunApi({
        baseUrl: settings.baseUrl,
        token: settings.apiToken,
        orgId: key,
        budget,
        clock,
        signal,
        requestTimeoutMs: requestTimeoutMs > 0 ? requestTimeoutMs : undefined,
        pollIntervalMs: settings.pollIntervalMs,
        debug
      })
      clients.set(key, client)
    }
    return client
  }
}
