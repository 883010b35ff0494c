import { createHmac, timingSafeEqual } from 'node:crypto'
import type { CarriedFrom, RunReport } from '../model.js'
import type { LogEntry, PullRequest } from '../api/types.js'
import {
  count,
  entryGist,
  entryTime,
  entryTool,
  entryType,
  formatDuration,
  oneLine
} from '../report/entry-text.js'
import type { AnswerReport } from '../answer/answer.js'
import { answerAnnotation, repairAskedText, verdictMarkdown } from '../report/answer-text.js'
import { endingHeadline, stopMarkdown } from '../report/stop-text.js'
import {
  codeSpan,
  escapeHtml,
  link,
  markdownInline,
  plainInline,
  pullRequestLink,
  quoteBlock
} from '../report/markdown.js'
import { usageMarkdown } from '../report/usage.js'
import { trackingFindingsLine } from '../report/findings-text.js'
import { renderWithin, shareRoom, type Measure } from '../report/fit-text.js'
import { OWN_COMMENT_MARK, type Author } from './trigger.js'

import { COMMENT_MAX_CHARS } from '../github-shapes.js'

export { COMMENT_MAX_CHARS }

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

/** The signature of `runId` in the comment `commentId`: reposting it in another comment voids it. */
export function markerSignature(
  key: MarkerKey,
  commentId: number,
  runId: number,
  kind: CommentKind = 'issue'
): string {
  const comment = kind === 'review' ? `review-${commentId}` : String(commentId)
  return createHmac('sha256', key.secret)
    .update(`${key.repository}#${key.issueNumber}#${comment}#${runId}`)
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
  const expected = Buffer.from(markerSignature(key, commentId, marker.runId, kind))
  const given = Buffer.from(marker.sig)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export interface Marker {
  runId: number
  sig?: string
}

/** The hidden first line of a tracking comment: the run it tracks and the run's signature. */
export function markerLine(runId: number | undefined, sig?: string): string {
  if (runId === undefined) return `${OWN_COMMENT_MARK} -->`
  return `${OWN_COMMENT_MARK} run-id=${runId}${sig ? ` sig=${sig}` : ''} -->`
}

/** The marker a tracking comment holds in its first line, and only there. */
export function readMarker(body: string): Marker | undefined {
  const first = body.split('\n', 1)[0] ?? ''
  const match = /^<!-- codegen-agent-run-action run-id=(\d+)(?: sig=([0-9a-f]+))? -->$/.exec(first.trim())
  if (!match) return undefined
  return { runId: Number(match[1]), ...(match[2] ? { sig: match[2] } : {}) }
}

export interface CommentSummary {
  id: number
  body: string
  author: Author
  /** ISO 8601, as GitHub gives it: orders issue comments and review comments together. */
  createdAt?: string
  /** A comment on the pull request's code: the first comment of its review thread. */
  reviewThread?: number
}

export interface FoundTracking {
  /** The tracking comment to follow, if any (`reviewThread` when it is a reply on the code). */
  found?: { id: number; runId: number; reviewThread?: number }
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
          ...(comment.reviewThread !== undefined ? { reviewThread: comment.reviewThread } : {})
        },
        ignored
      }
    ignored.push({ id: comment.id, runId: marker.runId })
  }
  return { ignored }
}

/** A CI fix's tracking: the failed workflow run it fixes, and which attempt for its commit it is. */
export interface CiFixState {
  /** The workflow's name ('' when the event gave none). */
  workflow: string
  runNumber: number
  /** The failed workflow run's page ('' when unknown). */
  url: string
  branch: string
  sha: string
  maxAttempts: number
  /** Known once the run is admitted, max-fix-attempts counted. */
  attempt?: number
}

