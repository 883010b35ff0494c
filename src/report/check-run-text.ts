import { reportOf, type Outcome, type RunReport } from '../model.js'
import { count, formatDuration, oneLine } from './entry-text.js'
import { stepConclusion, type FailPolicy } from './step-fail.js'
import { usageMarkdown } from './usage.js'
import { checkFindingsMarkdown } from './findings-text.js'
import {
  CAPS,
  CHECK_FIT,
  pullRequestsWithin,
  quoteShares,
  runLink,
  serviceLink,
  trimmedNote
} from './fit-text.js'
import {
  CHECK_SUMMARY_MAX_BYTES,
  CHECK_TITLE_MAX_BYTES,
  cutUtf8,
  utf8Bytes,
  type CheckConclusion,
  type CheckRunText
} from '../github-shapes.js'
import { endingHeadline, workingHeadline, workingStatusLine } from './headlines.js'
import { stopMarkdown } from './stop-text.js'
import { link, plainLine, tableCell, unmention } from './markdown.js'
import { howToAnswer, QUESTION, type AnswerSurface } from './paused-text.js'
import { approveLine, planPeopleLine, planPullRequestsWarning, PLANNING } from './plan-text.js'

/**
 * The check run of a run asked for on a pull request, as GitHub's Checks API takes it: a status, a
 * conclusion once it ended, a one-line title and a Markdown summary written by the same rules as
 * the job summary and the tracking comment (markdown.ts), within GitHub's size.
 */

export type { CheckRunText }

const TITLES: Record<Outcome, string> = {
  success: 'Succeeded',
  failure: 'Failed',
  rejected: 'Rejected',
  'invalid-output': 'No valid answer',
  error: 'Could not be followed',
  timeout: 'Timed out',
  cancelled: 'Cancelled',
  paused: 'Paused, waiting for an answer',
  planned: 'Plan awaits approval',
  started: 'Started, not followed',
  skipped: 'Skipped',
  limited: 'Not started: daily run limit'
}

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
  /** The run writes a plan (or revises one): nothing is changed until a plan is approved. */
  planning?: boolean
  workflowRunUrl: string
  /** fail-on: the check concludes as the step does. */
  policy: FailPolicy
  /**
   * The job was cancelled: the check concludes at once, ahead of the run's stop and of everything
   * else a cancelled job has seconds for; the ending's full text follows when there is time.
   */
  cancelled?: boolean
}

/** The check run's fields for the run's state: in progress while it works, concluded once it ended. */
export function renderCheckRun(state: CheckRunState, maxBytes = CHECK_SUMMARY_MAX_BYTES): CheckRunText {
  const report = state.report
  if (!report && state.cancelled) return cancelledNow(state, maxBytes)
  if (!report) {
    return {
      status: 'in_progress',
      title: titleLine(
        workingTitle(state),
        `${state.status?.trim() ? `status ${state.status}, ` : ''}${count(state.entriesSeen, 'log entry', 'log entries')} so far`
      ),
      summary: fitSummary([workingHead(state), footer(state)], maxBytes)
    }
  }
  const conclusion = stepConclusion(report, state.policy)
  return {
    status: 'completed',
    conclusion,
    title: titleLine(
      outcomeLabel(report.outcome, conclusion, report.limit),
      outcomeReason(report, state.verdict)
    ),
    summary: fitSummary(endedPieces(state, report, conclusion), maxBytes)
  }
}

/** The check as a cancelled job concludes it at once: cancelled (as fail-on makes it), the ending's text to follow. */
function cancelledNow(state: CheckRunState, maxBytes: number): CheckRunText {
  const conclusion = stepConclusion(reportOf({ outcome: 'cancelled' }, 0, 0), state.policy)
  const head = [
    `### 🛑 ${runOf(state)}: the workflow job was cancelled`,
    '',
    state.runId !== undefined
      ? 'The step is stopping the run as stop-run-on says; the ending follows here when it is known.'
      : 'No run was started.'
  ].join('\n')
  return {
    status: 'completed',
    conclusion,
    title: titleLine(outcomeLabel('cancelled', conclusion), ''),
    summary: fitSummary([head, footer(state)], maxBytes)
  }
}

/**
 * The title's label: the outcome, and what fail-on made of it where the check's colour (the step's)
 * is not the one the outcome alone would have: a success failed for want of a pull request, an
 * outcome fail-on lets pass.
 */
