import type { RunReport } from '../model.js'
import type { PullRequest } from '../api/types.js'
import { count, formatDuration, oneLine, trimmed, valueText } from './entry-text.js'
import { codeSpan, link, quoteBlock, tableCell, unmention } from './markdown.js'

/**
 * The check run of a run asked for on a pull request, as GitHub's Checks API takes it: a status, a
 * conclusion once it ended, a one-line title and a Markdown summary written by the same rules as
 * the job summary and the tracking comment (markdown.ts), within GitHub's size limit.
 */

/** The conclusions this action writes (GitHub knows `neutral`, `skipped` and `stale` too). */
export type CheckConclusion =
  'success' | 'failure' | 'timed_out' | 'cancelled' | 'action_required' | 'neutral'

/** GitHub refuses a check run's summary over 65,535 characters. */
export const CHECK_SUMMARY_LIMIT_CHARS = 65_535

/** Outcomes of the verdicts' issue (a rejected verdict, no valid answer) are failures too. */
type Ending = RunReport['outcome'] | 'rejected' | 'invalid-output'

/** How each ending concludes the check. `started` (wait: false) leaves the run to others: neutral. */
const CONCLUSIONS: Record<Ending, CheckConclusion> = {
  success: 'success',
  failure: 'failure',
  rejected: 'failure',
  'invalid-output': 'failure',
  error: 'failure',
  timeout: 'timed_out',
  cancelled: 'cancelled',
  paused: 'action_required',
  started: 'neutral',
  skipped: 'neutral'
}

const TITLES: Record<Ending, string> = {
  success: 'Succeeded',
  failure: 'Failed',
  rejected: 'Rejected',
  'invalid-output': 'No valid answer',
  error: 'Could not be followed',
  timeout: 'Timed out',
  cancelled: 'Cancelled',
  paused: 'Paused, waiting for an answer',
  started: 'Started, not followed',
  skipped: 'Skipped'
}

const HEADLINES: Record<Ending, string> = {
  success: '✅ succeeded',
  failure: '❌ failed',
  rejected: '❌ was rejected by its verdict',
  'invalid-output': '❌ gave no valid answer',
  error: '⚠️ could not be followed',
  timeout: '⏱️ was still working when the workflow stopped waiting',
  cancelled: '🛑 was left running: the workflow job was cancelled',
  paused: '⏸️ paused, waiting for an answer',
  started: '🚀 started; this step did not follow it',
  skipped: '⏭️ skipped'
}

/** Caps of the one-line fields the service supplies, in characters before escaping. */
const CAPS = { title: 200, status: 100, verdict: 20, reason: 1_000, prTitle: 200, url: 500, prLine: 3_000 }

export interface CheckRunState {
  runId?: number
  webUrl?: string | null
  status?: string | null
  entriesSeen: number
  /** A follow-up of an earlier run. */
  resumed: boolean
  /** Set once the run ended (or could not be followed). */
  report?: RunReport
  /** The agent's verdict, when one was asked for and given. */
  verdict?: { verdict: string; reason: string }
  /** The phrase a comment resumes a run with, for a paused run asked for on a thread. */
  triggerPhrase?: string
  workflowRunUrl: string
}

export interface CheckRunText {
  status: 'in_progress' | 'completed'
  conclusion?: CheckConclusion
  title: string
  summary: string
}

/** The check run's fields for the run's state: in progress while it works, concluded once it ended. */
export function renderCheckRun(state: CheckRunState, limit = CHECK_SUMMARY_LIMIT_CHARS): CheckRunText {
  const report = state.report
  if (!report) {
    return {
      status: 'in_progress',
      title: titleLine(
        state.resumed ? 'Working on the follow-up' : 'Working',
        `${state.status?.trim() ? `status ${state.status}, ` : ''}${count(state.entriesSeen, 'log entry', 'log entries')} so far`
      ),
      summary: fitSummary(workingHead(state), [], footer(state), limit)
    }
  }
  const ending = report.outcome as Ending
  return {
    status: 'completed',
    conclusion: CONCLUSIONS[ending],
    title: titleLine(TITLES[ending], endingReason(report, state.verdict)),
    summary: fitSummary(endedHead(state, report), texts(report), footer(state), limit)
  }
}

/** The verdict's reason, else the first line of the result (or of the error, or the skip's reason). */
function endingReason(report: RunReport, verdict: CheckRunState['verdict']): string {
  const firstLine = (text: string | null | undefined): string =>
    (text ?? '')
      .slice(0, CAPS.title * 8)
      .split(/\r\n|\r|\n/)
      .find(line => line.trim()) ?? ''
  return (
    firstLine(verdict?.reason) ||
    firstLine(report.run?.result) ||
    firstLine(report.error) ||
    firstLine(report.reason)
  )
}

/**
 * One line of plain text (GitHub shows the title as it is): capped, control and format characters
 * gone, mentions broken as everywhere else.
 */
function titleLine(label: string, detail: string): string {
  const clean = detail.replace(/[\p{Cc}\p{Cf}]/gu, ' ')
  const line = oneLine(clean ? `${label}: ${clean}` : label, CAPS.title)
  return unmention(line)
}

function runLink(state: CheckRunState, report?: RunReport): string {
  const runId = report?.run?.id ?? state.runId
  const webUrl = report?.run?.web_url ?? state.webUrl
  if (runId === undefined) return 'Codegen agent run'
  return `Codegen agent run ${link(`#${runId}`, typeof webUrl === 'string' && webUrl.length <= CAPS.url ? webUrl : undefined)}`
}

