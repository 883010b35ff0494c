import type { LogEntry, PullRequest } from '../api/types.js'
import type { RunReport } from '../run/agent-run.js'
import {
  entryDetails,
  entryGist,
  entryTime,
  entryTool,
  entryType,
  formatDuration,
  oneLine,
  trimmed,
  valueText
} from './entry-text.js'
import { escapeHtml, link, quoteBlock, tableCell } from './markdown.js'

/** GitHub refuses a step summary over 1 MiB; stay clearly under it. */
export const SUMMARY_LIMIT_BYTES = 1_000_000
/**
 * Every field the service fills is cut at render time (in characters, each up to 3 bytes in UTF-8),
 * so that the header stays well within the limit; fitBytes then makes sure of it in bytes.
 */
const TEXT_LIMIT_CHARS = 60_000
const ERROR_LIMIT_CHARS = 10_000
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
  limitBytes?: number
}

const HEADLINES: Record<RunReport['outcome'], string> = {
  success: '✅ Agent run succeeded',
  failure: '❌ Agent run failed',
  timeout: '⏱️ Agent run still working when the wait timed out',
  paused: '⏸️ Agent run paused, waiting for a follow-up',
  started: '🚀 Agent run started',
  skipped: '⏭️ Agent run skipped',
  cancelled: '🛑 Job cancelled while following the agent run',
  error: '⚠️ Agent run could not be followed'
}

/** The job summary as Markdown: header table, result and summary texts, then the timeline. */
export function renderSummary(input: SummaryInput): string {
  const { report } = input
  const run = report.run
  const head: string[] = [`## ${HEADLINES[report.outcome]}`, '']
  if (run) {
    head.push(
      '| | |',
      '|---|---|',
      `| Agent run | ${link(`#${run.id}`, run.web_url)} |`,
      `| Status | ${tableCell(oneLine(report.status, STATUS_CHARS) || 'unknown')} |`,
      `| Outcome | ${report.outcome} |`,
      `| Duration | ${formatDuration(report.endedAt - report.startedAt)} |`,
      `| Pull requests | ${pullRequestLinks(run.github_pull_requests ?? []) || 'none'} |`,
      `| Log entries | ${report.entriesSeen}${input.logFile ? ` (all in \`${tableCell(input.logFile)}\`)` : ''} |`,
      ''
    )
  }
  if (report.outcome === 'paused' && run) {
    head.push(`Resume it with \`agent-run-id: ${run.id}\` and a follow-up \`prompt\`.`, '')
  }
  if (report.reason) head.push(quoteBlock(trimmed(report.reason, ERROR_LIMIT_CHARS)), '')
  if (report.error) head.push('### Error', '', quoteBlock(trimmed(report.error, ERROR_LIMIT_CHARS)), '')
  if (run?.result) head.push('### Result', '', quoteBlock(trimmed(run.result, TEXT_LIMIT_CHARS)), '')
  if (run?.summary) head.push('### Summary', '', quoteBlock(trimmed(run.summary, TEXT_LIMIT_CHARS)), '')

  const limit = input.limitBytes ?? SUMMARY_LIMIT_BYTES
  const text = head.join('\n')
  if (!input.entries || input.entries.length === 0) return fitBytes(text, limit)
  const budget = limit - Buffer.byteLength(text) - 1_000
  return fitBytes(`${text}\n### Log\n\n${timeline(input.entries, budget, input.entriesLeftOut)}`, limit)
}

/** The first pull requests as links, then how many more the github-pull-requests output has. */
function pullRequestLinks(pullRequests: PullRequest[]): string {
  const links = pullRequests
    .slice(0, PULL_REQUESTS_SHOWN)
    .map(pr =>
      link(oneLine(valueText(pr.title), TITLE_CHARS) || `#${oneLine(valueText(pr.id), TITLE_CHARS)}`, pr.url)
    )
  const more = pullRequests.length - links.length
  if (more > 0) links.push(`and ${more} more (all in the \`github-pull-requests\` output)`)
  return links.join('<br>')
}

const CLOSING_TAGS = ['pre', 'details']

/**
 * The last guard: `markdown` within `limit` bytes of UTF-8, whatever the fields held. Cut at a line
 * end, which never falls inside a tag of ours (service text is escaped and kept to single lines in
 * titles and cells), the blocks left open are closed, and a note says how much was left out.
 */
export function fitBytes(markdown: string, limit: number): string {
  const bytes = Buffer.from(markdown)
  if (bytes.length <= limit) return markdown
  const note = (left: number): string =>
    `\n\n> **${left} bytes of this summary left out here** to keep it under GitHub's 1 MiB limit.\n`
  let end = Math.max(0, limit - Buffer.byteLength(note(bytes.length)) - 32)
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end-- // not inside a character
  let kept = bytes.subarray(0, end).toString()
  const lineEnd = kept.lastIndexOf('\n')
  if (lineEnd > 0) kept = kept.slice(0, lineEnd)
  const open = (tag: string): number =>
    (kept.match(new RegExp(`<${tag}>`, 'g'))?.length ?? 0) -
    (kept.match(new RegExp(`</${tag}>`, 'g'))?.length ?? 0)
  const closers = CLOSING_TAGS.map(tag => `</${tag}>`.repeat(Math.max(0, open(tag)))).join('')
  return `${kept}${closers}${note(bytes.length - Buffer.byteLength(kept))}`
}

function entryBlock(entry: LogEntry): string {
  const tool = entryTool(entry)
  const title = `<code>${entryTime(entry)}</code> <b>${escapeHtml(entryType(entry))}</b>${
    tool ? ` ${escapeHtml(tool)}` : ''
  } ${escapeHtml(entryGist(entry, 200))}`
  const details = entryDetails(entry, DETAIL_SECTION_CHARS)
  if (!details) return `<details><summary>${title}</summary></details>\n`
  return `<details><summary>${title}</summary>\n\n<pre>${escapeHtml(details)}</pre>\n\n</details>\n`
}

/**
 * The entries as collapsible blocks within `budget` bytes. When they do not all fit, the first and
 * the last ones are kept (how it began, how it ended) and the count left out is said in between.
 */
function timeline(
  entries: LogEntry[],
  budget: number,
  leftOut: { after: number; count: number } = { after: entries.length, count: 0 }
): string {
  const blocks = entries.map(entryBlock)
  const sizes = blocks.map(block => Buffer.byteLength(block))
  if (leftOut.count === 0 && sizes.reduce((sum, size) => sum + size, 0) <= budget) return blocks.join('')

  const note = (count: number): string =>
    `\n> **${count} log entries left out here** to keep the summary under GitHub's 1 MiB limit; the log-file output has them all.\n\n`
  const room = budget - Buffer.byteLength(note(entries.length + leftOut.count))
  // The first ones up to half the room (never past those kept before the gap), the last ones after.
  let head = 0
  let used = 0
  while (head < leftOut.after && used + (sizes[head] as number) <= room / 2) used += sizes[head++] as number
  let tail = blocks.length
  while (tail > head && used + (sizes[tail - 1] as number) <= room) used += sizes[--tail] as number
  return blocks.slice(0, head).join('') + note(tail - head + leftOut.count) + blocks.slice(tail).join('')
}