function outcomeLabel(outcome: Outcome, conclusion: CheckConclusion, limit?: RunReport['limit']): string {
  if (outcome === 'success' && conclusion !== 'success') return 'No pull request (fail-on: no-pull-request)'
  const title = limit === 'max-fix-attempts' ? 'Not started: max-fix-attempts' : TITLES[outcome]
  if (outcome !== 'success' && conclusion === 'success') return `${title} (fail-on lets it pass)`
  return title
}

/** The summary's word on the same: why this check passes or fails when the ending does not say it. */
function gateLine(report: RunReport, policy: FailPolicy, conclusion: CheckConclusion): string {
  const failOn = `\`fail-on: ${[...policy.failOn].join(',') || 'none'}\``
  if (report.outcome === 'success' && conclusion !== 'success')
    return `This check fails as the step does: ${failOn}, and ${report.runs ? 'a run' : 'the run'} opened no pull request.`
  if (report.outcome !== 'success' && conclusion === 'success')
    return `This check passes as the step does: ${failOn} lets this ending pass.`
  if (report.outcome === 'planned' && conclusion === 'failure')
    return `This check fails as the step does: ${failOn} names planned.`
  return ''
}

/**
 * The verdict's reason, else the first line of the result (or of the error, or the skip's reason),
 * as plain text: GitHub shows the title as it is, so "## Fixed it" reads "Fixed it".
 */