function workingHead(state: CheckRunState): string {
  const status = state.status?.trim() ? `status ${codeSpan(oneLine(state.status, CAPS.status))}` : 'starting'
  return [
    `### 🤖 ${runLink(state)} is working${state.resumed ? ' on the follow-up' : ''}`,
    '',
    `${status} · ${count(state.entriesSeen, 'log entry', 'log entries')} so far`
  ].join('\n')
}

function endedHead(state: CheckRunState, report: RunReport): string {
  const lines = [`### ${runLink(state, report)} ${HEADLINES[report.outcome as Ending]}`, '']
  const run = report.run
  if (run) {
    // The table's header row is its first fact, as in the job summary.
    lines.push(
      `| Agent run | ${link(`#${run.id}`, typeof run.web_url === 'string' && run.web_url.length <= CAPS.url ? run.web_url : undefined)} |`,
      '|---|---|',
      `| Status | ${tableCell(oneLine(report.status, CAPS.status) || 'unknown')} |`,
      `| Outcome | ${report.outcome} |`,
      `| Duration | ${formatDuration(report.endedAt - report.startedAt)} |`,
      `| Pull requests | ${pullRequestLinks(run.github_pull_requests ?? []) || 'none'} |`,
      `| Log entries | ${report.entriesSeen} |`
    )
    if (state.verdict) {
      const verdict = oneLine(state.verdict.verdict, CAPS.verdict)
      const reason = oneLine(state.verdict.reason, CAPS.reason)
      lines.push(`| Verdict | ${tableCell(verdict)}${reason ? `: ${tableCell(reason)}` : ''} |`)
    }
    lines.push('')
  }
  if (report.outcome === 'paused' && run) lines.push(howToAnswer(run.id, state.triggerPhrase), '')
  return lines.join('\n')
}

/** How a paused run is answered: on the thread when it was asked for there, or from a step. */
function howToAnswer(runId: number, triggerPhrase: string | undefined): string {
  const step = `a step with \`agent-run-id: ${runId}\` and the answer as \`prompt\``
  return triggerPhrase
    ? `The agent asks a question (below). Answer with a comment \`${triggerPhrase} <answer>\` on the pull request, or resume it in ${step}.`
    : `The agent asks a question (below). Answer by resuming it in ${step}.`
}

/** The first pull requests as links, up to a line's worth, then how many more. */
function pullRequestLinks(pullRequests: PullRequest[]): string {
  let line = ''
  for (const [index, pr] of pullRequests.entries()) {
    const title = oneLine(valueText(pr.title), CAPS.prTitle) || `#${oneLine(valueText(pr.id), CAPS.prTitle)}`
    const url = typeof pr.url === 'string' && pr.url.length <= CAPS.url ? pr.url : undefined
    const entry = `${index > 0 ? '<br>' : ''}${link(title, url)}`
    if (line.length + entry.length > CAPS.prLine) return `${line}<br>and ${pullRequests.length - index} more`
    line += entry
  }
  return line
}

function texts(report: RunReport): Array<[string, string]> {
  const found: Array<[string, string]> = []
  if (report.reason) found.push(['Why', report.reason])
  if (report.error) found.push(['Error', report.error])
  if (report.run?.result) found.push([report.outcome === 'paused' ? 'Question' : 'Result', report.run.result])
  if (report.run?.summary) found.push(['Summary', report.run.summary])
  return found
}

function footer(state: CheckRunState): string {
  return state.workflowRunUrl
    ? `<sub>Followed by the ${link('workflow run', state.workflowRunUrl)}</sub>`
    : ''
}

const TRIMMED_NOTE = '… trimmed to fit GitHub’s check run size limit'

/**
 * Service text as a quoted block of at most `max` characters once rendered. The source is cut before
 * it is rendered (never the rendering, which could split a fence or a reference of ours), and cut
 * again in proportion while escaping makes it too big: a few rounds, each linear in what is kept.
 */
function quoteWithin(text: string, max: number): string {
  let keep = Math.min(text.length, Math.max(0, max))
  for (;;) {
    const quoted = quoteBlock(trimmed(text, keep))
    if (quoted.length <= max) return quoted
    if (keep === 0) return `> ${TRIMMED_NOTE}`.slice(0, Math.max(0, max))
    keep = Math.max(0, Math.min(keep - 1 - Math.floor(keep / 50), Math.floor((keep * max) / quoted.length)))
  }
}

/** The head, the texts sharing the room left (the shortest first), the footer: within `limit`. */
function fitSummary(head: string, blocks: Array<[string, string]>, foot: string, limit: number): string {
  const section = (title: string, quoted: string): string => `#### ${title}\n\n${quoted}`
  const gap = 2 // the blank line between two parts
  let room = limit - head.length - (foot ? foot.length + gap : 0)
  const rendered = new Map<string, string>()
  const byLength = [...blocks].sort((a, b) => a[1].length - b[1].length)
  for (const [index, [title, text]] of byLength.entries()) {
    const overhead = section(title, '').length + gap
    const share = Math.floor(room / (byLength.length - index)) - overhead
    const quoted = quoteWithin(text, share)
    rendered.set(title, section(title, quoted))
    room -= overhead + quoted.length
  }
  const parts = [head.trimEnd(), ...blocks.map(([title]) => rendered.get(title) ?? ''), foot]
  const summary = parts.filter(Boolean).join('\n\n')
  // The caps keep the head small; should it ever not be, the texts go rather than the check.
  return summary.length <= limit ? summary : `${head.slice(0, limit - 200)}\n\n${TRIMMED_NOTE}`
}
