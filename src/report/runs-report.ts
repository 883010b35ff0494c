import type { LogEntry, PullRequest } from '../api/types.js'
import { aggregateOutcome, itemOutcome, type ItemReport, type ItemState, type Outcome } from '../model.js'
import type { Console } from '../runner/runner.js'
import { answerAnnotation } from './answer-text.js'
import { firstLine, inlineText, statusText } from './console-text.js'
import { count, cutChars, formatDuration, oneLine, trimmed } from './entry-text.js'
import { htmlInline, link, pullRequestLink, tableCell } from './markdown.js'
import { fitBytes, renderSummary, SUMMARY_MAX_BYTES } from './summary.js'
import { totalUsage, usageFields, usageMarkdown } from './usage.js'

/**
 * A fan-out as its readers see it: the `runs` output, the job summary (one table, then each run
 * folded under its name), the console's line of every run's state, and the failure annotation.
 * Every text of the service's is cut and made safe where it is shown; the reports come redacted.
 */

/** The `runs` output's `result`, cut: the whole text of 100 runs would not fit an output. */
export const RUNS_RESULT_CHARS = 2_000

/** The `runs` output: one object per item in its order, the keys as the issue names them. */
export function runsOutput(items: readonly ItemReport[]): string {
  return JSON.stringify(
    items.map(item => {
      const run = item.report?.run
      return {
        name: item.name,
        'agent-run-id': run ? String(run.id) : '',
        status: item.report?.status ?? '',
        outcome: itemOutcome(item),
        'web-url': run?.web_url ?? '',
        'pull-request-url': firstPullRequestUrl(run?.github_pull_requests ?? []),
        ...verdictOf(item),
        result: cut(run?.result ?? '', RUNS_RESULT_CHARS),
        usage: item.report?.usage ? usageFields(item.report.usage) : null
      }
    })
  )
}

function firstPullRequestUrl(pullRequests: readonly PullRequest[]): string {
  return pullRequests.map(pr => pr.url).find((url): url is string => typeof url === 'string' && !!url) ?? ''
}

/** A run's verdict and its reason, when one was asked and the answer was valid; else ''. (Its own summary shows the answer.) */
function verdictOf(item: ItemReport): { verdict: string; 'verdict-reason': string } {
  const answer = item.report?.answer?.answer
  return answer?.valid
    ? { verdict: answer.verdict ?? '', 'verdict-reason': answer.reason ?? '' }
    : { verdict: '', 'verdict-reason': '' }
}

/** The first `max` UTF-16 units, never half of a surrogate pair. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : cutChars(text, max)
}

const ICONS: Record<Outcome, string> = {
  success: '✅',
  failure: '❌',
  rejected: '🚫',
  'invalid-output': '⚠️',
  timeout: '⏱️',
  paused: '⏸️',
  planned: '📋',
  started: '🚀',
  skipped: '⏭️',
  limited: '🚦',
  cancelled: '🛑',
  error: '⚠️'
}

const NAME_CHARS = 100
const STATUS_CHARS = 100
const TITLE_CHARS = 200

/** "8 agent runs: 6 succeeded, 2 failed" headline. */
function headline(items: readonly ItemReport[]): string {
  const outcome = aggregateOutcome(items)
  const counts = tally(items)
  return `## ${ICONS[outcome]} ${count(items.length, 'agent run', 'agent runs')}: ${counts}`
}

/** "6 success, 2 failure", most severe last, in the order the table's outcomes read. */
function tally(items: readonly ItemReport[]): string {
  const byOutcome = new Map<Outcome, number>()
  for (const item of items) byOutcome.set(itemOutcome(item), (byOutcome.get(itemOutcome(item)) ?? 0) + 1)
  return [...byOutcome.entries()].map(([outcome, n]) => `${n} ${outcome}`).join(', ')
}

/** One row of the table: name, outcome, status, verdict, duration, pull request, link. */
function tableRow(item: ItemReport): string {
  const report = item.report
  const run = report?.run
  const pullRequests = run?.github_pull_requests ?? []
  const first = pullRequests[0]
  const pullRequest = first
    ? pullRequestLink(first, TITLE_CHARS) +
      (pullRequests.length > 1 ? ` and ${pullRequests.length - 1} more` : '')
    : '—'
  const cells = [
    tableCell(oneLine(item.name, NAME_CHARS)),
    `${ICONS[itemOutcome(item)]} ${itemOutcome(item)}`,
    tableCell(oneLine(report?.status ?? '', STATUS_CHARS)) || '—',
    verdictOf(item).verdict || '—',
    report && run ? formatDuration(report.endedAt - report.startedAt) : '—',
    pullRequest,
    run ? link(`#${run.id}`, run.web_url) : '—'
  ]
  return `| ${cells.join(' | ')} |`
}

