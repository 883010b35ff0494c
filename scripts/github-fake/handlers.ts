import { gitHubError, json, notFound, type Answer } from './answers.js'
import type { Actions } from './actions.js'
import type { CheckRuns } from './check-runs.js'
import type { Comments } from './comments.js'
import type { Reactions } from './reactions.js'
import type { Repository } from './repository.js'
import type { Reviews } from './reviews.js'
import { matchRoute, pageOf, type Call, type ParsedBody } from './routes.js'
import type { RecordedGitHubRequest } from './types.js'

/** The fake's resources, each answering the routes of its area. */
export interface Stores {
  repository: Repository
  comments: Comments
  reactions: Reactions
  checks: CheckRuns
  reviews: Reviews
  actions: Actions
  /** Whether the token may read its own user (GET /user). */
  identityVisible: boolean
}

/** A request as received, its body read. */
export interface RoutedRequest {
  record: RecordedGitHubRequest
  /** Under the fake's path prefix (GitHub Enterprise Server's /api/v3). */
  insidePrefix: boolean
  body: ParsedBody
  authenticated: boolean
  /** The API's base URL as the client reached it. */
  api: string
}

/** A request past the faults: authentication, then its route, then the resource that answers it. */
export function route(
  stores: Stores,
  { record, insidePrefix, body, authenticated, api }: RoutedRequest
): Answer {
  if (!authenticated) {
    return record.authorization === undefined
      ? gitHubError(401, 'Requires authentication')
      : gitHubError(401, 'Bad credentials')
  }
  if (!insidePrefix) return notFound()

  const match = matchRoute(record.method, record.path)
  if (!match) return notFound()
  const { route: found, params } = match
  if (params.owner !== undefined && !stores.repository.isOurs(params.owner, params.repo)) {
    return notFound(found.documentationUrl)
  }
  if (found.method !== 'GET' && body.kind === 'invalid') {
    return gitHubError(400, 'Problems parsing JSON', found.documentationUrl)
  }
  const value = body.kind === 'json' ? body.value : undefined
  return dispatch(stores, {
    route: found,
    params,
    query: record.query,
    body: value,
    api,
    path: record.path,
    now: record.at
  })
}

/** A routed request handed to the resource whose route it is. */
function dispatch(stores: Stores, call: Call): Answer {
  const { repository, comments, reactions, checks, reviews, actions } = stores
  switch (call.route.name) {
    case 'permission':
      return repository.getPermission(call)
    case 'team-membership':
      return repository.getTeamMembership(call)
    case 'pull':
      return repository.getPullRequest(call)
    case 'list-comments':
      return comments.listComments(call)
    case 'create-comment':
      return comments.createComment(call)
    case 'update-comment':
      return comments.updateComment(call)
    case 'comment-reaction':
    case 'issue-reaction':
    case 'review-comment-reaction':
      return reactions.create(call)
    case 'list-review-comments':
      return comments.listReviewComments(call)
    case 'create-review-reply':
      return comments.createReviewReply(call)
    case 'update-review-comment':
      return comments.updateReviewComment(call)
    case 'create-check-run':
    case 'check-run':
      return checks.handle({
        method: call.route.method,
        path: call.path,
        id: call.params.check_run_id,
        body: call.body,
        api: call.api,
        web: repository.webBase(),
        repository: repository.fullName,
        documentationUrl: call.route.documentationUrl,
        now: call.now
      })
    case 'list-check-runs':
      return checks.listForRef(
        {
          ref: call.params.ref ?? '',
          query: call.query,
          path: call.path,
          api: call.api,
          web: repository.webBase(),
          repository: repository.fullName,
          documentationUrl: call.route.documentationUrl,
          now: call.now
        },
        (runs, wire) =>
          pageOf(call, runs, wire, (items, total) => ({ total_count: total, check_runs: items }))
      )
    case 'workflow-run-jobs':
    case 'job-logs':
      return actions.handle(call)
    case 'pull-files':
    case 'list-reviews':
    case 'create-review':
      return reviews.handle(call)
    case 'user':
      return stores.identityVisible
        ? json({ ...repository.wireUser(repository.actor, call.api), name: null, email: null })
        : gitHubError(403, 'Resource not accessible by integration', call.route.documentationUrl)
  }
}
