import { gitHubError, json, nodeId, notFound, positiveInteger, timestamp, type Answer } from './answers.js'
import type { Repository } from './repository.js'
import { pageOf, schemaError, type Call } from './routes.js'
import type {
  FakeComment,
  FakeReviewComment,
  FakeUser,
  NewReviewComment,
  ReviewCommentBase
} from './types.js'
import type { GitHubIssueComment, GitHubReviewComment } from './shapes.js'

/**
 * Issue comments and the comments on a pull request's code (review comments, with their replies):
 * stored, listed a page at a time, created and edited through the API as GitHub validates them, and
 * written by people as the web interface would. Ids of both kinds come from one sequence.
 */

/** GitHub's limit on issue comment bodies, in characters (code points, as Rails counts them). */
const MAX_COMMENT_LENGTH = 65536

const FIRST_COMMENT_ID = 2_100_000_001

interface StoredComment {
  id: number
  issueNumber: number
  body: string
  user: FakeUser
  createdAt: number
  updatedAt: number
}

interface StoredReviewComment extends ReviewCommentBase {
  startLine: number | null
  diffHunk: string
  inReplyTo?: number
  createdAt: number
  updatedAt: number
}

/** What both kinds of comment share: the store, and the checks GitHub makes on a write. */
class CommentStore<T extends { id: number; body: string; user: FakeUser; updatedAt: number }> {
  readonly byId = new Map<number, T>()

  constructor(
    protected readonly repository: Repository,
    private readonly resource: string
  ) {}

  /** An edit through the API: the request's schema, the comment, its author, then its text. */
  update(call: Call, wire: (comment: T) => unknown): Answer {
    const id = positiveInteger(call.params.comment_id)
    const invalid = bodySchemaError(call)
    if (invalid) return invalid
    const comment = id === undefined ? undefined : this.byId.get(id)
    if (!comment) return notFound(call.route.documentationUrl)
    if (comment.user.login.toLowerCase() !== this.repository.actor.login.toLowerCase()) {
      return gitHubError(403, 'Resource not accessible by integration', call.route.documentationUrl)
    }
    const body = this.body(call)
    if (typeof body !== 'string') return body
    comment.body = body
    comment.updatedAt = call.now
    return json(wire(comment))
  }

  /** An edit as its author would make it through the web interface. */
  edit(id: number, body: string, what: string): T {
    const comment = this.byId.get(id)
    if (!comment) throw new Error(`No ${what} ${id}`)
    comment.body = body
    comment.updatedAt = this.repository.now()
    return comment
  }

  /** The comment text, or the 422 GitHub gives for it: the schema check, then the model's validations. */
  body(call: Call): string | Answer {
    const invalid = bodySchemaError(call)
    if (invalid) return invalid
    const body = (call.body as { body: string }).body
    if (body.trim() === '') {
      return gitHubError(422, 'Validation Failed', call.route.documentationUrl, [
        { resource: this.resource, code: 'missing_field', field: 'body' }
      ])
    }
    if ([...body].length > MAX_COMMENT_LENGTH) {
      return gitHubError(422, 'Validation Failed', call.route.documentationUrl, [
        {
          resource: this.resource,
          code: 'custom',
          field: 'body',
          message: `body is too long (maximum is ${MAX_COMMENT_LENGTH} characters)`
        }
      ])
    }
    return body
  }
}

/** The request-schema check of `{body}`: GitHub's "Invalid request" answers. */
const bodySchemaError = (call: Call): Answer | undefined =>
  schemaError(call, 'body', value => (typeof value === 'string' ? undefined : 'is not a string'))

export class Comments {
  private nextCommentId = FIRST_COMMENT_ID
  private readonly issue: CommentStore<StoredComment>
  private readonly review: CommentStore<StoredReviewComment>

  constructor(private readonly repository: Repository) {
    this.issue = new CommentStore(repository, 'IssueComment')
    this.review = new CommentStore(repository, 'PullRequestReviewComment')
  }

  hasComment(id: number): boolean {
    return this.issue.byId.has(id)
  }

  hasReviewComment(id: number): boolean {
    return this.review.byId.has(id)
  }

  /** The comments on an issue or pull request, in creation order. */
  comments(issueNumber: number): FakeComment[] {
    return [...this.issue.byId.values()]
      .filter(comment => comment.issueNumber === issueNumber)
      .map(comment => this.commentView(comment))
  }