function outcomeReason(report: RunReport, verdict: CheckRunState['verdict']): string {
  const firstLine = (text: string | null | undefined): string => {
    for (const line of (text ?? '').slice(0, CAPS.title * 8).split(/\r\n|\r|\n/)) {
      // A fence's line is no sentence: the first line with words is.
      const plain = /^\s{0,3}(?:`{3,}|~{3,})/.test(line) ? '' : plainLine(line)
      if (plain) return plain
    }
    return ''
  }
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
  const text = clean ? `${label}: ${clean}` : label
  // Cut to fewer characters while the line is over GitHub's bytes: a few rounds, each of a line's work.
  let max: number = CAPS.title
  let line = unmention(oneLine(text, max))
  while (utf8Bytes(line) > CHECK_TITLE_MAX_BYTES && max > 1) {
    max = Math.max(1, Math.min(max - 1, Math.floor((max * CHECK_TITLE_MAX_BYTES) / utf8Bytes(line)) - 1))
    line = unmention(oneLine(text, max))
  }
  return cutUtf8(line, CHECK_TITLE_MAX_BYTES)
}

function runOf(state: CheckRunState, report?: RunReport): string {
  return runLink(report?.run?.id ?? state.runId, report?.run?.web_url ?? state.webUrl)
}

function workingTitle(state: CheckRunState): string {
  if (state.planning) return state.resumed ? 'Revising the plan' : 'Writing a plan'
  return state.resumed ? 'Working on the follow-up' : 'Working'
}

function workingHead(state: CheckRunState): string {
  return [
    workingHeadline(runOf(state), state.resumed),
    '',
    ...(state.planning ? [PLANNING, ''] : []),
    workingStatusLine(state.status, state.entriesSeen)
  ].join('\n')
}

/**
 * The summary of a run that ended, in order: the headline; a paused run's question and how to
 * answer it; why fail-on made this colour; the facts; the run's texts; the footer.
 */
function endedPieces(state: CheckRunState, report: RunReport, conclusion: CheckConclusion): Piece[] {
  const headline = `### ${runOf(state, report)} ${endingHeadline('check', report)}`
  const run = report.run
  const question = report.outcome === 'paused' && run ? (run.result ?? '') : ''
  const asked: Piece[] =
    question && run ? [{ title: QUESTION, text: question }, howToAnswer(answerSurface(run.id, state))] : []
  const rest = texts(report).filter(([title]) => title !== QUESTION)
  return [
    headline,
    ...(report.stop ? [stopMarkdown(report.stop)] : []),
    ...(report.plan ? [planPeopleLine(report.plan)] : []),
    ...planAwaits(state, report),
    ...asked,
    endedFacts(state, report, conclusion),
    ...rest.map(([title, text]) => ({ title, text })),
    footer(state)
  ]
}

/**
 * A plan that awaits approval: how to approve or revise it on the pull request (the check is
 * action_required meanwhile), and a warning of pull requests its run opened anyway.
 */
function planAwaits(state: CheckRunState, report: RunReport): string[] {
  const plan = report.outcome === 'planned' ? report.plan : undefined
  if (!plan) return []
  const how = `This plan awaits approval. ${approveLine(state.policy.triggerPhrase)} Reply on the pull request; its tracking comment shows the plan.`
  return [how, ...(plan.pullRequests ? [planPullRequestsWarning(plan.pullRequests)] : [])]
}

/** A paused run is answered from a step, or on the pull request's thread when it was asked for there. */
function answerSurface(runId: number, state: CheckRunState): AnswerSurface {
  const phrase = state.triggerPhrase
  return { on: 'report', runId, ...(phrase ? { thread: { name: 'the pull request', phrase } } : {}) }
}

function endedFacts(state: CheckRunState, report: RunReport, conclusion: CheckConclusion): string {
  const lines: string[] = []
  const gate = gateLine(report, state.policy, conclusion)
  if (gate) lines.push(gate, '')
  const run = report.run
  if (run) {
    // The table's header row is its first fact, as in the job summary.
    lines.push(
      `| Agent run | ${serviceLink(`#${run.id}`, run.web_url)} |`,
      '|---|---|',
      `| Status | ${tableCell(oneLine(report.status, CAPS.status) || 'unknown')} |`,
      `| Outcome | ${report.outcome} |`,
      `| Duration | ${formatDuration(report.endedAt - report.startedAt)} |`,
      `| Pull requests | ${pullRequestsWithin(run.github_pull_requests ?? [], { lead: '', separator: '<br>', beforeMore: '<br>' }) || 'none'} |`,
      `| Log entries | ${report.entriesSeen} |`
    )
    if (state.verdict) {
      const verdict = oneLine(state.verdict.verdict, CAPS.verdict)
      const reason = oneLine(state.verdict.reason, CAPS.reason)
      lines.push(`| Verdict | ${tableCell(verdict)}${reason ? `: ${tableCell(reason)}` : ''} |`)
    }
    lines.push('')
  }
  const answer = report.answer?.answer
  if (answer?.valid && answer.findings) lines.push(checkFindingsMarkdown(answer.findings), '')
  if (report.usage) lines.push(usageMarkdown(report.usage, report.runs ? 'Usage, all runs' : 'Usage'), '')
  return lines.join('\n')
}

function texts(report: RunReport): Array<[string, string]> {
  const found: Array<[string, string]> = []
  if (report.reason) found.push(['Why', report.reason])
  if (report.error) found.push(['Error', report.error])
  const title = report.outcome === 'paused' ? QUESTION : report.outcome === 'planned' ? 'Plan' : 'Result'
  if (report.run?.result) found.push([title, report.run.result])
  if (report.run?.summary) found.push(['Summary', report.run.summary])
  return found
}

function footer(state: CheckRunState): string {
  return state.workflowRunUrl
    ? `<sub>Followed by the ${link('workflow run', state.workflowRunUrl)}</sub>`
    : ''
}

/** A part of the summary: our own text, or a text of the run's shown as a quoted section. */
type Piece = string | { title: string; text: string }

/** The pieces in order, the run's texts sharing the room ours leave (the shortest first): within `maxBytes`. */
function fitSummary(pieces: Piece[], maxBytes: number): string {
  const section = (title: string, quoted: string): string => `#### ${title}\n\n${quoted}`
  const gap = 2 // the blank line between two parts
  const ours = pieces.flatMap(piece => (typeof piece === 'string' && piece.trim() ? [piece.trimEnd()] : []))
  const blocks = pieces.flatMap(piece => (typeof piece === 'string' ? [] : [piece]))
  const room = maxBytes - ours.reduce((sum, piece) => sum + utf8Bytes(piece) + gap, 0)
  const sharers = blocks.map(block => ({
    block,
    text: block.text,
    overhead: utf8Bytes(section(block.title, '')) + gap
  }))
  const quoted = quoteShares(sharers, room, CHECK_FIT)
  const rendered = new Map<Piece, string>(
    sharers.map(sharer => [sharer.block, section(sharer.block.title, quoted.get(sharer) ?? '')])
  )
  const parts = pieces.map(piece =>
    typeof piece === 'string' ? piece.trimEnd() : (rendered.get(piece) ?? '')
  )
  const summary = parts.filter(Boolean).join('\n\n')
  // The caps keep our text small; should it ever not be, the run's texts go rather than the check.
  return utf8Bytes(summary) <= maxBytes
    ? summary
    : `${cutUtf8(ours.join('\n\n'), maxBytes - 200)}\n\n${trimmedNote('check run')}`
}