export interface RunsSummaryInput {
  items: readonly ItemReport[]
  maxBytes?: number
}

/** Room of each fold beyond its run's own summary: the <details> lines and a margin. */
const FOLD_OVERHEAD = 600

/**
 * The job summary of a fan-out: the table first, then each run's own summary (result, error,
 * timeline) folded under its name, each within its share of GitHub's 1 MiB. A run that needs less
 * than its share leaves the rest to those that were cut.
 */
export function renderRunsSummary(input: RunsSummaryInput): string {
  const maxBytes = input.maxBytes ?? SUMMARY_MAX_BYTES
  const items = input.items
  const usages = items.flatMap(item => (item.report?.usage ? [item.report.usage] : []))
  const table = [
    headline(items),
    '',
    ...(usages.length > 0 ? [usageMarkdown(totalUsage(usages), 'Usage, all runs'), ''] : []),
    '| Run | Outcome | Status | Verdict | Duration | Pull request | Link |',
    '|---|---|---|---|---|---|---|',
    ...items.map(tableRow),
    ''
  ].join('\n')
  let room = maxBytes - Buffer.byteLength(table) - 1_000
  const started = items.filter(item => item.report)
  const folds = new Map<ItemReport, string>()
  // Twice: an equal share each, then what the short ones left to those that were cut.
  let cutOnes = started
  let lastShare = 0
  for (let pass = 0; pass < 2 && cutOnes.length > 0; pass++) {
    const share = Math.max(2_000, Math.floor(room / cutOnes.length) - FOLD_OVERHEAD)
    // A second pass that would add little room is not worth rendering the cut runs again.
    if (share < lastShare * 1.2) break
    lastShare = share
    const nextCut: ItemReport[] = []
    for (const item of cutOnes) {
      const fold = foldOf(item, share)
      folds.set(item, fold.markdown)
      if (fold.cut) nextCut.push(item)
    }
    room = maxBytes - Buffer.byteLength(table) - 1_000
    for (const [item, markdown] of folds) if (!nextCut.includes(item)) room -= Buffer.byteLength(markdown)
    cutOnes = nextCut
  }
  const body = started.map(item => folds.get(item) ?? '').join('\n')
  return fitBytes(`${table}\n${body}`, maxBytes)
}

/** One run's own summary (its error, result, summary and timeline) under a <details> titled with its name. */
function foldOf(item: ItemReport, maxBytes: number): { markdown: string; cut: boolean } {
  const report = item.report as NonNullable<ItemReport['report']>
  // Texts cut to a part of the share first, so that the timeline keeps room and the work done is
  // that of what shows: rendering 60,000 characters of each of 100 results to keep 9 KB of each
  // would take seconds. `trimmed`'s note keeps the true count when the summary cuts again.
  const part = (text: string | null | undefined): string | null | undefined =>
    text ? trimmed(text, Math.floor(maxBytes / TEXT_SHARE)) : text
  const run = report.run && {
    ...report.run,
    result: part(report.run.result),
    summary: part(report.run.summary)
  }
  const own = renderSummary({
    report: {
      ...report,
      ...(run ? { run } : {}),
      ...(report.error ? { error: part(report.error) as string } : {})
    },
    ...timelineWithin(item, maxBytes),
    maxBytes,
    // Its headline and facts table are the fold's title and the table's row already.
    folded: true
  })
  // A summary cut to its share fills most of it: such a run gets more room in the second pass.
  const cut = Buffer.byteLength(own) >= maxBytes * 0.8
  // HTML, not Markdown: the name sits in a <summary>.
  const title = `<b>${htmlInline(oneLine(item.name, NAME_CHARS))}</b> · ${ICONS[itemOutcome(item)]} ${itemOutcome(item)}`
  return { markdown: `<details><summary>${title}</summary>\n\n${own}\n\n</details>\n`, cut }
}

