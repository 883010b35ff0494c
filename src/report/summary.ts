import type { LogEntry, PullRequest } from '../api/types.js'
import type { RunReport } from '../model.js'
import { endingHeadline } from './headlines.js'
import {
  count,
  entryGist,
  entrySections,
  entryTime,
  entryTool,
  entryType,
  formatDuration,
  oneLine,
  trimmed,
  wasTrimmed
} from './entry-text.js'
import { answerSection, verdictLine } from './answer-text.js'
import { usageMarkdown } from './usage.js'
import { findingsSummarySection, type FindingsPlace } from './findings-text.js'
import { stopMarkdown } from './stop-text.js'
import {
  fence,
  htmlInline,
  link,
  pullRequestLink,
  quoteBlock,
  serviceMarkdown,
  tableCell
} from './markdown.js'
import { askedOnThread, howToAnswer, QUESTION, THREAD_THAT_ASKED, type AnswerSurface } from './paused-text.js'
import type { QuoteFit } from './fit-text.js'
import { approveLine, planBlock, planPeopleLine, planPullRequestsWarning } from './plan-text.js'
import { utf8Bytes } from '../github-shapes.js'

/** GitHub refuses a step summary over 1 MiB; stay clearly under it. */
export const SUMMARY_MAX_BYTES = 1_000_000
/**
 * Every field the service fills is cut at render time (in characters, each up to 3 bytes in UTF-8),
 * so that the header stays well within the limit; fitBytes then makes sure of it in bytes.
 */
const TEXT_MAX_CHARS = 60_000
const ERROR_MAX_CHARS = 10_000
const DETAIL_SECTION_CHARS = 4_000
const STATUS_CHARS = 100
const TITLE_CHARS = 200
const PULL_REQUESTS_SHOWN = 20

export interface SummaryInput {
  report: RunReport
  /** The entries mirrored by this step, for the timeline; undefined leaves the timeline out. */
  entries?: LogEntry[]
  /** Entries not kept in `entries` (a long log): after how many of them, and how many. */
  entriesLeftOut?: { after: number; count: number }
  logFile?: string
  maxBytes?: number
  /** A run's fold in a fan-out's summary: no headline nor facts table (the fold's title and the table's row say them). */
  folded?: boolean
  /** The commit the findings are about, for links to their lines (findings asked). */
  findingsPlace?: FindingsPlace
  /** The phrase a thread's comment starts with: a plan's summary says how to approve it. */
  triggerPhrase?: string
}

/**
 * The job summary as Markdown: the headline, the verdict, the findings, a paused run's question, the facts
 * table, the answer's problems, the result and summary texts, then the timeline.
 */
export function renderSummary(input: SummaryInput): string {
  const { report } = input
  const run = report.run
  const head: string[] = input.folded ? [] : [`## ${endingHeadline('summary', report)}`, '']
  const maxBytes = input.maxBytes ?? SUMMARY_MAX_BYTES
  const entries = input.entries ?? []
  let log = ''
  let shown = entries.length
  if (report.stop) head.push(stopMarkdown(report.stop), '')
  if (report.plan) head.push(planPeopleLine(report.plan), '')
  const plan = report.outcome === 'planned' ? report.plan : undefined
  if (plan) head.push(...planSection(plan, input.triggerPhrase ?? '/codegen'))
  if (report.answer?.verdictAsked) head.push(verdictLine(report.answer), '')
  const answer = report.answer?.answer
  if (answer?.valid && answer.findings)
    head.push(findingsSummarySection(answer.findings, input.findingsPlace), '')
  const question = report.outcome === 'paused' && run?.result ? run.result : ''
  if (question && run) head.push(...questionSection(question, run.id, report.trigger))
  if (run && !input.folded) {
    // The table's header row is its first fact: GFM tables need one, and an empty one shows as a bar.
    head.push(
      `| Agent run | ${link(`#${run.id}`, run.web_url)} |`,
      '|---|---|',
      `| Status | ${tableCell(oneLine(report.status, STATUS_CHARS) || 'unknown')} |`,
      `| Outcome | ${report.outcome} |`,
      `| Duration | ${formatDuration(report.endedAt - report.startedAt)} |`,
      `| Pull requests | ${pullRequestLinks(run.github_pull_requests ?? []) || 'none'} |`,
      `| Log entries | ${LOG_ENTRIES_CELL} |`,
      ''
    )
  }
  if (report.usage) head.push(usageMarkdown(report.usage), '')
  if (report.outcome === 'paused' && run && !question)
    head.push(howToAnswer(answerSurface(run.id, report.trigger)), '')
  if (report.reason) head.push(quoteBlock(trimmed(report.reason, ERROR_MAX_CHARS)), '')
  if (report.error) head.push('### Error', '', quoteBlock(trimmed(report.error, ERROR_MAX_CHARS)), '')
  const result = run?.result ? trimmed(run.result, TEXT_MAX_CHARS) : ''
  if (report.answer) {
    const section = answerSection(report.answer, result !== '' && !wasTrimmed(result))
    if (section) head.push(section, '')
  }
  if (result && !question && !plan) head.push('### Result', '', quoteBlock(result), '')
  if (run?.summary) head.push('### Summary', '', quoteBlock(trimmed(run.summary, TEXT_MAX_CHARS)), '')

  const cellRoom = 300
  const text = head.join('\n')
  if (entries.length > 0) {
    const budget = maxBytes - Buffer.byteLength(text) - cellRoom - 1_000
    ;({ markdown: log, shown } = timeline(entries, budget, input.entriesLeftOut))
  }
  const notShown = entries.length + (input.entriesLeftOut?.count ?? 0) - shown
  const filled = text.replace(LOG_ENTRIES_CELL, logEntriesCell(report.entriesSeen, notShown, input.logFile))
  return fitBytes(log ? `${filled}\n### Log\n\n${log}` : filled, maxBytes)
}

