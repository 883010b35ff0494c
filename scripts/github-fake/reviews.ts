import { requestBodyProblems } from '../github-openapi.js'
import { createHash } from 'node:crypto'
import { gitHubError, json, nodeId, notFound, positiveInteger, timestamp, type Answer } from './answers.js'
import type { Comments } from './comments.js'
import type { Repository } from './repository.js'
import { pageOf, type Call } from './routes.js'
import type { FakePullRequestFile, FakeReview, FakeUser, InvalidCheckRunRequest, NewReview } from './types.js'

/**
 * A pull request's files (GET /pulls/{n}/files, with their patches, a page at a time) and its
 * reviews (GET and POST /pulls/{n}/reviews), as GitHub answers them: a review's body held to
 * GitHub's REST description, then to GitHub's own rules: each comment on a line its diff shows
 * (422 "Pull request review thread line must be part of the diff" otherwise), a range within one
 * hunk. A review's comments become review comments of the pull request. The diff is read here on
 * its own, not with the action's reader: the two must agree.
 */

export const REVIEWS = '/repos/{owner}/{repo}/pulls/{pull_number}/reviews'
export const PULL_FILES = '/repos/{owner}/{repo}/pulls/{pull_number}/files'

const FIRST_REVIEW_ID = 1_700_000_001

/** One hunk of a patch: the lines of each side it shows, and its text (a comment's diff_hunk). */
interface Hunk {
  left: [number, number] | undefined
  right: [number, number] | undefined
  text: string
}

/** The hunks of a unified diff, and how many lines follow its first header (a comment's `position`). */
function hunksOf(patch: string): { hunks: Hunk[]; positions: number } {
  const hunks: Hunk[] = []
  const lines = patch.split('\n')
  let current: { left: number; right: number; hunk: Hunk } | undefined
  const extend = (range: [number, number] | undefined, line: number): [number, number] =>
    range ? [range[0], line] : [line, line]
  for (const line of lines) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line)
    if (header) {
      current = {
        left: Number(header[1]),
        right: Number(header[2]),
        hunk: { left: undefined, right: undefined, text: line }
      }
      hunks.push(current.hunk)
      continue
    }
    if (!current) continue
    current.hunk.text += `\n${line}`
    if (line.startsWith('+')) current.hunk.right = extend(current.hunk.right, current.right++)
    else if (line.startsWith('-')) current.hunk.left = extend(current.hunk.left, current.left++)
    else if (line.startsWith(' ')) {
      current.hunk.left = extend(current.hunk.left, current.left++)
      current.hunk.right = extend(current.hunk.right, current.right++)
    }
  }
  const firstHeader = lines.findIndex(line => line.startsWith('@@'))
  return { hunks, positions: firstHeader < 0 ? 0 : lines.length - firstHeader - 1 }
}

interface StoredReview {
  id: number
  pullNumber: number
  user: FakeUser
  body: string
  state: FakeReview['state']
  commitId: string
  submittedAt: number | null
  comments: number[]
}

const STATES: Record<string, FakeReview['state']> = {
  APPROVE: 'APPROVED',
  REQUEST_CHANGES: 'CHANGES_REQUESTED',
  COMMENT: 'COMMENTED'
}

/** Ruby's to_sentence, as GitHub joins a record's errors: "a", "a and b", "a, b, and c". */
function sentence(parts: string[]): string {
  if (parts.length < 3) return parts.join(' and ')
  return `${parts.slice(0, -1).join(', ')}, and ${parts.at(-1)}`
}

type ReviewCommentRequest = {
  path: string
  body: string
  position?: number
  line?: number
  side?: string
  start_line?: number
  start_side?: string
}

export class Reviews {
  /** Every review request whose body GitHub's REST description refused, in order. */
  readonly invalid: InvalidCheckRunRequest[] = []
  private readonly reviews = new Map<number, StoredReview>()
  private nextId = FIRST_REVIEW_ID

  constructor(
    private readonly repository: Repository,
    private readonly comments: Comments,
    /** The token's `pull-requests` permission. */
    private readonly permission: () => 'write' | 'read' | 'none'
  ) {}

  /** The 403 a token without the permission gets, as the Checks API's (a header names what was wanted). */
  private refused(call: Call): Answer | undefined {
    const write = call.route.method !== 'GET'
    const permission = this.permission()
    if (permission === 'write' || (!write && permission === 'read')) return undefined
    return {
      ...json(
        {
          message: 'Resource not accessible by integration',
          documentation_url: call.route.documentationUrl,
          status: '403'
        },
        403
      ),
      headers: { 'x-accepted-github-permissions': `pull_requests=${write ? 'write' : 'read'}` }
    }
  }

