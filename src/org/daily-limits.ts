import type { AgentRun, Page } from '../api/types.js'
import type { LimitName } from '../model.js'
import type { DailyLimits } from '../settings/settings.js'

export type { DailyLimits } from '../settings/settings.js'

/**
 * The daily limits on new runs (`daily-run-limit`, `daily-run-limit-per-author`): how many runs this
 * repository (and this author) started in the last 24 hours, counted from the organization's runs,
 * newest first, by the origin the action records under `metadata.github_action`. A CI fix's
 * `max-fix-attempts` is counted the same way: the CI-fix runs of this repository for its branch
 * (`metadata.github_action.ci_fix.branch`).
 */

export const DAY_MS = 24 * 60 * 60 * 1000

/** Whose runs count: this repository's, and of those, this author's (and a CI fix's branch's). */
export interface Origin {
  repository: string
  author: string
  /** A CI fix: its branch, whose CI-fix runs max-fix-attempts counts. */
  fixBranch?: string
}

export type LimitCheck =
  | { kind: 'within' }
  | {
      kind: 'limited'
      which: 'repository' | 'author' | 'fix-attempts'
      limit: number
      /** Runs counted in the window (at least the limit). */
      count: number
      /** Epoch ms when the oldest run that holds the limit leaves the window. */
      nextAt: number
    }
  | {
      /** The window could not be read to its end within MAX_LIMIT_PAGES: no count, no start. */
      kind: 'uncounted'
      which: 'repository' | 'author' | 'fix-attempts'
      limit: number
    }

export const LIMIT_PAGE_SIZE = 100
/**
 * Pages read at most (20, the newest 2,000 runs): a third of the 60 requests a minute the service
 * allows a token, and twice what the largest limit (MAX_DAILY_RUN_LIMIT) needs. A day the pages do
 * not reach the end of is not counted at all: nothing starts (`uncounted`), for a count stopped short
 * would let the runs behind it go uncounted.
 */
export const MAX_LIMIT_PAGES = 20
/** The runs MAX_LIMIT_PAGES hold. */
export const MAX_LIMIT_RUNS = MAX_LIMIT_PAGES * LIMIT_PAGE_SIZE

