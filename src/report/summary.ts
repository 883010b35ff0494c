import type { LogEntry } from '../api/types.js'
import type { RunReport } from '../run/agent-run.js'
import { entryDetails, entryGist, entryTime, entryType, formatDuration, trimmed } from './entry-text.js'
import { escapeHtml, link, quoteBlock, tableCell } from './markdown.js'

/** GitHub refuses a step summary over 1 MiB; stay clearly under it. */
export const SUMMARY_LIMIT_BYTES = 1_000_000
const TEXT_LIMIT_CHARS = 60_000
const DETAIL_SECTION_CHARS = 4_000

export interface SummaryInput {
  report: RunReport
  /** The entries mirrored by this step, for the timeline; undefined leaves the timeline out. */
  entries?: LogEntry[]
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
    const pullRequests = (run.github_pull_requests ?? [])
      .map(pr => link(pr.title || `#${pr.id}`, pr.url))
      .join('<br>')
    head.push(
      '| | |',
      '|---|---|',
      `| Agent run | ${link(`#${run.id}`, run.web_url)} |`,
      `| Status | ${tableCell(report.status || 'unknown')} |`,
      `| Outcome | ${report.outcome} |`,
      `| Duration | ${formatDuration(report.endedAt - report.startedAt)} |`,
      `| Pull requests | ${pullRequests || 'none'} |`,
      `| Log entries | ${report.entriesSeen}${input.logFile ? ` (all in \`${tableCell(input.logFile)}\`)` : ''} |`,
      ''
    )
  }
  if (report.outcome === 'paused' && run) {
    head.push(`Resume it with \`agent-run-id: ${run.id}\` and a follow-up \`prompt\`.`, '')
  }
  if (report.reason) head.push(quoteBlock(report.reason), '')
  if (report.error) head.push('### Error', '', quoteBlock(report.error), '')
  if (run?.result) head.push('### Result', '', quoteBlock(trimmed(run.result, TEXT_LIMIT_CHARS)), '')
  if (run?.summary) head.push('### Summary', '', quoteBlock(trimmed(run.summary, TEXT_LIMIT_CHARS)), '')

  const text = head.join('\n')
  if (!input.entries || input.entries.length === 0) return text
  const budget = (input.limitBytes ?? SUMMARY_LIMIT_BYTES) - Buffer.byteLength(text) - 1_000
  return `${text}\n### Log\n\n${timeline(input.entries, budget)}`
}

function entryBlock(entry: LogEntry): string {
  const title = `<code>${entryTime(entry)}</code> <b>${escapeHtml(entryType(entry))}</b>${
    entry.tool_name ? ` ${escapeHtml(entry.tool_name)}` : ''
  } ${escapeHtml(entryGist(entry, 200))}`
  const details = entryDetails(entry, DETAIL_SECTION_CHARS)
  if (!details) return `<details><summary>${title}</summary></details>\n`
  return `<details><summary>${title}</summary>\n\n<pre>${escapeHtml(details)}</pre>\n\n</details>\n`
}

/**
 * The entries as collapsible blocks within `budget` bytes. When they do not all fit, the first and
 * the last ones are kept (how it began, how it ended) and the count left out is said in between.
 */
function timeline(entries: LogEntry[], budget: number): string {
  const blocks = entries.map(entryBlock)
  const sizes = blocks.map(block => Buffer.byteLength(block))
  if (sizes.reduce((sum, size) => sum + size, 0) <= budget) return blocks.join('')

  const note = (count: number): string =>
    `\n> **${count} log entries left out here** to keep the summary under GitHub's 1 MiB limit; the log-file output has them all.\n\n`
  const room = budget - Buffer.byteLength(note(entries.length))
  let head = 0
  let used = 0
  while (head < blocks.length && used + (sizes[head] as number) <= room / 2) used += sizes[head++] as number
  let tail = blocks.length
  while (tail > head && used + (sizes[tail - 1] as number) <= room) used += sizes[--tail] as number
  return blocks.slice(0, head).join('') + note(tail - head) + blocks.slice(tail).join('')
}
