import type { AgentRun } from '../api/types.js'
import { paragraphs } from '../text.js'
import { reportOf, type PlanBrief, type RunBrief, type RunReport, type ShownPlan } from '../model.js'
import { discoverOrganization } from '../org/organizations.js'
import { planDigest } from '../thread/plan.js'
import { approvedPlanSection, revisedPlanSection } from '../thread/plan-prompt.js'
import { runBrief, type RunDeps } from './run-brief.js'
import { errorBeforeRun } from './start.js'
import { METADATA_KEY } from './send-once.js'

/**
 * Plan, then approve, on the service's side: a revision or an approval names the plan the tracking
 * comment showed by its run and digest alone; its whole text is the plan's run's result, read here
 * before anything is sent and checked against the digest (a plan that is not the one shown is never
 * carried out), who asked is the plan's run's metadata. Then the brief, its prompts holding the plan
 * whole, goes through runBrief as any other.
 */

/** The metadata (under github_action) a plan's run records who asked for it in; a carried-on run too. */
export const PLAN_ASKED_BY = 'plan_asked_by'

/** Runs the brief; a revision's or an approval's once the plan it names was read and found the one shown. */
export async function runWithPlan(brief: RunBrief, deps: RunDeps): Promise<RunReport> {
  const shown = shownPlanOf(brief.plan)
  if (!shown) return runBrief(brief, deps)
  const { start } = deps
  const startedAt = start.clock.now()
  const ended = (fields: Parameters<typeof reportOf>[0]): RunReport =>
    reportOf(fields, startedAt, start.clock.now())
  try {
    const options = { deadline: start.deadline }
    const found =
      brief.orgId === undefined
        ? await discoverOrganization(start.apis, options, start.notice)
        : { orgId: brief.orgId }
    if ('error' in found) return ended({ outcome: 'error', ...found })
    const run = await start.apis(found.orgId).getRun(shown.runId, options)
    const read = readShownPlan(shown, run)
    if ('mismatch' in read) return ended({ outcome: 'error', error: read.mismatch, orgId: found.orgId })
    const planned = plannedBrief({ ...brief, orgId: found.orgId }, read)
    if ('refused' in planned)
      return ended({ outcome: 'skipped', reason: planned.refused, orgId: found.orgId })
    return await runBrief(planned, deps)
  } catch (error) {
    return ended(errorBeforeRun(error))
  }
}

/** The plan a brief names and must read first: a revision's, or an approval's. */
function shownPlanOf(plan: PlanBrief | undefined): ShownPlan | undefined {
  if (plan?.kind === 'approve') return plan.plan
  return plan?.revises
}

/**
 * The shown plan as its run holds it: the run's result whole, when its digest is the marker's; who
 * asked, from the metadata the plan's run was created with.
 */
export function readShownPlan(shown: ShownPlan, run: AgentRun): ShownPlan | { mismatch: string } {
  const text = run.result ?? ''
  if (!text || planDigest(text) !== shown.digest)
    return {
      mismatch: `Agent run ${shown.runId}'s plan is not the one the tracking comment showed (plan ${shown.digest}${text ? `; the run's result now reads as plan ${planDigest(text)}` : '; the run has no result now'}): nothing was carried out. Ask for the plan again with a plan request.`
    }
  const origin = run.metadata?.[METADATA_KEY]
  const asked = origin && typeof origin === 'object' ? (origin as Record<string, unknown>) : {}
  const askedBy = [asked[PLAN_ASKED_BY], asked.author].find(
    (login): login is string => typeof login === 'string' && login !== ''
  )
  return { ...shown, text, askedBy: askedBy ?? shown.askedBy }
}

/**
 * The brief with the plan read: a revision's fresh run carries the plan to revise whole; an approval's
 * prompts carry the approved plan whole (the resume and the fresh run alike), its metadata the
 * digest, who asked and who approved (a resume sends no metadata: the resume's prompt says them).
 * An approval by the plan's asker is refused when allow-self-approval is false.
 */
export function plannedBrief(brief: RunBrief, shown: ShownPlan): RunBrief | { refused: string } {
  const plan = brief.plan as PlanBrief
  const asked: Record<string, string> = shown.askedBy ? { [PLAN_ASKED_BY]: shown.askedBy } : {}
  if (plan.kind === 'plan') {
    const carryOn = brief.carryOn && { prompt: paragraphs(brief.carryOn.prompt, revisedPlanSection(shown)) }
    return {
      ...brief,
      plan: { ...plan, revises: shown },
      origin: { ...brief.origin, ...asked },
      ...(carryOn ? { carryOn } : {})
    }
  }
  if (plan.askerRefused !== undefined && sameLogin(shown.askedBy, plan.approvedBy))
    return {
      refused: `@${plan.approvedBy} asked for this plan, and allow-self-approval is false: ${plan.askerRefused}`
    }
  // Who asked unknown (the service kept no metadata): allow-self-approval false cannot hold, so no one may.
  if (plan.askerRefused !== undefined && !shown.askedBy)
    return {
      refused: `Agent run ${shown.runId}'s metadata does not say who asked for this plan, and allow-self-approval is false: nothing was carried out, as @${plan.approvedBy} may have asked for it. Ask for the plan again with a plan request.`
    }
  const section = approvedPlanSection(shown, plan.approvedBy, plan.extra)
  return {
    ...brief,
    plan: { ...plan, plan: shown },
    prompt: paragraphs(brief.prompt, section),
    carryOn: { prompt: paragraphs(brief.carryOn?.prompt ?? '', section) },
    origin: {
      ...brief.origin,
      ...asked,
      plan_digest: shown.digest,
      plan_run_id: String(shown.runId),
      plan_approved_by: plan.approvedBy
    }
  }
}

const sameLogin = (a: string, b: string): boolean => a !== '' && a.toLowerCase() === b.toLowerCase()
