import { DOCS, gitHubError, isObject, json, shown, type Answer } from './answers.js'
import { CHECK_RUN, CHECK_RUNS, CHECK_RUNS_FOR_REF } from './check-runs.js'
import { PULL_FILES, REVIEWS } from './reviews.js'

/**
 * The fake's routing and the request plumbing every endpoint shares: the routes, a request's body and
 * token, GitHub's request-schema errors, and its pagination (query parameters and Link header).
 */

export type RouteName =
  | 'permission'
  | 'team-membership'
  | 'pull'
  | 'list-comments'
  | 'create-comment'
  | 'update-comment'
  | 'comment-reaction'
  | 'issue-reaction'
  | 'list-review-comments'
  | 'create-review-reply'
  | 'update-review-comment'
  | 'review-comment-reaction'
  | 'user'
  | 'create-check-run'
  | 'check-run'
  | 'list-check-runs'
  | 'workflow-run-jobs'
  | 'job-logs'
  | 'pull-files'
  | 'list-reviews'
  | 'create-review'

export interface Route {
  name: RouteName
  method: 'GET' | 'POST' | 'PATCH'
  pattern: RegExp
  /** What GitHub puts in the documentation_url of the endpoint's errors. */
  documentationUrl: string
}

/** One routed request as the handlers see it. */
export interface Call {
  route: Route
  params: Record<string, string>
  query: Record<string, string>
  body: unknown
  /** The API's base URL as the client reached it (Host header and path prefix). */
  api: string
  /** The request path without the prefix, for Link headers. */
  path: string
  now: number
}

/** The templates of the Actions operations in GitHub's REST description (actions.ts serves them). */
export const WORKFLOW_RUN_JOBS = '/repos/{owner}/{repo}/actions/runs/{run_id}/jobs'
export const JOB_LOGS = '/repos/{owner}/{repo}/actions/jobs/{job_id}/logs'

function route(name: RouteName, method: Route['method'], template: string, page: string): Route {
  const source = template.replace(/\{(\w+)\}/g, (_, param: string) => `(?<${param}>[^/]+)`)
  return { name, method, pattern: new RegExp(`^${source}$`), documentationUrl: `${DOCS}/${page}` }
}

const ROUTES: Route[] = [
  route(
    'permission',
    'GET',
    '/repos/{owner}/{repo}/collaborators/{username}/permission',
    'collaborators/collaborators#get-repository-permissions-for-a-user'
  ),
  route(
    'team-membership',
    'GET',
    '/orgs/{org}/teams/{team_slug}/memberships/{username}',
    'teams/members#get-team-membership-for-a-user'
  ),
  route('pull', 'GET', '/repos/{owner}/{repo}/pulls/{pull_number}', 'pulls/pulls#get-a-pull-request'),
  route(
    'list-comments',
    'GET',
    '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    'issues/comments#list-issue-comments'
  ),
  route(
    'create-comment',
    'POST',
    '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    'issues/comments#create-an-issue-comment'
  ),
  route(
    'update-comment',
    'PATCH',
    '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    'issues/comments#update-an-issue-comment'
  ),
  route(
    'comment-reaction',
    'POST',
    '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
    'reactions/reactions#create-reaction-for-an-issue-comment'
  ),
  route(
    'issue-reaction',
    'POST',
    '/repos/{owner}/{repo}/issues/{issue_number}/reactions',
    'reactions/reactions#create-reaction-for-an-issue'
  ),
  route(
    'list-review-comments',
    'GET',
    '/repos/{owner}/{repo}/pulls/{pull_number}/comments',
    'pulls/comments#list-review-comments-on-a-pull-request'
  ),
  route(
    'create-review-reply',
    'POST',
    '/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
    'pulls/comments#create-a-reply-for-a-review-comment'
  ),
  route(
    'update-review-comment',
    'PATCH',
    '/repos/{owner}/{repo}/pulls/comments/{comment_id}',
    'pulls/comments#update-a-review-comment-for-a-pull-request'
  ),
  route(
    'review-comment-reaction',
    'POST',
    '/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions',
    'reactions/reactions#create-reaction-for-a-pull-request-review-comment'
  ),
  route('user', 'GET', '/user', 'users/users#get-the-authenticated-user'),
  route('create-check-run', 'POST', CHECK_RUNS, 'checks/runs#create-a-check-run'),
  route('check-run', 'GET', CHECK_RUN, 'checks/runs#get-a-check-run'),
  route('check-run', 'PATCH', CHECK_RUN, 'checks/runs#update-a-check-run'),
  route('list-check-runs', 'GET', CHECK_RUNS_FOR_REF, 'checks/runs#list-check-runs-for-a-git-reference'),
  route('workflow-run-jobs', 'GET', WORKFLOW_RUN_JOBS, 'actions/workflow-jobs#list-jobs-for-a-workflow-run'),
  route('job-logs', 'GET', JOB_LOGS, 'actions/workflow-jobs#download-job-logs-for-a-workflow-run'),
  route('pull-files', 'GET', PULL_FILES, 'pulls/pulls#list-pull-requests-files'),
  route('list-reviews', 'GET', REVIEWS, 'pulls/reviews#list-reviews-for-a-pull-request'),
  route('create-review', 'POST', REVIEWS, 'pulls/reviews#create-a-review-for-a-pull-request')
]

