import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Author, CommentSummary } from '../github/api.js'
import type { CiFixState, RunReport, ShownImages } from '../model.js'

/**
 * What a marker's signature binds it to: the thread, keyed with the Codegen API token. Anyone can
 * write a marker (another app, a workflow echoing user text as a bot); only a holder of the token can
 * sign one, and a signed marker copied to another comment, thread or repository does not verify.
 */
export interface MarkerKey {
  secret: string
  repository: string
  issueNumber: number
}

/** Hex characters of the HMAC-SHA256 kept in the marker (128 bits). */
const SIGNATURE_HEX_CHARS = 32

/** Issue comments and review comments have ids of their own: a signature says which it is for. */
export type CommentKind = 'issue' | 'review'

/**
 * The signature of `runId` (and its plan's state, when it has one) in the comment `commentId`:
 * reposting it in another comment, or changing the plan's digest, voids it.
 */
export function markerSignature(
  key: MarkerKey,
  commentId: number,
  runId: number,
  kind: CommentKind = 'issue',
  plan?: string
): string {
  const comment = kind === 'review' ? `review-${commentId}` : String(commentId)
  return createHmac('sha256', key.secret)
    .update(`${key.repository}#${key.issueNumber}#${comment}#${runId}${plan ? `#plan=${plan}` : ''}`)
    .digest('hex')
    .slice(0, SIGNATURE_HEX_CHARS)
}

export function verifyMarker(
  key: MarkerKey,
  commentId: number,
  marker: Marker,
  kind: CommentKind = 'issue'
): boolean {
  if (!key.secret || marker.sig === undefined) return false
  const expected = Buffer.from(markerSignature(key, commentId, marker.runId, kind, marker.plan))
  const given = Buffer.from(marker.sig)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export interface Marker {
  runId: number
  /** A plan's run: `working` while a plan is written, else the shown plan's digest (planDigest). */
  plan?: string
  sig?: string
}

/** The marker a tracking comment holds in its first line (`markerLine`), and only there. */
export function readMarker(body: string): Marker | undefined {
  const first = body.split('\n', 1)[0] ?? ''
  const match =
    /^<!-- codegen-agent-run-action run-id=(\d+)(?: plan=(working|[0-9a-f]{16}))?(?: sig=([0-9a-f]+))? -->$/.exec(
      first.trim()
    )
  if (!match) return undefined
  return {
    runId: Number(match[1]),
    ...(match[2] ? { plan: match[2] } : {}),
    ...(match[3] ? { sig: match[3] } : {})
  }
}

export interface FoundTracking {
  /**
   * The tracking comment to follow, if any (`reviewThread` when it is a reply on the code), its
   * marker's plan (`working`, or the shown plan's digest), when it was posted and last edited.
   */
  found?: {
    id: number
    runId: number
    reviewThread?: number
    plan?: string
    createdAt?: string
    updatedAt?: string
  }
  /** Newer markers on trusted authors' comments whose signature does not verify: not followed. */
  ignored: Array<{ id: number; runId: number }>
}

/**
 * A pull request's issue comments and review comments as one list, oldest first (by creation
 * time, then id: GitHub's timestamps are to the second).
 */
export function byCreation(comments: CommentSummary[]): CommentSummary[] {
  return [...comments].sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.id - b.id)
}

/**
 * The latest tracking comment of the thread whose marker is on a trusted author's comment (the
 * action's own identity, or a bot) and verifies: a commenter or a foreign bot cannot point the
 * action at another run by writing a marker.
 */
export function findTrackingComment(
  comments: CommentSummary[],
  trusted: (author: Author) => boolean,
  verify: (marker: Marker, commentId: number, comment: CommentSummary) => boolean
): FoundTracking {
  const ignored: FoundTracking['ignored'] = []
  for (const comment of [...comments].reverse()) {
    const marker = readMarker(comment.body)
    if (marker === undefined || !trusted(comment.author)) continue
    if (verify(marker, comment.id, comment))
      return {
        found: {
          id: comment.id,
          runId: marker.runId,
          ...(comment.reviewThread !== undefined ? { reviewThread: comment.reviewThread } : {}),
          ...(marker.plan !== undefined ? { plan: marker.plan } : {}),
          ...(comment.createdAt !== undefined ? { createdAt: comment.createdAt } : {}),
          ...(comment.updatedAt !== undefined ? { updatedAt: comment.updatedAt } : {})
        },
        ignored
      }
    ignored.push({ id: comment.id, runId: marker.runId })
  }
  return { ignored }
}

/** A review thread: the tracking comment is a reply to its first comment, next to the code. */
export interface ReviewThread {
  pullNumber: number
  threadId: number
}

/**
 * A thread's tracking comment as this room decides it: where it goes, the earlier one it takes over,
 * and what it says first. report/tracking-comment.ts writes it, opened by the `openTracking` that
 * decide.ts hands in: this room writes nothing to GitHub itself.
 */
export interface TrackingSetup {
  /** An issue's (or pull request's) number, or a review thread on a pull request's code. */
  place: number | ReviewThread
  /** The thread's earlier tracking comment to take over; none posts a new one. */
  commentId?: number
  state: {
    /** Who asked on the thread; none for a CI fix, which the failed workflow run asked for. */
    requestedBy?: Author
    ciFix?: CiFixState
    instruction: string
    workflowRunUrl: string
    repositoryUrl?: string
    /** The marker's signature of a run id in a comment (see MarkerKey). */
    sign: (commentId: number, runId: number, plan?: string) => string
    entriesSeen: number
    resumed: boolean
    triggerPhrase: string
    /** A plan's run (a plan or its revision): its marker says plan=working until the plan is shown. */
    planning?: boolean
    /** thread-images: what the comment tells of them from the run's start. */
    threadImages?: ShownImages
  }
}

/** A tracking comment once opened, as far as this room uses it: it writes an ending. */
export interface OpenedTracking {
  finish(report: RunReport): Promise<void>
}