/** The service's time of a run ("2025-06-21 11:20:04.338000", UTC without a zone), or NaN. */
export function runTime(createdAt: string | null | undefined): number {
  if (typeof createdAt !== 'string') return NaN
  const text = createdAt.trim().replace(' ', 'T')
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`)
}

/** The origin the action recorded on a run, if it recorded one (a CI fix's branch with it). */
function originOf(run: AgentRun): { repository?: string; author?: string; fixBranch?: string } | undefined {
  const recorded = run.metadata?.github_action
  if (typeof recorded !== 'object' || recorded === null) return undefined
  const fields = recorded as Record<string, unknown>
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
  const fix = fields.ci_fix
  const fixBranch =
    typeof fix === 'object' && fix !== null ? text((fix as Record<string, unknown>).branch) : undefined
  return { repository: text(fields.repository), author: text(fields.author) ?? text(fields.actor), fixBranch }
}

const same = (a: string | undefined, b: string): boolean =>
  a !== undefined && a.toLowerCase() === b.toLowerCase()

/**
 * The times (epoch ms) of the runs counted in the window: this repository's, and of those this
 * author's and the CI-fix runs of the fix's branch (none unless the origin names one).
 */
export interface DailyWindow {
  repository: number[]
  author: number[]
  fixes: number[]
  /** Whether the read reached the window's end (or a short page); false when MAX_LIMIT_PAGES ran out first. */
  complete: boolean
}

/**
 * The runs of the last 24 hours, read page by page, newest first, while the pages are full (an item
 * that could not be read, left out, still filled its page) and until the window is passed by runs in
 * order: two in a row older than it, the second no newer than the first. A run alone listed out of
 * order with an old time is skipped, not taken for the window's end, so the runs after it count.
 * A run whose time cannot be read counts (the limit errs on the side of starting less). At most
 * MAX_LIMIT_PAGES are read: a window still going on after them is not `complete`. Reads nothing when
 * neither limit is set and no CI fix is counted.
 */
export async function readDailyWindow(
  list: (skip: number, limit: number) => Promise<Page<AgentRun>>,
  origin: Origin,
  limits: DailyLimits,
  now: number
): Promise<DailyWindow> {
  const window: DailyWindow = { repository: [], author: [], fixes: [], complete: true }
  if (limits.perRepository <= 0 && limits.perAuthor <= 0 && origin.fixBranch === undefined) return window
  const since = now - DAY_MS
  // The time of the last run read whose time could be read, across pages.
  let previous = NaN
  window.complete = false
  for (let page = 0; page < MAX_LIMIT_PAGES && !window.complete; page++) {
    const answer = await list(page * LIMIT_PAGE_SIZE, LIMIT_PAGE_SIZE)
    let passed = false
    for (const run of answer.items) {
      const at = runTime(run.created_at)
      if (at < since) {
        passed = previous < since && at <= previous
        if (passed) break
        previous = at
        continue
      }
      if (!Number.isNaN(at)) previous = at
      const recorded = originOf(run)
      if (!recorded || !same(recorded.repository, origin.repository)) continue
      // Unreadable times count as now: they hold the limit for a whole day.
      const time = Number.isNaN(at) ? now : at
      window.repository.push(time)
      if (same(recorded.author, origin.author)) window.author.push(time)
      // Branch names are case-sensitive in git.
      if (origin.fixBranch !== undefined && recorded.fixBranch === origin.fixBranch) window.fixes.push(time)
    }
    window.complete = passed || (answer.sent ?? answer.items.length) < LIMIT_PAGE_SIZE
  }
  return window
}

/**
 * Whether one more run may start, the runs of the window counted (this step's own starts among
 * them); a CI fix's attempts first (`maxFixAttempts`, 0 for a run that is no CI fix). A window not
 * read to its end shows a limit reached when the runs read reach it, and no run within one: the
 * first limit set is `uncounted`.
 */
export function limitCheck(window: DailyWindow, limits: DailyLimits, maxFixAttempts = 0): LimitCheck {
  const reached =
    limitedBy('fix-attempts', maxFixAttempts, window.fixes) ??
    limitedBy('repository', limits.perRepository, window.repository) ??
    limitedBy('author', limits.perAuthor, window.author)
  if (reached || window.complete) return reached ?? { kind: 'within' }
  const set = (
    [
      ['fix-attempts', maxFixAttempts],
      ['repository', limits.perRepository],
      ['author', limits.perAuthor]
    ] as const
  ).find(([, limit]) => limit > 0)
  // readDailyWindow reads nothing (complete) when no limit is set: one is.
  const [which, limit] = set ?? ['repository', limits.perRepository]
  return { kind: 'uncounted', which, limit }
}

/** At the limit: when the next run may start, once enough of the newest runs leave the window. */
function limitedBy(
  which: 'repository' | 'author' | 'fix-attempts',
  limit: number,
  times: number[]
): LimitCheck | undefined {
  if (limit <= 0 || times.length < limit) return undefined
  // Newest first: below the limit again once the limit-th newest run leaves the window.
  const sorted = [...times].sort((a, b) => b - a)
  return {
    kind: 'limited',
    which,
    limit,
    count: times.length,
    nextAt: (sorted[limit - 1] as number) + DAY_MS
  }
}

/**
 * What the notice, the summary, the comment and the check say of a run not started at a limit:
 * which limit, how many runs, and when the next one can start (UTC).
 */
export function limitedMessage(check: Exclude<LimitCheck, { kind: 'within' }>, origin: Origin): string {
  if (check.kind === 'uncounted') return uncountedMessage(check, origin)
  // Up to the minute: the time shown is never before the run may start.
  const next = new Date(Math.ceil(check.nextAt / 60_000) * 60_000)
    .toISOString()
    .slice(0, 16)
    .replace('T', ' ')
  const runs = `${check.count} ${check.count === 1 ? 'run' : 'runs'}`
  if (check.which === 'fix-attempts')
    return `No agent run was started: max-fix-attempts (${check.limit}) is reached, with ${check.count} CI-fix ${check.count === 1 ? 'run' : 'runs'} started for the branch ${(origin.fixBranch ?? '').slice(0, 200)} of ${origin.repository} in the last 24 hours. The next can start at ${next} UTC.`
  const whose =
    check.which === 'repository'
      ? `${runs} started from ${origin.repository}`
      : `${runs} started by ${origin.author} from ${origin.repository}`
  return `No agent run was started: ${LIMIT_INPUTS[check.which]} (${check.limit}) is reached, with ${whose} in the last 24 hours. The next run can start at ${next} UTC.`
}

/** Why nothing started when the window could not be read to its end within MAX_LIMIT_PAGES. */
function uncountedMessage(check: Extract<LimitCheck, { kind: 'uncounted' }>, origin: Origin): string {
  const counted =
    check.which === 'fix-attempts'
      ? `the CI-fix runs of the branch ${(origin.fixBranch ?? '').slice(0, 200)} of ${origin.repository}`
      : check.which === 'repository'
        ? `the runs started from ${origin.repository}`
        : `the runs started by ${origin.author} from ${origin.repository}`
  const runs = MAX_LIMIT_RUNS.toLocaleString('en-US')
  return `No agent run was started: ${LIMIT_INPUTS[check.which]} (${check.limit}) could not be counted. The organization's newest ${runs} runs (${MAX_LIMIT_PAGES} pages, as many as the action reads) are all of the last 24 hours, so ${counted} behind them are unknown. A run can start once the organization has started fewer than ${runs} runs in 24 hours.`
}

/** The input each limit is set by. */
export const LIMIT_INPUTS = {
  repository: 'daily-run-limit',
  author: 'daily-run-limit-per-author',
  'fix-attempts': 'max-fix-attempts'
} as const satisfies Record<Exclude<LimitCheck, { kind: 'within' }>['which'], LimitName>