  /** The route's answer: the permission first, then the endpoint. */
  handle(call: Call): Answer {
    const refused = this.refused(call)
    if (refused) return refused
    switch (call.route.name) {
      case 'pull-files':
        return this.listFiles(call)
      case 'list-reviews':
        return this.listReviews(call)
      default:
        return this.createReview(call)
    }
  }

  /** A review someone submitted (now), as if through the web interface. */
  addReview(pullNumber: number, review: NewReview): FakeReview {
    const stored: StoredReview = {
      id: this.nextId++,
      pullNumber,
      user: { ...review.user },
      body: review.body,
      state: review.state ?? 'COMMENTED',
      commitId: this.repository.headShaOr(pullNumber),
      submittedAt: this.repository.now(),
      comments: []
    }
    this.repository.knownUser(stored.user)
    this.reviews.set(stored.id, stored)
    return this.list(pullNumber).find(one => one.id === stored.id) as FakeReview
  }

  /** A review as GET answers it, or undefined when the pull request has no such review. */
  wireById(pullNumber: number, id: number, api: string): Record<string, unknown> | undefined {
    const review = this.reviews.get(id)
    return review && review.pullNumber === pullNumber ? this.wireReview(review, api) : undefined
  }

  /** The reviews of a pull request, in creation order. */
  list(pullNumber: number): FakeReview[] {
    return [...this.reviews.values()]
      .filter(review => review.pullNumber === pullNumber)
      .map(review => ({
        id: review.id,
        pullNumber: review.pullNumber,
        user: { ...review.user },
        body: review.body,
        state: review.state,
        commit_id: review.commitId,
        submitted_at: review.submittedAt === null ? null : timestamp(review.submittedAt),
        comments: [...review.comments]
      }))
  }

  listFiles(call: Call): Answer {
    const pullNumber = positiveInteger(call.params.pull_number)
    const files = pullNumber === undefined ? undefined : this.repository.pullRequestFiles(pullNumber)
    if (!files || pullNumber === undefined) return notFound(call.route.documentationUrl)
    const sha = this.repository.headSha(pullNumber)
    return pageOf(call, files, file => this.wireFile(file, sha, call.api))
  }

  listReviews(call: Call): Answer {
    const pullNumber = positiveInteger(call.params.pull_number)
    if (pullNumber === undefined || !this.repository.hasPullRequest(pullNumber))
      return notFound(call.route.documentationUrl)
    const all = [...this.reviews.values()].filter(review => review.pullNumber === pullNumber)
    return pageOf(call, all, review => this.wireReview(review, call.api))
  }

  createReview(call: Call): Answer {
    const pullNumber = positiveInteger(call.params.pull_number)
    if (pullNumber === undefined || !this.repository.hasPullRequest(pullNumber))
      return notFound(call.route.documentationUrl)
    const problems = requestBodyProblems('POST', REVIEWS, call.body ?? {})
    if (problems.length > 0) {
      this.invalid.push({ method: 'POST', path: call.path, body: call.body, problems })
      return gitHubError(422, `Invalid request.\n\n${problems.join('\n')}`, call.route.documentationUrl)
    }
    const body = (call.body ?? {}) as {
      commit_id?: string
      body?: string
      event?: string
      comments?: ReviewCommentRequest[]
    }
    // GitHub's validation-error-simple: the record's errors as one sentence.
    const unprocessable = (errors: string[]): Answer =>
      json(
        {
          message: 'Unprocessable Entity',
          errors,
          documentation_url: call.route.documentationUrl,
          status: '422'
        },
        422
      )
    const commitId = (body.commit_id ?? this.repository.headSha(pullNumber)).toLowerCase()
    if (!/^[0-9a-f]{40}$/.test(commitId) || !this.repository.hasCommit(commitId))
      return unprocessable(['Commit could not be resolved'])
    if ((body.event === 'COMMENT' || body.event === 'REQUEST_CHANGES') && !body.body?.trim())
      return unprocessable([`Body is required when using ${body.event}`])
    const files = this.repository.pullRequestFiles(pullNumber) ?? []
    const comments = body.comments ?? []
    for (const comment of comments) {
      const errors = this.commentErrors(comment, files)
      if (errors.length > 0) return unprocessable([sentence(errors)])
    }
    const review: StoredReview = {
      id: this.nextId++,
      pullNumber,
      user: { ...this.repository.actor },
      body: body.body ?? '',
      state: STATES[body.event ?? ''] ?? 'PENDING',
      commitId,
      submittedAt: body.event ? call.now : null,
      comments: []
    }
    for (const comment of comments) {
      const hunk = this.hunkOf(comment, files)
      const stored = this.comments.addReviewComment(pullNumber, {
        body: comment.body,
        user: this.repository.actor,
        path: comment.path,
        line: comment.line ?? null,
        startLine: comment.start_line ?? null,
        side: comment.side === 'LEFT' ? 'LEFT' : 'RIGHT',
        diffHunk: hunk?.text ?? ''
      })
      review.comments.push(stored.id)
    }
    this.reviews.set(review.id, review)
    return json(this.wireReview(review, call.api))
  }