const LOG_ENTRIES_CELL = '\u0000log-entries\u0000'

/** The room of a plan in the summary, and how it is cut there. */
const PLAN_MAX_BYTES = 400_000
const SUMMARY_FIT: QuoteFit = {
  measure: utf8Bytes,
  note: '… trimmed to fit the job summary',
  cutSays: 'note-below'
}

/**
 * A plan that awaits approval: the plan (its first part, the rest folded), how to approve or revise
 * it on the thread, a warning of pull requests opened anyway, and the plan it revised, folded.
 */
function planSection(plan: NonNullable<RunReport['plan']>, phrase: string): string[] {
  const lines = [
    '### Plan',
    '',
    planBlock(plan.text, PLAN_MAX_BYTES, SUMMARY_FIT),
    '',
    `${approveLine(phrase)} Reply on the issue or pull request that asked for the plan.`,
    ''
  ]
  if (plan.pullRequests) lines.push(planPullRequestsWarning(plan.pullRequests), '')
  if (plan.earlier)
    lines.push(
      '<details><summary>The earlier plan</summary>',
      '',
      quoteBlock(trimmed(plan.earlier, TEXT_MAX_CHARS)),
      '',
      '</details>',
      ''
    )
  return lines
}

/** A paused run's question, labelled as the agent's, then how to answer it: first, above the facts. */
function questionSection(question: string, runId: number, trigger: string | undefined): string[] {
  return [
    `### ${QUESTION}`,
    '',
    quoteBlock(trimmed(question, TEXT_MAX_CHARS)),
    '',
    howToAnswer(answerSurface(runId, trigger)),
    ''
  ]
}

/**
 * How a paused run is answered: from a step, and on its thread when it was asked for on one (the
 * tracking comment there gives the phrase); a run from inputs has no thread to answer on.
 */
function answerSurface(runId: number, trigger: string | undefined): AnswerSurface {
  return { on: 'report', runId, ...(askedOnThread(trigger) ? { thread: { name: THREAD_THAT_ASKED } } : {}) }
}

/**
 * How many entries the run wrote, how many the timeline shows, and where all of them are: the
 * `log-file` output (a path on the runner means nothing to a reader of the summary).
 */
function logEntriesCell(seen: number, leftOut: number, logFile?: string): string {
  const where =
    logFile && seen > 0 ? 'all in the `log-file` output, which `actions/upload-artifact` can keep' : ''
  if (leftOut <= 0) return where ? `${seen} (${where})` : `${seen}`
  return `${seen}, ${Math.max(0, seen - leftOut)} shown below${where ? ` (${where})` : ''}`
}

/** The first pull requests as links, then how many more the github-pull-requests output has. */
function pullRequestLinks(pullRequests: PullRequest[]): string {
  const links = pullRequests.slice(0, PULL_REQUESTS_SHOWN).map(pr => pullRequestLink(pr, TITLE_CHARS))
  const more = pullRequests.length - links.length
  if (more > 0) links.push(`and ${more} more (all in the \`github-pull-requests\` output)`)
  return links.join('<br>')
}

const CLOSING_TAGS = ['details']

/**
 * The last guard: `markdown` within `maxBytes` of UTF-8, whatever the fields held. Cut at a line
 * end, which never falls inside a tag of ours (service text is escaped and kept to single lines in
 * titles and cells); a fence left open is closed (every fence in the timeline is ours), then the
 * <details> left open, and a note says how much was left out.
 */