export interface TrackingState {
  /** Who asked on the thread; none for a CI fix, which the failed workflow run asked for. */
  requestedBy?: Author
  /** A CI fix: what it fixes, said below the headline. */
  ciFix?: CiFixState
  instruction: string
  workflowRunUrl: string
  /** The marker's signature of a run id in a comment (see MarkerKey). */
  sign: (commentId: number, runId: number) => string
  /** The comment being written, once it exists: a marker is signed for its comment. */
  commentId?: number
  runId?: number
  webUrl?: string | null
  status?: string | null
  entriesSeen: number
  /** The last entry seen, shown as the run's latest step while it works. */
  latestEntry?: LogEntry
  resumed: boolean
  /** The thread's earlier run, when the service refused to resume it and this run carries the thread on. */
  carriedFrom?: CarriedFrom
  /** The repair of the run's answer last asked for, while the run works on it. */
  repair?: { reason: string; attempt: number; retries: number }
  /** Set once the run ended (or could not be followed). */
  report?: RunReport
  /** How a run of this thread is resumed, for a paused run's comment. */
  triggerPhrase: string
  /** The repository's page (`https://github.com/owner/repo`): the check run's is under it. */
  repositoryUrl?: string
  updatedAt: number
}

const HEADLINES: Record<RunReport['outcome'], string> = {
  success: '✅ **succeeded**',
  failure: '❌ **failed**',
  timeout: '⏱️ was still working when the workflow stopped waiting',
  paused: '⏸️ **paused**, waiting for a follow-up',
  rejected: '👎 **rejected**: its verdict is fail',
  'invalid-output': '❔ ended **without a valid answer**',
  started: '🚀 started',
  skipped: '⏭️ skipped',
  limited: '🚦 was **not started**: a daily run limit is reached',
  cancelled: '🛑 was left running: the workflow job was cancelled',
  error: '⚠️ could not be followed'
}

/** The comment's lead on the answer: the verdict and its reason, or why no answer was valid; '' for a plain valid answer. */
function answerLead(answer: AnswerReport): string {
  const verdict = verdictMarkdown(answer)
  const repaired =
    answer.repairs.length > 0 ? ` (after ${count(answer.repairs.length, 'repair', 'repairs')})` : ''
  if (verdict) return `Verdict: ${verdict}${repaired}`
  if (answer.answer.valid) return repaired ? `The answer came${repaired}.` : ''
  return plainInline(answerAnnotation(answer))
}

const QUESTION = 'The agent’s question'

/** The question's label, and how to answer it: on this thread, which asked for the run. */
function questionHead(triggerPhrase: string): string {
  return `**⏸️ ${QUESTION}** (reply \`${triggerPhrase} <answer>\` to answer it and continue this run):`
}

/** Caps of the one-line fields the service supplies, in characters before escaping. */
const CAPS = { status: 100, step: 300, title: 200, url: 500, pullRequestLine: 3_000 }

const TRIMMED_NOTE = '… trimmed to fit GitHub’s comment size limit'

/** A link to a URL the service gave, or just the label when the URL is too long to be a real one. */
function serviceLink(text: string, url: string | null | undefined): string {
  return link(oneLine(text, CAPS.title), typeof url === 'string' && url.length <= CAPS.url ? url : undefined)
}

const code = (text: string, max: number): string => codeSpan(oneLine(text, max))

/** The line that says this run carries the thread on from one the service would not resume. */
function carriedLine(from: CarriedFrom): string {
  const earlier = serviceLink(`#${from.runId}`, from.webUrl)
  return `↪️ Run ${earlier} could not be resumed (${markdownInline(oneLine(from.reason, CAPS.step))}): this new run carries the thread on, and the next follow-up resumes it.`
}

/** "🔧 CI fix of [CI #163](…), which failed on `feature/x`: attempt 2 of 3 for `3484a3f`." */
function ciFixLine(fix: CiFixState): string {
  const name = `${fix.workflow ? `${oneLine(fix.workflow, CAPS.title)} ` : ''}#${fix.runNumber}`
  const failed = `🔧 CI fix of ${link(name, fix.url || undefined)}, which failed on ${code(fix.branch, CAPS.title)}`
  const commit = codeSpan(fix.sha.slice(0, 7))
  return fix.attempt === undefined
    ? `${failed} at ${commit}.`
    : `${failed}: attempt ${fix.attempt} of ${fix.maxAttempts} for ${commit}.`
}