  /** GitHub's rules for one comment of a review: its lines shown by the diff, a range within one hunk. */
  private commentErrors(comment: ReviewCommentRequest, files: FakePullRequestFile[]): string[] {
    const file = files.find(one => one.filename === comment.path)
    const { hunks, positions } = hunksOf(file?.patch ?? '')
    const notInDiff = [
      'Pull request review thread line must be part of the diff',
      "Pull request review thread diff hunk can't be blank"
    ]
    if (comment.position !== undefined)
      return comment.position >= 1 && comment.position <= positions
        ? []
        : [
            'Pull request review thread position is invalid',
            "Pull request review thread diff hunk can't be blank"
          ]
    if (comment.line === undefined) return notInDiff
    const side = comment.side === 'LEFT' ? 'left' : 'right'
    const inHunk = (hunk: Hunk, line: number, onSide: 'left' | 'right'): boolean => {
      const range = hunk[onSide]
      return range !== undefined && range[0] <= line && line <= range[1]
    }
    const hunk = hunks.find(one => inHunk(one, comment.line as number, side))
    if (!hunk) return notInDiff
    if (comment.start_line === undefined) return []
    if (comment.start_line >= comment.line)
      return ['Pull request review thread start line must precede the end line.']
    const startSide = comment.start_side === 'LEFT' ? 'left' : comment.start_side === 'RIGHT' ? 'right' : side
    return inHunk(hunk, comment.start_line, startSide)
      ? []
      : ['Pull request review thread start line must be part of the same hunk as the line.']
  }

  private hunkOf(comment: ReviewCommentRequest, files: FakePullRequestFile[]): Hunk | undefined {
    const { hunks } = hunksOf(files.find(one => one.filename === comment.path)?.patch ?? '')
    const side = comment.side === 'LEFT' ? 'left' : 'right'
    return hunks.find(hunk => {
      const range = hunk[side]
      return (
        range !== undefined &&
        comment.line !== undefined &&
        range[0] <= comment.line &&
        comment.line <= range[1]
      )
    })
  }

  /** A file as GET /pulls/{n}/files lists it (GitHub's diff-entry). */
  private wireFile(file: FakePullRequestFile, sha: string, api: string): Record<string, unknown> {
    const lines = (file.patch ?? '').split('\n')
    const additions = lines.filter(line => line.startsWith('+')).length
    const deletions = lines.filter(line => line.startsWith('-')).length
    const web = `${this.repository.webBase()}/${this.repository.fullName}`
    const path = file.filename.split('/').map(encodeURIComponent).join('/')
    return {
      sha: createHash('sha1')
        .update(`${file.filename}\n${file.patch ?? ''}`)
        .digest('hex'),
      filename: file.filename,
      status: file.status ?? 'modified',
      additions,
      deletions,
      changes: additions + deletions,
      blob_url: `${web}/blob/${sha}/${path}`,
      raw_url: `${web}/raw/${sha}/${path}`,
      contents_url: `${api}/repos/${this.repository.fullName}/contents/${path}?ref=${sha}`,
      ...(file.patch !== undefined ? { patch: file.patch } : {})
    }
  }

  /** A review as GitHub answers it (the pull-request-review schema). */
  private wireReview(review: StoredReview, api: string): Record<string, unknown> {
    const html = `${this.repository.webBase()}/${this.repository.fullName}/pull/${review.pullNumber}#pullrequestreview-${review.id}`
    const pull = `${api}/repos/${this.repository.fullName}/pulls/${review.pullNumber}`
    return {
      id: review.id,
      node_id: nodeId('PullRequestReview', review.id),
      user: this.repository.simpleUser(review.user, api),
      body: review.body,
      state: review.state,
      html_url: html,
      pull_request_url: pull,
      _links: { html: { href: html }, pull_request: { href: pull } },
      ...(review.submittedAt !== null ? { submitted_at: timestamp(review.submittedAt) } : {}),
      commit_id: review.commitId,
      author_association: this.repository.association(review.user.login)
    }
  }
}
