import type { CarriedFrom, CiFixState, PlanReport, RunReport, ShownImages } from '../model.js'
import type { LogEntry } from '../api/types.js'
import type { AnswerReport } from '../answer/answer.js'
import { threadImagesMarkdown } from './images-text.js'
import { COMMENT_MAX_CHARS, createMarkerLine, markerLine } from '../github-shapes.js'
import { count, entryGist, entryTime, entryTool, entryType, formatDuration, oneLine } from './entry-text.js'
import { answerAnnotation, repairAskedText, verdictMarkdown } from './answer-text.js'
import { endingHeadline, workingHeadline, workingStatusLine } from './headlines.js'
import { stopMarkdown } from './stop-text.js'
import { codeSpan, escapeHtml, link, markdownInline, plainInline } from './markdown.js'
import { usageMarkdown } from './usage.js'
import { trackingFindingsLine } from './findings-text.js'
import {
  CAPS,
  COMMENT_FIT,
  pullRequestsWithin,
  quoteShares,
  runLink,
  serviceLink,
  trimmedNote
} from './fit-text.js'
import { howToAnswer, QUESTION } from './paused-text.js'
import { approveLine, planBlock, planPeopleLine, planPullRequestsWarning, PLANNING } from './plan-text.js'

/**
 * The tracking comment's Markdown: the one comment a thread's run is followed in
 * (tracking-comment.ts writes it), under GitHub's size whatever the run's texts hold.
 */