  /** The comments on a pull request's code, in creation order. */
  reviewComments(pullNumber: number): FakeReviewComment[] {
    return [...this.review.byId.values()]
      .filter(comment => comment.pullNumber === pullNumber)
      .map(comment => this.reviewCommentView(comment))
  }

  /** An issue comment as GET answers it; undefined when there is none. */
  wireCommentById(id: number, api: string): GitHubIssueComment | undefined {
    const comment = this.issue.byId.get(id)
    return comment && this.wireComment(comment, api)
  }

  /** A review comment as GET answers it; undefined when there is none. */
  wireReviewCommentById(id: number, api: string): GitHubReviewComment | undefined {
    const comment = this.review.byId.get(id)
    return comment && this.wireReviewComment(comment, api)
  }

  /** A comment someone wrote (now), as if through the web interface. */
  addComment(issueNumber: number, body: string, user: FakeUser): FakeComment {
    return this.commentView(this.storeComment(issueNumber, body, user, this.repository.now()))
  }

  editComment(id: number, body: string): FakeComment {
    return this.commentView(this.issue.edit(id, body, 'comment'))
  }

  /** A comment on a line of a pull request's diff, or a reply in a thread (see FakeGitHub). */
  addReviewComment(pullNumber: number, comment: NewReviewComment): FakeReviewComment {
    const root = comment.inReplyTo === undefined ? undefined : this.review.byId.get(comment.inReplyTo)
    if (comment.inReplyTo !== undefined && (!root || root.pullNumber !== pullNumber))
      throw new Error(`No review comment ${comment.inReplyTo} on pull request ${pullNumber}`)
    const line = comment.line === undefined ? 12 : comment.line
    const stored = this.storeReviewComment(
      {
        pullNumber,
        body: comment.body,
        user: comment.user,
        path: root?.path ?? comment.path ?? 'src/parser.ts',
        line: root?.line ?? line,
        startLine: root?.startLine ?? comment.startLine ?? null,
        side: root?.side ?? comment.side ?? 'RIGHT',
        diffHunk:
          root?.diffHunk ?? comment.diffHunk ?? '@@ -10,3 +10,3 @@\n const a = 1\n-const b = 2\n+const b = 3',
        inReplyTo: root ? (root.inReplyTo ?? root.id) : undefined
      },
      this.repository.now()
    )
    return this.reviewCommentView(stored)
  }

  editReviewComment(id: number, body: string): FakeReviewComment {
    return this.reviewCommentView(this.review.edit(id, body, 'review comment'))
  }

  listComments(call: Call): Answer {
    const issueNumber = positiveInteger(call.params.issue_number)
    if (issueNumber === undefined) return notFound(call.route.documentationUrl)
    const since = call.query.since === undefined ? Number.NaN : Date.parse(call.query.since)
    const all = [...this.issue.byId.values()].filter(
      comment => comment.issueNumber === issueNumber && !(comment.updatedAt < since)
    )
    return pageOf(call, all, comment => this.wireComment(comment, call.api))
  }

  createComment(call: Call): Answer {
    const issueNumber = positiveInteger(call.params.issue_number)
    if (issueNumber === undefined) return notFound(call.route.documentationUrl)
    const body = this.issue.body(call)
    if (typeof body !== 'string') return body
    const comment = this.storeComment(issueNumber, body, this.repository.actor, call.now)
    return json(this.wireComment(comment, call.api), 201)
  }

  updateComment(call: Call): Answer {
    return this.issue.update(call, comment => this.wireComment(comment, call.api))
  }

  listReviewComments(call: Call): Answer {
    const pullNumber = positiveInteger(call.params.pull_number)
    if (pullNumber === undefined || !this.repository.hasPullRequest(pullNumber))
      return notFound(call.route.documentationUrl)
    const all = [...this.review.byId.values()].filter(comment => comment.pullNumber === pullNumber)
    return pageOf(call, all, comment => this.wireReviewComment(comment, call.api))
  }

  /** A reply joins the thread of the comment it answers (GitHub keeps threads flat). */
  createReviewReply(call: Call): Answer {
    const pullNumber = positiveInteger(call.params.pull_number)
    const id = positiveInteger(call.params.comment_id)
    const answered = id === undefined ? undefined : this.review.byId.get(id)
    if (!answered || answered.pullNumber !== pullNumber) return notFound(call.route.documentationUrl)
    const body = this.review.body(call)
    if (typeof body !== 'string') return body
    const comment = this.storeReviewComment(
      {
        pullNumber: answered.pullNumber,
        body,
        user: this.repository.actor,
        path: answered.path,
        line: answered.line,
        startLine: answered.startLine,
        side: answered.side,
        diffHunk: answered.diffHunk,
        inReplyTo: answered.inReplyTo ?? answered.id
      },
      call.now
    )
    return json(this.wireReviewComment(comment, call.api), 201)
  }

