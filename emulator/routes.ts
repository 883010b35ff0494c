import type { RateLimitName } from './rate-limits.js'
import type { LogPathName, RouteName } from './types.js'
import type { Answer } from './answers.js'
import type { RequestBody, Validator } from './validation.js'

/** The service's routes, in FastAPI's order, and how a request finds its own. */

export interface Route {
  name: RouteName
  method: 'GET' | 'POST'
  pattern: RegExp
  /** Path parameters in the order FastAPI validates (and reports) them: the OpenAPI listing's. */
  params: string[]
}

function route(
  name: RouteName,
  method: Route['method'],
  template: string,
  params: string[] = ['org_id']
): Route {
  const source = template.replace(/\{(\w+)\}/g, (_, param: string) => `(?<${param}>[^/]+)`)
  return { name, method, pattern: new RegExp(`^${source}$`), params }
}

/** In FastAPI's registration order: the first route whose path and method match takes the request. */
export const ROUTES: Route[] = [
  route('create', 'POST', '/v1/organizations/{org_id}/agent/run'),
  route('resume', 'POST', '/v1/organizations/{org_id}/agent/run/resume'),
  // Not in the published documents: the beta path Codegen's own client (its Raycast extension) stops
  // one run with, body `{"agent_run_id": N}`.
  route('stop', 'POST', '/v1/beta/organizations/{org_id}/agent/run/stop'),
  route('get', 'GET', '/v1/organizations/{org_id}/agent/run/{agent_run_id}', ['agent_run_id', 'org_id']),
  route('logs', 'GET', '/v1/organizations/{org_id}/agent/run/{agent_run_id}/logs', [
    'org_id',
    'agent_run_id'
  ]),
  route('logs-alpha', 'GET', '/v1/alpha/organizations/{org_id}/agent/run/{agent_run_id}/logs', [
    'agent_run_id',
    'org_id'
  ]),
  route('list-runs', 'GET', '/v1/organizations/{org_id}/agent/runs'),
  route('repos', 'GET', '/v1/organizations/{org_id}/repos'),
  route('organizations', 'GET', '/v1/organizations', []),
  route('me', 'GET', '/v1/users/me', []),
  route('users', 'GET', '/v1/organizations/{org_id}/users'),
  route('user', 'GET', '/v1/organizations/{org_id}/users/{user_id}', ['org_id', 'user_id']),
  route('integrations', 'GET', '/v1/organizations/{org_id}/integrations'),
  route('setup-commands', 'POST', '/v1/organizations/{org_id}/setup-commands/generate')
]

export const LOG_PATH_OF: Partial<Record<RouteName, LogPathName>> = {
  logs: 'interface',
  'logs-alpha': 'alpha'
}

/** The rate-limit windows a request counts in, besides `general`. */
export const EXTRA_WINDOWS: Partial<Record<RouteName, RateLimitName>> = {
  create: 'create',
  logs: 'logs',
  'logs-alpha': 'logs',
  'setup-commands': 'setup'
}

export const SOURCE_TYPES = [
  'LOCAL',
  'SLACK',
  'GITHUB',
  'GITHUB_CHECK_SUITE',
  'GITHUB_PR_REVIEW',
  'LINEAR',
  'API',
  'CHAT',
  'JIRA',
  'CLICKUP',
  'MONDAY',
  'SETUP_COMMANDS'
] as const

export const AGENT_TYPES = ['codegen', 'claude_code'] as const

/** A path segment as FastAPI sees it (percent-decoded); a broken escape stays as it came. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** One routed request as the handlers see it. */
export interface Call {
  route: Route
  params: Record<string, string>
  query: Record<string, string>
  body: RequestBody
  authorization: string | undefined
  now: number
}

/** The route of a request, or (for a path that exists under another method) the allowed method. */
export function matchRoute(
  method: string,
  path: string
): { route?: Route; params: Record<string, string>; allowed?: string } {
  let allowed: string | undefined
  for (const candidate of ROUTES) {
    const found = candidate.pattern.exec(path)
    if (!found) continue
    if (candidate.method !== method) {
      allowed ??= candidate.method
      continue
    }
    const params = Object.fromEntries(
      Object.entries(found.groups ?? {}).map(([name, value]) => [name, decodePathSegment(value)])
    )
    return { route: candidate, params }
  }
  return { params: {}, allowed }
}

/** A request let in (its token's user), or the answer that refuses it. */
export type Admission = { admitted: true; userId: number } | { admitted: false; answer: Answer }

/** Path ids in the route's validation order. */
export function pathIds(v: Validator, call: Call): { orgId: number; runId: number } {
  const ids: Record<string, number> = {}
  for (const name of call.route.params) ids[name] = v.pathInteger(call.params, name)
  return { orgId: ids.org_id ?? Number.NaN, runId: ids.agent_run_id ?? Number.NaN }
}
