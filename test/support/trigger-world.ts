import type { FakeReviewComment, NewReviewComment } from '../../scripts/github-fake/index.js'
import { OWN_COMMENT_MARK } from '../../src/github-shapes.js'
import { addParserPullRequest, github } from './comment-world.js'
import { issueCommentEvent, reviewCommentEvent, type PullRequestFields } from './webhooks.js'

/**
 * The world of the trigger tests (triggers, code-comment-triggers and trigger-refusals .test.ts, split
 * so that jest runs them side by side): the comment workflow's world (./comment-world.ts) with the
 * pull request these events are about, and what the tests look at. Importing it registers the hooks.
 */

beforeEach(addParserPullRequest)

export { creates, resumes, trackingComments } from './comment-world.js'
export const promptOf = (request: { body: unknown } | undefined): string =>
  (request?.body as { prompt: string }).prompt
/** GitHub writes but the check run's (flows/checks/check-life.ts follows those). */
export const writes = () =>
  github.requests.filter(request => request.method !== 'GET' && !request.path.includes('/check-runs'))
export const own = (body: string): boolean => body.startsWith(OWN_COMMENT_MARK)
export const trackingReplies = (pull = 7) => github.reviewComments(pull).filter(c => own(c.body))

/** A review comment as GitHub has it (stored in the fake) and the event it sends. */
export function reviewComment(
  options: Partial<NewReviewComment> & { body: string },
  event: { action?: string; pullRequest?: PullRequestFields } = {}
): { stored: FakeReviewComment; event: ReturnType<typeof reviewCommentEvent> } {
  const stored = github.addReviewComment(7, {
    user: { login: 'alice', type: 'User' },
    path: 'src/parser.ts',
    line: 12,
    startLine: 10,
    side: 'RIGHT',
    diffHunk:
      '@@ -8,5 +8,5 @@ export function parse(line) {\n   const fields = []\n-  let i = 0\n+  let i = 1\n   while (i < line.length) {',
    ...options
  })
  return { stored, event: reviewCommentEvent(stored, event) }
}

export function issueComment(
  body: string,
  issueNumber = 7,
  pullRequest = true
): ReturnType<typeof issueCommentEvent> {
  const stored = github.addComment(issueNumber, body, { login: 'alice', type: 'User' })
  return issueCommentEvent({ body, commentId: stored.id, issueNumber, pullRequest })
}
