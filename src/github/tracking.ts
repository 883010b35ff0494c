import { createHmac, timingSafeEqual } from 'node:crypto'
import type { RunReport } from '../run/agent-run.js'
import { formatDuration, trimmed } from '../report/entry-text.js'
import { escapeHtml, link, quoteBlock } from '../report/markdown.js'
import { OWN_COMMENT_MARK, type Author } from './trigger.js'

/** GitHub refuses comments over 65,536 characters; stay clearly under it. */
export const COMMENT_LIMIT_CHARS = 60_000

/**
 * What a marker's signature binds it to: the thread, keyed with the Codegen API token. Anyone can
 * write a marker (another app, a workflow echoing user text as a bot); only a holder of the token can
 * sign one, and a signed marker copied to another thread or repository does not verify.
 */
export interface MarkerKey {
  secret: string
  repository: string
  issueNumber: number
}

/** Hex characters of the HMAC-SHA256 kept in the marker (128 bits). */
const SIGNATURE_HEX_CHARS = 32

export function markerSignature(key: MarkerKey, runId: number): string {
  return createHmac('sha256', key.secret)
    .update(`${key.repository}#${key.issueNumber}#${runId}`)
    .digest('hex')
    .slice(0, SIGNATURE_HEX_CHARS)
}

export function verifyMarker(key: MarkerKey, marker: Marker): boolean {
  if (!key.secret || marker.sig === undefined) return false
  const expected = Buffer.from(markerSignature(key, marker.runId))
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
}

export interface FoundTracking {
  /** The tracking comment to follow, if any. */
  found?: { id: number; runId: number }
  /** Newer markers on trusted authors' comments whose signature does not verify: not followed. */
  ignored: Array<{ id: number; runId: number }>
}

/**
 * The latest tracking comment of the thread whose marker is on a trusted author's comment (the
 * action's own identity, or a bot) and verifies: a commenter or a foreign bot cannot point the
 * action at another run by writing a marker.
 */
export function findTrackingComment(
  comments: CommentSummary[],
  trusted: (author: Author) => boolean,
  verify: (marker: Marker) => boolean
): FoundTracking {
  const ignored: FoundTracking['ignored'] = []
  for (const comment of [...comments].reverse()) {
    const marker = readMarker(comment.body)
    if (marker === undefined || !trusted(comment.author)) continue
    if (verify(marker)) return { found: { id: comment.id, runId: marker.runId }, ignored }
    ignored.push({ id: comment.id, runId: marker.runId })
  }
  return { ignored }
}

export interface TrackingState {
  requestedBy: Author
  instruction: string
  workflowRunUrl: string
  /** The marker's signature of a run id (see MarkerKey). */
  sign: (runId: number) => string
  runId?: number
  webUrl?: string | null
  status?: string | null
  entriesSeen: number
  latestStep?: string
  resumed: boolean
  /** Set once the run ended (or could not be followed). */
  report?: RunReport
  /** How a run of this thread is resumed, for a paused run's comment. */
  triggerPhrase: string
  updatedAt: number
}

const HEADLINES: Record<RunReport['outcome'], string> = {
  success: '✅ **succeeded**',
  failure: '❌ **failed**',
  timeout: '⏱️ was still working when the workflow stopped waiting',
  paused: '⏸️ **paused**, waiting for a follow-up',
  started: '🚀 started',
  skipped: '⏭️ skipped',
  cancelled: '🛑 was left running: the workflow job was cancelled',
  error: '⚠️ could not be followed'
}

/** The tracking comment's Markdown, under GitHub's size limit whatever the run's texts hold. */
export function renderTrackingComment(state: TrackingState): string {
  const report = state.report
  const runId = report?.run?.id ?? state.runId
  const webUrl = report?.run?.web_url ?? state.webUrl
  const run = runId === undefined ? 'Codegen agent run' : `Codegen agent run ${link(`#${runId}`, webUrl)}`
  const lines: string[] = [markerLine(runId, runId === undefined ? undefined : state.sign(runId))]
  if (!report) {
    const status = state.status ? `status \`${escapeHtml(state.status.replace(/`/g, "'"))}\`` : 'starting'
    lines.push(
      `### 🤖 ${run} is working${state.resumed ? ' on the follow-up' : ''}`,
      '',
      `${status} · ${state.entriesSeen} log entries so far`
    )
    if (state.latestStep) lines.push('', `Latest step: ${escapeHtml(state.latestStep)}`)
  } else {
    lines.push(`### ${run} ${HEADLINES[report.outcome]}`, '')
    const facts = [
      report.status ? `status \`${escapeHtml(report.status.replace(/`/g, "'"))}\`` : '',
      `${formatDuration(report.endedAt - report.startedAt)}`,
      `${report.entriesSeen} log entries`
    ].filter(Boolean)
    lines.push(facts.join(' · '))
    const pullRequests = report.run?.github_pull_requests ?? []
    if (pullRequests.length > 0) {
      lines.push(
        '',
        `**Pull requests:** ${pullRequests.map(pr => link(pr.title || `#${pr.id}`, pr.url)).join(', ')}`
      )
    }
    if (report.run) {
      lines.push(
        '',
        `Reply \`${state.triggerPhrase} <follow-up>\` to continue this run, or \`${state.triggerPhrase} new <instruction>\` to start another.`
      )
    }
  }
  const footer = [
    '',
    `<sub>Asked by @${escapeHtml(state.requestedBy.login)}${
      state.workflowRunUrl ? ` · ${link('workflow run', state.workflowRunUrl)}` : ''
    } · updated ${new Date(state.updatedAt).toISOString().slice(11, 19)} UTC</sub>`
  ]

  const head = lines.join('\n')
  const texts: Array<[string, string]> = []
  if (report?.error) texts.push(['Error', report.error])
  if (report?.run?.result) texts.push(['Result', report.run.result])
  if (report?.run?.summary) texts.push(['Summary', report.run.summary])
  if (state.instruction) texts.push(['Request', state.instruction])
  // Share the room left among the texts; each is cut and says so.
  const room = COMMENT_LIMIT_CHARS - head.length - footer.join('\n').length - 500
  const share = Math.max(200, Math.floor(room / Math.max(1, texts.length)) - 100)
  const blocks = texts.map(
    ([title, text]) =>
      `\n<details${title === 'Request' ? '' : ' open'}><summary>${title}</summary>\n\n${quoteBlock(trimmed(text, Math.floor(share / 2)))}\n\n</details>`
  )
  return [head, ...blocks, ...footer].join('\n')
}