/** "12:04:05 **ACTION** run_command · Running the test suite…", as Markdown. */
function latestStep(entry: LogEntry): string {
  const tool = entryTool(entry)
  const gist = entryGist(entry, CAPS.step)
  return `\`${entryTime(entry)}\` **${markdownInline(entryType(entry))}**${tool ? ` ${markdownInline(tool)}` : ''}${
    tool && gist ? ' ·' : ''
  }${gist ? ` ${markdownInline(gist)}` : ''}`
}

/**
 * Text as a quoted block of at most `max` characters once rendered: escaping (`&` to `&amp;`, a `> `
 * per line, our fences) can grow it several times, so the source is cut until its rendering fits,
 * and the cut is made in the source, never inside a reference or a fence of ours.
 */
export function quoteWithin(text: string, max: number): string {
  // Cut first, then render: only what could fit is rendered (the result may be 16 MiB). Rendering
  // never shortens a text by half but for CRLF and blank-padded lines, which then get the note.
  const quoted = text.length <= 2 * max ? quoteBlock(text) : ''
  if (quoted && quoted.length <= max) return quoted
  const room = Math.max(0, max - TRIMMED_NOTE.length - 4)
  const head = (keep: number): string => quoteBlock(text.slice(0, keep).replace(/[\ud800-\udbff]$/, ''))
  const cut = renderWithin(Math.min(text.length, room), room, head, chars) ?? head(0)
  return `${cut}\n>\n> ${TRIMMED_NOTE}`
}

const chars: Measure = text => text.length

function pullRequestLine(pullRequests: PullRequest[]): string {
  let line = '**Pull requests:** '
  for (const [index, pr] of pullRequests.entries()) {
    const entry = `${index > 0 ? ', ' : ''}${pullRequestLink(pr, CAPS.title)}`
    if (line.length + entry.length > CAPS.pullRequestLine) {
      return `${line} and ${pullRequests.length - index} more`
    }
    line += entry
  }
  return line
}

/**
 * The tracking comment's Markdown, under GitHub's size limit whatever the run's texts hold: every
 * one-line field the service supplies is capped, and the long texts share the room left, measured
 * once escaped.
 */
