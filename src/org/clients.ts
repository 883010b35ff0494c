import { HttpAgentRunApi, type AgentRunApi, type OrganizationApi } from '../api/client.js'
import { RateBudget } from '../api/rate-budget.js'
import type { Clock } from '../clock.js'
import type { Network } from '../network.js'
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
  fetch?: Network['service']
): ServiceClients {
  const budget = new RateBudget()
  const clients = new Map<number, HttpAgentRunApi>()
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
        pollIntervalMs: settings.pollIntervalMs,
        debug,
        ...(fetch ? { fetch } : {})
      })
      clients.set(key, client)
    }
    return client
  }
}