  updateReviewComment(call: Call): Answer {
    return this.review.update(call, comment => this.wireReviewComment(comment, call.api))
  }

  private storeComment(issueNumber: number, body: string, user: FakeUser, now: number): StoredComment {
    const author = { ...user }
    this.repository.knownUser(author)
    const comment: StoredComment = {
      id: this.nextCommentId++,
      issueNumber,
      body,
      user: author,
      createdAt: now,
      updatedAt: now
    }
    this.issue.byId.set(comment.id, comment)
    return comment
  }

  private storeReviewComment(
    fields: Omit<StoredReviewComment, 'id' | 'createdAt' | 'updatedAt'>,
    now: number
  ): StoredReviewComment {
    const user = { ...fields.user }
    this.repository.knownUser(user)
    const comment: StoredReviewComment = {
      ...fields,
      user,
      id: this.nextCommentId++,
      createdAt: now,
      updatedAt: now
    }
    this.review.byId.set(comment.id, comment)
    return comment
  }

  private commentView(comment: StoredComment): FakeComment {
    const kind = this.repository.hasPullRequest(comment.issueNumber) ? 'pull' : 'issues'
    return {
      id: comment.id,
      issueNumber: comment.issueNumber,
      body: comment.body,
      user: { ...comment.user },
      created_at: timestamp(comment.createdAt),
      updated_at: timestamp(comment.updatedAt),
      html_url: `${this.repository.webBase()}/${this.repository.fullName}/${kind}/${comment.issueNumber}#issuecomment-${comment.id}`
    }
  }

  /** What GitHub writes alike of both kinds of comment: its ids and links, body, author and times. */
  private wireShared(
    view: FakeComment | FakeReviewComment,
    api: string,
    kind: { type: 'IssueComment' | 'PullRequestReviewComment'; under: 'issues' | 'pulls' }
  ) {
    return {
      id: view.id,
      node_id: nodeId(kind.type, view.id),
      url: `${api}/repos/${this.repository.fullName}/${kind.under}/comments/${view.id}`,
      html_url: view.html_url,
      body: view.body,
      user: this.repository.wireUser(view.user, api),
      created_at: view.created_at,
      updated_at: view.updated_at,
      author_association: this.repository.association(view.user.login)
    }
  }

  private wireComment(comment: StoredComment, api: string): GitHubIssueComment {
    const view = this.commentView(comment)
    return {
      ...this.wireShared(view, api, { type: 'IssueComment', under: 'issues' }),
      issue_url: `${api}/repos/${this.repository.fullName}/issues/${view.issueNumber}`
    }
  }

  private reviewCommentView(comment: StoredReviewComment): FakeReviewComment {
    return {
      id: comment.id,
      pullNumber: comment.pullNumber,
      body: comment.body,
      user: { ...comment.user },
      path: comment.path,
      line: comment.line,
      start_line: comment.startLine,
      side: comment.side,
      diff_hunk: comment.diffHunk,
      ...(comment.inReplyTo !== undefined ? { in_reply_to_id: comment.inReplyTo } : {}),
      created_at: timestamp(comment.createdAt),
      updated_at: timestamp(comment.updatedAt),
      html_url: `${this.repository.webBase()}/${this.repository.fullName}/pull/${comment.pullNumber}#discussion_r${comment.id}`
    }
  }

  private wireReviewComment(comment: StoredReviewComment, api: string): GitHubReviewComment {
    const view = this.reviewCommentView(comment)
    const repository = `${api}/repos/${this.repository.fullName}`
    const sha = this.repository.headShaOr(comment.pullNumber)
    return {
      ...this.wireShared(view, api, { type: 'PullRequestReviewComment', under: 'pulls' }),
      pull_request_url: `${repository}/pulls/${view.pullNumber}`,
      pull_request_review_id: 3_000_000_000 + view.id,
      diff_hunk: view.diff_hunk,
      path: view.path,
      commit_id: sha,
      original_commit_id: sha,
      line: view.line,
      original_line: view.line,
      start_line: view.start_line,
      original_start_line: view.start_line,
      side: view.side,
      start_side: view.start_line === null ? null : view.side,
      subject_type: view.line === null ? 'file' : 'line',
      ...(view.in_reply_to_id !== undefined ? { in_reply_to_id: view.in_reply_to_id } : {})
    }
  }
}
