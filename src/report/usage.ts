import type { LogEntry } from '../api/types.js'
import type { Usage } from '../model.js'
import { cutChars, formatDuration } from './entry-text.js'
import { plainInline } from './markdown.js'

/**
 * What a run did (Usage, model.ts), counted from its log and its report, for the `usage` output and
 * the usage line of the summary, the tracking comment and the check. The service publishes no cost
 * or token figures, so none are estimated here.
 */

export type { Usage } from '../model.js'
export const TOP_TOOLS = 5

/** Distinct tool names counted at most: a hostile log cannot grow the tally past this. */
const MAX_TOOL_NAMES = 1_000
/** A tool name's characters kept: names are the service's text. */
const MAX_TOOL_NAME = 100
/** What the names past MAX_TOOL_NAMES are counted as. */
export const OTHER_TOOLS = '(other tools)'

/**
 * The log's counts, kept as entries arrive (the mirror keeps only the first and last entries of a
 * long log): constant work an entry, memory bounded by MAX_TOOL_NAMES.
 */
export class UsageTally {
  private entries = 0
  private calls = 0
  private errorCount = 0
  private readonly tools = new Map<string, number>()

  add(entries: readonly LogEntry[]): void {
    for (const entry of entries) {
      this.entries++
      const type = typeof entry.message_type === 'string' ? entry.message_type.toUpperCase() : ''
      if (type === 'ERROR') this.errorCount++
      if (type !== 'ACTION') continue
      this.calls++
      this.countTool(toolName(entry.tool_name))
    }
  }

  private countTool(name: string): void {
    const known = this.tools.get(name)
    if (known !== undefined) this.tools.set(name, known + 1)
    else if (this.tools.size < MAX_TOOL_NAMES) this.tools.set(name, 1)
    else this.tools.set(OTHER_TOOLS, (this.tools.get(OTHER_TOOLS) ?? 0) + 1)
  }

  /** The tally with what the report knows: how long, which pull requests, which follow-ups. */
  usage(facts: { durationMs: number; pullRequests: number; resumes: number; repairs: number }): Usage {
    const topTools = [...this.tools]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, TOP_TOOLS)
    return {
      durationMs: Math.max(0, facts.durationMs),
      logEntries: this.entries,
      toolCalls: this.calls,
      topTools,
      errors: this.errorCount,
      pullRequests: facts.pullRequests,
      resumes: facts.resumes,
      repairs: facts.repairs
    }
  }
}

/** A tool's name as counted: one line, bounded, cut at a code point; an ACTION without one is "(unnamed)". */
function toolName(name: unknown): string {
  if (typeof name !== 'string') return '(unnamed)'
  const line = cutChars(name, MAX_TOOL_NAME * 2)
    .replace(/\s+/g, ' ')
    .trim()
  return cutChars(line, MAX_TOOL_NAME) || '(unnamed)'
}

/** Many runs' usage together: sums, and the tools most used across them. */
export function totalUsage(usages: readonly Usage[]): Usage {
  const tools = new Map<string, number>()
  for (const usage of usages)
    for (const { name, count } of usage.topTools) tools.set(name, (tools.get(name) ?? 0) + count)
  const sum = (pick: (usage: Usage) => number): number => usages.reduce((total, u) => total + pick(u), 0)
  return {
    durationMs: usages.reduce((longest, u) => Math.max(longest, u.durationMs), 0),
    logEntries: sum(u => u.logEntries),
    toolCalls: sum(u => u.toolCalls),
    topTools: [...tools]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, TOP_TOOLS),
    errors: sum(u => u.errors),
    pullRequests: sum(u => u.pullRequests),
    resumes: sum(u => u.resumes),
    repairs: sum(u => u.repairs)
  }
}

/** The `usage` output: compact JSON with snake_case keys, as the service names its own fields. */
export function usageJson(usage: Usage): string {
  return JSON.stringify(usageFields(usage))
}

/** The `usage` output's object (also each item's `usage` in the `runs` output). */
export function usageFields(usage: Usage): Record<string, unknown> {
  return {
    duration_seconds: Math.round(usage.durationMs / 1000),
    log_entries: usage.logEntries,
    tool_calls: usage.toolCalls,
    top_tools: usage.topTools,
    errors: usage.errors,
    pull_requests: usage.pullRequests,
    resumes: usage.resumes,
    repairs: usage.repairs
  }
}

/** One line for a reader: "6 tool calls (edit_file 3, run_tests 2, grep 1) · 0 errors · 1 pull request · 42 s". */
export function usageLine(usage: Usage, duration: (ms: number) => string): string {
  const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`
  const tools = usage.topTools.map(tool => `${tool.name} ${tool.count}`).join(', ')
  const followUps = usage.resumes + usage.repairs
  return [
    `${plural(usage.toolCalls, 'tool call', 'tool calls')}${tools ? ` (${tools})` : ''}`,
    plural(usage.logEntries, 'log entry', 'log entries'),
    plural(usage.errors, 'error', 'errors'),
    plural(usage.pullRequests, 'pull request', 'pull requests'),
    ...(followUps > 0
      ? [`${plural(usage.resumes, 'resume', 'resumes')}, ${plural(usage.repairs, 'repair', 'repairs')}`]
      : []),
    duration(usage.durationMs)
  ].join(' · ')
}

/** The usage line as Markdown for the summary, the comment and the check: tool names are the service's text, shown literally. */
export function usageMarkdown(usage: Usage, label = 'Usage'): string {
  return `**${label}:** ${plainInline(usageLine(usage, formatDuration))}`
}