/** The route of `method` and `path` (without prefix and query), with its percent-decoded parameters. */
export function matchRoute(
  method: string,
  path: string
): { route: Route; params: Record<string, string> } | undefined {
  for (const candidate of ROUTES) {
    if (candidate.method !== method) continue
    const found = candidate.pattern.exec(path)
    if (!found) continue
    const params = Object.fromEntries(
      Object.entries(found.groups ?? {}).map(([name, value]) => [name, decodePathSegment(value)])
    )
    return { route: candidate, params }
  }
  return undefined
}

/** A path segment percent-decoded; a broken escape stays as it came. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

export type ParsedBody =
  { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'invalid'; text: string }

export function parseBody(text: string): ParsedBody {
  if (text.trim() === '') return { kind: 'none' }
  try {
    const value = JSON.parse(text) as unknown
    // A string escaping half of a surrogate pair (`"\ud800"`) is no Unicode: a strict parser refuses it.
    return holdsLoneSurrogate(value) ? { kind: 'invalid', text } : { kind: 'json', value }
  } catch {
    return { kind: 'invalid', text }
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

function holdsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value)
  if (value === null || typeof value !== 'object') return false
  return Object.entries(value).some(([key, item]) => LONE_SURROGATE.test(key) || holdsLoneSurrogate(item))
}

/** The token of `token X` or `Bearer X` (either scheme in any case), or undefined. */
export function tokenOf(authorization: string | undefined): string | undefined {
  return /^(?:token|bearer)\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1]
}

/** GitHub's JSON schema errors: the body must be an object with `field`, which `problem` accepts. */
export function schemaError(
  call: Call,
  field: string,
  problem: (value: unknown) => string | undefined
): Answer | undefined {
  const invalid = (detail: string): Answer =>
    gitHubError(422, `Invalid request.\n\n${detail}`, call.route.documentationUrl)
  if (!isObject(call.body)) return invalid(`For 'links/0/schema', ${shown(call.body)} is not an object.`)
  if (!(field in call.body)) return invalid(`"${field}" wasn't supplied.`)
  const value = call.body[field]
  const issue = problem(value)
  return issue ? invalid(`For 'properties/${field}', ${shown(value)} ${issue}.`) : undefined
}

/**
 * The page of `all` the call asks for (per_page at most 100, default 30), each item as `wire` shows
 * it, with GitHub's Link header; `wrap` makes the page's body of its items and the total (a list
 * in an object, as Actions' endpoints answer), else the items alone.
 */
export function pageOf<T>(
  call: Call,
  all: T[],
  wire: (item: T) => unknown,
  wrap: (items: unknown[], total: number) => unknown = items => items
): Answer {
  const perPage = Math.min(queryInteger(call.query.per_page, 30), 100)
  const number = queryInteger(call.query.page, 1)
  const items = all.slice((number - 1) * perPage, number * perPage)
  const link = linkHeader(call.api + call.path, call.query, number, Math.ceil(all.length / perPage))
  return json(wrap(items.map(wire), all.length), 200, link ? { link } : undefined)
}

/** A query parameter as GitHub reads it: the default when absent or not a positive integer. */
function queryInteger(text: string | undefined, fallback: number): number {
  const value = text === undefined || !/^\d+$/.test(text) ? Number.NaN : Number(text)
  return value >= 1 ? value : fallback
}

/** GitHub's Link header: prev, next, last, first, whichever apply, with absolute URLs. */
function linkHeader(
  url: string,
  query: Record<string, string>,
  page: number,
  lastPage: number
): string | undefined {
  const link = (target: number, rel: string): string => {
    const params = new URLSearchParams({ ...query, page: String(target) })
    return `<${url}?${params.toString()}>; rel="${rel}"`
  }
  const links: string[] = []
  if (page > 1) links.push(link(page - 1, 'prev'))
  if (page < lastPage) links.push(link(page + 1, 'next'), link(lastPage, 'last'))
  if (page > 1) links.push(link(1, 'first'))
  return links.length > 0 ? links.join(', ') : undefined
}
