import type { RunReport } from '../run/agent-run.js'
import { formatDuration, trimmed } from '../report/entry-text.js'
import { escapeHtml, link, quoteBlock } from '../report/markdown.js'
import { OWN_COMMENT_MARK, type Author } from './trigger.js'

/** GitHub refuses comments over 65,536 characters; stay clearly under it. */
export const COMMENT_LIMIT_CHARS = 60_000

/** The hidden first line of a tracking comment: the run it tracks. */
export function markerLine(runId: number | undefined): string {
  return `${OWN_COMMENT_MARK}${runId === undefined ? '' : ` run-id=${runId}`} -->`
}

/** The run id a tracking comment names in its first line, and only there. */
export function readMarker(body: string): number | undefined {
  const first = body.split('\n', 1)[0] ?? ''
  const match = /^<!-- codegen-agent-run-action run-id=(\d+) -->$/.exec(first.trim())
  return match ? Number(match[1]) : undefined
}

export interface CommentSummary {
  id: number
  body: string
  author: Author
}

/**
 * The latest tracking comment of the thread written by a trusted author (the action's own
 * identity, or a bot): a commenter cannot point the action at another run by writing a marker.
 */
export function findTrackingComment(
  comments: CommentSummary[],
  trusted: (author: Author) => boolean
): { id: number; runId: number } | undefined {
  for (const comment of [...comments].reverse()) {
    const runId = readMarker(comment.body)
    if (runId !== undefined && trusted(comment.author)) return { id: comment.id, runId }
  }
  return undefined
}

export interface TrackingState {
  requestedBy: Author
  instruction: string
  workflowRunUrl: string
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
  const lines: string[] = [markerLine(runId)]
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