/** Result, summary and error each take at most this share of a fold (a quarter: UTF-8 is up to 3 bytes a character). */
const TEXT_SHARE = 4
/** An entry of the timeline takes a few KB at most: no more of them are rendered than the fold can show. */
const ENTRY_BYTES = 1_500

/**
 * The entries a fold can show: its first and last ones, as many as its share holds, the rest
 * counted as left out (one gap, where the kept log already had its own).
 */
function timelineWithin(
  item: ItemReport,
  maxBytes: number
): { entries?: LogEntry[]; entriesLeftOut?: { after: number; count: number } } {
  const entries = item.entries
  if (!entries) return {}
  const room = Math.max(2, Math.floor(maxBytes / 2 / ENTRY_BYTES))
  if (entries.length <= room)
    return { entries, ...(item.entriesLeftOut ? { entriesLeftOut: item.entriesLeftOut } : {}) }
  // Entries before the kept log's own gap belong to the head: the tail never reaches past it.
  const gapAt = item.entriesLeftOut?.after ?? entries.length
  const head = entries.slice(0, Math.min(Math.ceil(room / 2), gapAt))
  const tailFloor = item.entriesLeftOut ? gapAt : head.length
  const tail = entries.slice(Math.max(tailFloor, entries.length - (room - head.length)))
  const dropped = entries.length - head.length - tail.length
  return {
    entries: [...head, ...tail],
    entriesLeftOut: { after: head.length, count: (item.entriesLeftOut?.count ?? 0) + dropped }
  }
}

/**
 * The console's line of every run's state, once a minute: how many are queued, working and ended,
 * then each run by name with its status or outcome; one line, the service's text unable to issue
 * commands.
 */
export function runsStateLine(states: readonly ItemState[], elapsedMs: number): string {
  const shown = states.map(state => {
    const name = inlineText(oneLine(state.name, 40))
    if (state.phase === 'queued') return `${name}: queued`
    if (state.phase === 'ended') return `${name}: ${state.outcome ?? 'ended'}`
    return `${name}: ${statusText(state.status ?? 'starting')}`
  })
  const of = (phase: ItemState['phase']): number => states.filter(state => state.phase === phase).length
  return `Agent runs after ${formatDuration(elapsedMs)}: ${of('working')} working, ${of('ended')} ended, ${of('queued')} queued | ${shown.join(' | ')}`
}

/** An item as the last line of states shows it, once every run ended (or never started). */
export function endedState(item: ItemReport): ItemState {
  return { name: item.name, phase: 'ended', status: item.report?.status ?? null, outcome: itemOutcome(item) }
}

/** The job log of one run of a fan-out: every line begins with the run's name. */
export function namedConsole(console: Console, name: string): Console {
  const tag = `[${inlineText(oneLine(name, 40))}] `
  return {
    info: line => console.info(tag + line),
    group: (title, lines) => console.group(tag + title, lines),
    notice: message => console.notice(tag + message),
    warning: message => console.warning(tag + message),
    debug: message => console.debug(tag + message)
  }
}

/**
 * The step's error annotation: how many runs failed it, then each by name with why (its error, or
 * the first line of its result) and where it is, and below it the lines `more` holds (a paused
 * run's question and how to answer it, already one line each).
 */
export function itemsFailMessage(
  failing: ReadonlyArray<{ item: ItemReport; reason: string; more?: readonly string[] }>,
  total: number
): string {
  const lines = failing.flatMap(({ item, reason, more = [] }) => {
    const run = item.report?.run
    const result = itemOutcome(item) === 'failure' ? firstLine(run?.result) || firstLine(run?.summary) : ''
    // rejected quotes the agent's reason; invalid-output names the first problem.
    const answer = item.report?.answer ? firstLine(answerAnnotation(item.report.answer)) : ''
    const where = run
      ? ` (agent run ${run.id}${run.web_url ? `: ${inlineText(oneLine(run.web_url, 500))}` : ''})`
      : ''
    return [
      `- ${inlineText(oneLine(item.name, NAME_CHARS))}: ${itemOutcome(item)}, ${firstLine(reason)}${result ? ` Result: ${result}` : ''}${answer ? ` ${answer}` : ''}${where}`,
      ...more.map(line => `  ${line}`)
    ]
  })
  return [`${failing.length} of ${count(total, 'agent run', 'agent runs')} failed the step:`, ...lines].join(
    '\n'
  )
}