export function fitBytes(markdown: string, maxBytes: number): string {
  const bytes = Buffer.from(markdown)
  if (bytes.length <= maxBytes) return markdown
  const note = (left: number): string =>
    `\n\n> **${left} bytes of this summary left out here** to keep it under GitHub's 1 MiB limit.\n`
  let end = Math.max(0, maxBytes - Buffer.byteLength(note(bytes.length)) - 32)
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end-- // not inside a character
  let kept = bytes.subarray(0, end).toString()
  const lineEnd = kept.lastIndexOf('\n')
  if (lineEnd > 0) kept = kept.slice(0, lineEnd)
  const open = (tag: string): number =>
    (kept.match(new RegExp(`<${tag}>`, 'g'))?.length ?? 0) -
    (kept.match(new RegExp(`</${tag}>`, 'g'))?.length ?? 0)
  const fenceOpen = openFence(kept)
  if (fenceOpen) kept += `\n${fenceOpen}`
  const closers = CLOSING_TAGS.map(tag => `</${tag}>`.repeat(Math.max(0, open(tag)))).join('')
  return `${kept}${closers ? `\n\n${closers}` : ''}${note(bytes.length - Buffer.byteLength(kept))}`
}

/** The fence left open at the end of `markdown` (all fences in it are ours), or ''. */
function openFence(markdown: string): string {
  let open = ''
  for (const line of markdown.split('\n')) {
    const ticks = /^ {0,3}(`{3,})/.exec(line)?.[1]
    if (!ticks) continue
    if (!open) open = ticks
    else if (ticks.length >= open.length && /^ {0,3}`+\s*$/.test(line)) open = ''
  }
  return open
}

const entryCount = (n: number): string => count(n, 'log entry', 'log entries')

/** Each section of an entry's details: prose as Markdown, data as a fenced block shown as written. */
function detailsMarkdown(entry: LogEntry): string {
  return entrySections(entry, DETAIL_SECTION_CHARS, GIST_CHARS)
    .map(section =>
      section.prose
        ? `**${section.label}**\n\n${serviceMarkdown(section.text)}`
        : `**${section.label}**\n\n${fence(section.text, /^[[{]/.test(section.text) ? 'json' : '')}`
    )
    .join('\n\n')
}

/** One timeline entry: its headline, folding its details when it has any. */
function entryBlock(entry: LogEntry): string {
  const tool = entryTool(entry)
  const gist = entryGist(entry, GIST_CHARS)
  // HTML, not Markdown: the headline sits in a <summary>, where Markdown does not apply.
  const title = `<code>${entryTime(entry)}</code> <b>${htmlInline(entryType(entry))}</b>${
    tool ? ` ${htmlInline(tool)}` : ''
  }${tool && gist ? ' ·' : ''}${gist ? ` ${htmlInline(gist)}` : ''}`
  const details = detailsMarkdown(entry)
  if (!details) return `<p>${title}</p>\n\n`
  return `<details><summary>${title}</summary>\n\n${details}\n\n</details>\n\n`
}

const GIST_CHARS = 200

/**
 * The entries as collapsible blocks within `budget` bytes. When they do not all fit, the first and
 * the last ones are kept (how it began, how it ended) and the count left out is said in between.
 */
function timeline(
  entries: LogEntry[],
  budget: number,
  leftOut: { after: number; count: number } = { after: entries.length, count: 0 }
): { markdown: string; shown: number } {
  const blocks = entries.map(entryBlock)
  const sizes = blocks.map(block => Buffer.byteLength(block))
  if (leftOut.count === 0 && sizes.reduce((sum, size) => sum + size, 0) <= budget)
    return { markdown: blocks.join(''), shown: blocks.length }

  const note = (left: number): string =>
    `> **${entryCount(left)} left out here** to keep the summary under GitHub's 1 MiB limit; the \`log-file\` output has them all.\n\n`
  const room = budget - Buffer.byteLength(note(entries.length + leftOut.count))
  // The first ones up to half the room (never past those kept before the gap), the last ones after.
  let head = 0
  let used = 0
  while (head < leftOut.after && used + (sizes[head] as number) <= room / 2) used += sizes[head++] as number
  let tail = blocks.length
  while (tail > head && used + (sizes[tail - 1] as number) <= room) used += sizes[--tail] as number
  return {
    markdown:
      blocks.slice(0, head).join('') + note(tail - head + leftOut.count) + blocks.slice(tail).join(''),
    shown: head + blocks.length - tail
  }
}