export interface TrackingState {
  /** Who asked on the thread; none for a CI fix, which the failed workflow run asked for. */
  requestedBy?: { login: string; type: string }
  /** A CI fix: what it fixes, said below the headline. */
  ciFix?: CiFixState
  instruction: string
  workflowRunUrl: string
  /** The marker's signature of a run id in a comment (see MarkerKey). */
  sign: (commentId: number, runId: number, plan?: string) => string
  /** The comment being written, once it exists: a marker is signed for its comment. */
  commentId?: number
  /** Until the comment exists, the random mark its create is found by if GitHub loses the answer. */
  createMark?: string
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
  /** A plan's run (a plan or its revision): its marker says plan=working until the plan is shown. */
  planning?: boolean
  /** The repository's page (`https://github.com/owner/repo`): the check run's is under it. */
  repositoryUrl?: string
  /** thread-images: what went with the run (or the run that carries the thread on), told from its start. */
  threadImages?: ShownImages
  updatedAt: number
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

/** The question's label, and how to answer it: on this thread, which asked for the run. */
function questionHead(triggerPhrase: string): string {
  return `**⏸️ ${QUESTION}** (${howToAnswer({ on: 'thread', phrase: triggerPhrase })}):`
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

/** The lines of a run that works: its headline, status, where it comes from, its latest step. */
function workingLines(state: TrackingState, run: string): string[] {
  const lines = [workingHeadline(run, state.resumed), '']
  if (state.ciFix) lines.push(ciFixLine(state.ciFix), '')
  if (state.planning) lines.push(PLANNING, '')
  lines.push(workingStatusLine(state.status, state.entriesSeen))
  if (state.carriedFrom) lines.push('', carriedLine(state.carriedFrom))
  // Said once the images went with a run: the carried-on run's when the resume was refused.
  const images = state.carriedFrom ? state.threadImages?.carryOn : state.threadImages?.run
  if (images && state.runId !== undefined) lines.push('', threadImagesMarkdown(images))
  if (state.repair)
    lines.push(
      '',
      plainInline(repairAskedText(state.repair.reason, state.repair.attempt, state.repair.retries))
    )
  if (state.latestEntry) lines.push('', `Latest step: ${latestStep(state.latestEntry)}`)
  return lines
}

/**
 * The lines of a run that ended, and where a paused run's question or a plan goes among them (below
 * the headline and the answer's lead, above the facts).
 */
function endedLines(
  state: TrackingState,
  report: RunReport,
  run: string,
  question: string
): { lines: string[]; questionAt?: number } {
  const lines = [`### ${run} ${endingHeadline('comment', report)}`, '']
  if (state.ciFix) lines.push(ciFixLine(state.ciFix), '')
  if (report.plan) lines.push(planPeopleLine(report.plan), '')
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
  const plan = shownPlan(report)
  const questionAt = question || plan ? lines.length : undefined
  if (plan) {
    lines.push(approveLine(state.triggerPhrase), '')
    if (plan.pullRequests) lines.push(planPullRequestsWarning(plan.pullRequests), '')
  }
  const facts = [
    report.status.trim() ? `status ${code(report.status, CAPS.status)}` : '',
    `${formatDuration(report.endedAt - report.startedAt)}`,
    count(report.entriesSeen, 'log entry', 'log entries')
  ].filter(Boolean)
  lines.push(facts.join(' · '))
  if (report.usage) lines.push('', usageMarkdown(report.usage))
  if (report.threadImages) lines.push('', threadImagesMarkdown(report.threadImages))
  const pullRequests = report.run?.github_pull_requests ?? []
  if (pullRequests.length > 0)
    lines.push(
      '',
      pullRequestsWithin(pullRequests, { lead: '**Pull requests:** ', separator: ', ', beforeMore: ' ' })
    )
  if (report.run && !question && !plan) {
    lines.push(
      '',
      `Reply \`${state.triggerPhrase} <follow-up>\` to continue this run, or \`${state.triggerPhrase} new <instruction>\` to start another.`
    )
  }
  return { lines, ...(questionAt !== undefined ? { questionAt } : {}) }
}

/** Who asked, the workflow run and when the comment was updated. */
function footer(state: TrackingState): string {
  const askedBy = state.requestedBy
    ? `Asked by @${escapeHtml(oneLine(state.requestedBy.login, 100))}`
    : state.ciFix
      ? 'Asked by the failed CI run'
      : 'Codegen'
  return [
    '',
    `<sub>${askedBy}${
      state.workflowRunUrl ? ` · ${link('workflow run', state.workflowRunUrl)}` : ''
    } · updated ${new Date(state.updatedAt).toISOString().slice(11, 19)} UTC</sub>`
  ].join('\n')
}

/** The plan a run wrote that awaits approval (outcome planned), shown whole. */
function shownPlan(report: RunReport | undefined): PlanReport | undefined {
  return report?.outcome === 'planned' ? report.plan : undefined
}

/** The service's long texts (and the request), titled, in the order they show; a plan is shown apart. */
function longTexts(state: TrackingState, question: string): Array<[string, string]> {
  const report = state.report
  const plan = shownPlan(report)
  const texts: Array<[string, string]> = []
  if (question) texts.push([QUESTION, question])
  if (report?.error) texts.push(['Error', report.error])
  if (report?.run?.result && !question && !plan) texts.push(['Result', report.run.result])
  if (plan?.earlier) texts.push([EARLIER_PLAN, plan.earlier])
  if (report?.run?.summary) texts.push(['Summary', report.run.summary])
  if (state.instruction) texts.push(['Request', state.instruction])
  return texts
}

/**
 * The tracking comment's Markdown, under GitHub's size whatever the run's texts hold: every
 * one-line field the service supplies is capped, and the long texts share the room left, measured
 * once escaped.
 */
export function renderTrackingComment(state: TrackingState): string {
  const report = state.report
  // A paused run's result is the agent's question to the thread.
  const question = report?.outcome === 'paused' ? (report.run?.result ?? '') : ''
  const runId = report?.run?.id ?? state.runId
  const run = runLink(runId, report?.run?.web_url ?? state.webUrl)
  // Until the comment exists its marker holds no run: the run id is only written signed.
  const commentId = state.commentId
  const marker =
    commentId === undefined && state.createMark !== undefined
      ? createMarkerLine(state.createMark)
      : commentId === undefined || runId === undefined
        ? markerLine(undefined)
        : markerLine(runId, state.sign(commentId, runId, planMark(state)), planMark(state))
  const body = report ? endedLines(state, report, run, question) : { lines: workingLines(state, run) }
  const lines = [marker, ...body.lines]
  /** The question goes among the head's lines: it is service text, quoted within its share. */
  const questionAt = body.questionAt === undefined ? Number.POSITIVE_INFINITY : body.questionAt + 1
  return withTexts(state, lines, questionAt, question)
}

/**
 * The marker's plan field: `working` while a plan's run works, the shown plan's digest once it is
 * planned (what an approval is pinned to), none otherwise (a plan's run that failed shows no plan).
 */
function planMark(state: TrackingState): string | undefined {
  if (!state.report) return state.planning ? 'working' : undefined
  return shownPlan(state.report)?.digest
}

/** The long texts shown folded: the request (the thread has it), a revised plan's earlier one. */
const EARLIER_PLAN = 'The earlier plan'
const FOLDED = new Set(['Request', EARLIER_PLAN])
/** With a plan shown, the room the other long texts keep at most (they are cut to it first). */
const OTHER_TEXTS_RESERVE = 8_000

/** The head's lines with the long texts quoted in the room they leave (a plan's first), and the footer. */
function withTexts(state: TrackingState, lines: string[], questionAt: number, question: string): string {
  const end = footer(state)
  const asked = question ? questionHead(state.triggerPhrase) : ''
  const above = lines.slice(0, questionAt).join('\n')
  const below = questionAt < lines.length ? `\n${lines.slice(questionAt).join('\n')}` : ''
  const texts = longTexts(state, question)
  const block = (title: string, quoted: string): string =>
    title === QUESTION
      ? `\n${asked}\n\n${quoted}\n`
      : `\n<details${FOLDED.has(title) ? '' : ' open'}><summary>${title}</summary>\n\n${quoted}\n\n</details>`
  const head = above + below
  // The room left is shared, shortest text first, so a short text leaves its unused share to the others.
  let room = COMMENT_MAX_CHARS - head.length - end.length - 2
  const sharers = texts.map(([title, text]) => ({ title, text, overhead: block(title, '').length + 1 }))
  const plan = shownPlan(state.report)
  // A plan goes first: it is cut only where the comment ends, the other texts keeping a little room.
  const reserve = Math.min(
    OTHER_TEXTS_RESERVE,
    sharers.reduce((sum, sharer) => sum + sharer.overhead + 2 * sharer.text.length, 0)
  )
  const planned = plan ? `\n${planBlock(plan.text, room - reserve - 2, COMMENT_FIT)}\n` : ''
  room -= planned.length
  const quoted = quoteShares(sharers, room, COMMENT_FIT)
  const blocks = new Map(sharers.map(sharer => [sharer.title, block(sharer.title, quoted.get(sharer) ?? '')]))
  const shown = texts.filter(([title]) => title !== QUESTION).map(([title]) => blocks.get(title))
  const body = [above + (blocks.get(QUESTION) ?? planned) + below, ...shown, end].join('\n')
  // The caps above keep the head small; should it ever not be, the texts go rather than the comment.
  return body.length <= COMMENT_MAX_CHARS
    ? body
    : [head.slice(0, COMMENT_MAX_CHARS - 200), '', trimmedNote('comment'), end].join('\n')
}