export function renderTrackingComment(state: TrackingState): string {
  const report = state.report
  // A paused run's result is the agent's question to the thread.
  const question = report?.outcome === 'paused' ? (report.run?.result ?? '') : ''
  /** The question goes among the head's lines here: it is service text, quoted within its share. */
  let questionAt = Number.POSITIVE_INFINITY
  const runId = report?.run?.id ?? state.runId
  const webUrl = report?.run?.web_url ?? state.webUrl
  const run =
    runId === undefined ? 'Codegen agent run' : `Codegen agent run ${serviceLink(`#${runId}`, webUrl)}`
  // Until the comment exists its marker holds no run: the run id is only written signed.
  const commentId = state.commentId
  const lines: string[] = [
    commentId === undefined || runId === undefined
      ? markerLine(undefined)
      : markerLine(runId, state.sign(commentId, runId))
  ]
  if (!report) {
    const status = state.status?.trim() ? `status ${code(state.status, CAPS.status)}` : 'starting'
    lines.push(`### 🤖 ${run} is working${state.resumed ? ' on the follow-up' : ''}`, '')
    if (state.ciFix) lines.push(ciFixLine(state.ciFix), '')
    lines.push(`${status} · ${count(state.entriesSeen, 'log entry', 'log entries')} so far`)
    if (state.carriedFrom) lines.push('', carriedLine(state.carriedFrom))
    if (state.repair)
      lines.push(
        '',
        plainInline(repairAskedText(state.repair.reason, state.repair.attempt, state.repair.retries))
      )
    if (state.latestEntry) lines.push('', `Latest step: ${latestStep(state.latestEntry)}`)
  } else {
    lines.push(`### ${run} ${endingHeadline(HEADLINES, report)}`, '')
    if (state.ciFix) lines.push(ciFixLine(state.ciFix), '')
    if (report.stop) lines.push(stopMarkdown(report.stop), '')
    // Why no run was started (a daily limit): our own words, naming the repository and the author.
    if (report.reason) lines.push(plainInline(report.reason), '')
    const carriedFrom = report.carriedFrom ?? state.carriedFrom
    if (carriedFrom) lines.push(carriedLine(carriedFrom), '')
    const lead = report.answer ? answerLead(report.answer) : ''
    if (lead) lines.push(lead, '')
    const answer = report.answer?.answer
    if (answer?.valid && answer.findings) {
      const check =
        state.repositoryUrl && report.checkRunId !== undefined
          ? `${state.repositoryUrl}/runs/${report.checkRunId}`
          : undefined
      lines.push(trackingFindingsLine(answer.findings, check), '')
    }
    // A paused run's question goes first (below the headline), then how to answer it, then the facts.
    if (question) questionAt = lines.length
    const facts = [
      report.status.trim() ? `status ${code(report.status, CAPS.status)}` : '',
      `${formatDuration(report.endedAt - report.startedAt)}`,
      count(report.entriesSeen, 'log entry', 'log entries')
    ].filter(Boolean)
    lines.push(facts.join(' · '))
    if (report.usage) lines.push('', usageMarkdown(report.usage))
    const pullRequests = report.run?.github_pull_requests ?? []
    if (pullRequests.length > 0) lines.push('', pullRequestLine(pullRequests))
    if (report.run && !question) {
      lines.push(
        '',
        `Reply \`${state.triggerPhrase} <follow-up>\` to continue this run, or \`${state.triggerPhrase} new <instruction>\` to start another.`
      )
    }
  }
  const askedBy = state.requestedBy
    ? `Asked by @${escapeHtml(oneLine(state.requestedBy.login, 100))}`
    : state.ciFix
      ? 'Asked by the failed CI run'
      : 'Codegen'
  const footer = [
    '',
    `<sub>${askedBy}${
      state.workflowRunUrl ? ` · ${link('workflow run', state.workflowRunUrl)}` : ''
    } · updated ${new Date(state.updatedAt).toISOString().slice(11, 19)} UTC</sub>`
  ].join('\n')
  const asked = question ? questionHead(state.triggerPhrase) : ''
  const above = lines.slice(0, questionAt).join('\n')
  const below = questionAt < lines.length ? `\n${lines.slice(questionAt).join('\n')}` : ''

  const texts: Array<[string, string]> = []
  if (question) texts.push([QUESTION, question])
  if (report?.error) texts.push(['Error', report.error])
  if (report?.run?.result && !question) texts.push(['Result', report.run.result])
  if (report?.run?.summary) texts.push(['Summary', report.run.summary])
  if (state.instruction) texts.push(['Request', state.instruction])
  const block = (title: string, quoted: string): string =>
    title === QUESTION
      ? `\n${asked}\n\n${quoted}\n`
      : `\n<details${title === 'Request' ? '' : ' open'}><summary>${title}</summary>\n\n${quoted}\n\n</details>`
  const head = above + below
  // The room left is shared, shortest text first, so a short text leaves its unused share to the others.
  const room = COMMENT_MAX_CHARS - head.length - footer.length - 2
  const sharers = texts.map(([title, text]) => ({ title, text, overhead: block(title, '').length + 1 }))
  const quoted = shareRoom(
    sharers,
    room,
    (sharer, share) => quoteWithin(sharer.text, Math.max(0, share)),
    chars
  )
  const blocks = new Map(sharers.map(sharer => [sharer.title, block(sharer.title, quoted.get(sharer) ?? '')]))
  const shown = texts.filter(([title]) => title !== QUESTION).map(([title]) => blocks.get(title))
  const body = [above + (blocks.get(QUESTION) ?? '') + below, ...shown, footer].join('\n')
  // The caps above keep the head small; should it ever not be, the texts go rather than the comment.
  return body.length <= COMMENT_MAX_CHARS
    ? body
    : [head.slice(0, COMMENT_MAX_CHARS - 200), '', TRIMMED_NOTE, footer].join('\n')
}
