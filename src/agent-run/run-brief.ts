import type { AnswerSpec } from '../answer/answer.js'
import type { AnswerChecker } from '../answer/check.js'
import { withAnswerFormat } from '../answer/answer-prompt.js'
import {
  reportOf,
  unexpectedEnding,
  type ReportFields,
  type RunBrief,
  type RunEvents,
  type RunReport
} from '../model.js'
import { planDigest } from '../thread/plan.js'
import { settleAnswer } from './answer-run.js'
import { followRun, type FollowDeps } from './follow.js'
import { errorBeforeRun, startRun, type StartDeps } from './start.js'

/**
 * One run from its brief to its report, the same for a run alone and for each item of `runs`: start
 * it (startRun), follow it to its end (followRun, alone or among many: `follow.watch`), and, asked
 * for an answer, read it and ask again while it is not valid (settleAnswer). No throw ends it
 * unreported: the run as last seen, with what went wrong.
 */

export interface RunDeps {
  start: StartDeps
  follow: FollowDeps
  /** verdict or output-schema: the answer asked of the agent, and where it is checked. */
  answer?: { spec: AnswerSpec; check: AnswerChecker }
}

export async function runBrief(given: RunBrief, deps: RunDeps): Promise<RunReport> {
  return withPlan(await briefToReport(given, deps), given, deps.follow.events)
}

async function briefToReport(given: RunBrief, deps: RunDeps): Promise<RunReport> {
  const brief = asking(given, deps.answer?.spec)
  let last: RunReport | undefined
  try {
    const started = await startRun(brief, deps.start)
    if (started.kind === 'not-started') return started.report
    last = await followRun(started, brief, deps.follow)
    if (!deps.answer || !brief.wait) return last
    return await settleAnswer(last, brief, deps.answer.spec, { ...deps, check: deps.answer.check })
  } catch (error) {
    return thrownEnding(error, last, deps.follow.clock.now())
  }
}

/**
 * Plan, then approve: a plan's run that succeeded ends `planned`, its result the plan (none is an
 * error; pull requests it opened anyway are warned of); an approved plan's run, however it ends,
 * says which plan it carried out, who asked for it and who approved it.
 */
export function withPlan(report: RunReport, brief: RunBrief, events: Pick<RunEvents, 'warning'>): RunReport {
  const plan = brief.plan
  if (!plan) return report
  if (plan.kind === 'approve') {
    const { text, digest, askedBy } = plan.plan
    return { ...report, plan: { text, digest, askedBy, approvedBy: plan.approvedBy } }
  }
  if (report.outcome !== 'success' || !report.run) return report
  const text = report.run.result ?? ''
  if (!text.trim())
    return {
      ...report,
      outcome: 'error',
      error: `Agent run ${report.run.id} was asked for a plan and completed without one: its result is empty. Nothing awaits approval; ask for a plan again.`
    }
  const pullRequests = report.run.github_pull_requests?.length ?? 0
  if (pullRequests > 0)
    events.warning(
      `Agent run ${report.run.id} was asked for a plan only, yet opened ${pullRequests === 1 ? 'a pull request' : `${pullRequests} pull requests`}: look at ${pullRequests === 1 ? 'it' : 'them'} before approving the plan.`
    )
  return {
    ...report,
    outcome: 'planned',
    plan: {
      text,
      digest: planDigest(text),
      // A revision: its run's metadata names who asked first; the revision's asker is named too.
      askedBy: plan.revises?.askedBy || plan.askedBy,
      ...(plan.revises ? { revisedBy: plan.askedBy, earlier: plan.revises.text } : {}),
      ...(pullRequests > 0 ? { pullRequests } : {})
    }
  }
}

/**
 * The brief with the answer-format section at the end of its prompts, the one place it is added:
 * verdict or output-schema ask each run, a thread's carried-on one too, for an answer (repairs ask
 * again in their own words).
 */
function asking(brief: RunBrief, spec: AnswerSpec | undefined): RunBrief {
  if (!spec) return brief
  const carryOn = brief.carryOn && { ...brief.carryOn, prompt: withAnswerFormat(brief.carryOn.prompt, spec) }
  return { ...brief, prompt: withAnswerFormat(brief.prompt, spec), ...(carryOn ? { carryOn } : {}) }
}

/** A deadline, a cancellation or the service's refusal ends the run so; any other throw is unexpected. */
function thrownEnding(error: unknown, last: RunReport | undefined, now: number): RunReport {
  let fields: ReportFields
  try {
    fields = errorBeforeRun(error)
  } catch {
    return unexpectedEnding(error, last, now)
  }
  return last ? { ...last, ...fields, endedAt: now } : reportOf(fields, now)
}

/**
 * The report with the thread's images that went with its run: the carried-on run's when the resume
 * was refused, else the brief's; none when no run started.
 */
export function withThreadImages(report: RunReport, brief: RunBrief): RunReport {
  if (report.run === undefined) return report
  const images = report.carriedFrom ? brief.carryOn?.threadImages : brief.threadImages
  return images ? { ...report, threadImages: images } : report
}
