import { problemLine, readAnswer, type Answer, type AnswerSpec } from '../answer/answer.js'
import { repairPrompt } from '../answer/prompt.js'
import type { RunPlan, RunReport } from '../model.js'
import { followRun, type FollowDeps } from './follow.js'
import { startRun, type StartDeps } from './start.js'

/**
 * The answer of a run the step asked for one (verdict, output-schema), read from the result of the
 * run once it completed. While none is valid, the run is resumed with a repair follow-up (up to
 * `spec.retries` times) and followed like any resume: its guard keeps the earlier result from being
 * read as the new one. The outcome then says what the answer said: rejected when the verdict is
 * fail, invalid-output when no valid answer came.
 */
export async function settleAnswer(
  first: RunReport,
  plan: RunPlan,
  spec: AnswerSpec,
  deps: { start: StartDeps; follow: FollowDeps }
): Promise<RunReport> {
  let report = first
  let last: Answer | undefined
  const repairs: string[] = []
  const answered = (answer: Answer): RunReport['answer'] => ({
    verdictAsked: spec.verdict,
    answer,
    repairs: [...repairs]
  })
  for (;;) {
    // Only a completed run has an answer; any other ending is reported as it is (with the last
    // invalid answer, when a repair was asked and did not complete).
    if (report.outcome !== 'success' || !report.run)
      return last ? { ...report, answer: answered(last) } : report
    const answer = readAnswer(report.run.result, spec)
    if (answer.valid) {
      return {
        ...report,
        outcome: answer.verdict === 'fail' ? 'rejected' : 'success',
        answer: answered(answer)
      }
    }
    if (repairs.length >= spec.retries)
      return { ...report, outcome: 'invalid-output', answer: answered(answer) }
    last = answer
    repairs.push(problemLine(answer.problem))
    deps.follow.events.repairAsked(problemLine(answer.problem), repairs.length, spec.retries)
    const repair: RunPlan = {
      ...plan,
      prompt: repairPrompt(spec, answer.problem),
      images: [],
      resumeRunId: report.run.id,
      orgId: report.orgId ?? plan.orgId
    }
    const started = await startRun(repair, deps.start)
    const next = started.kind === 'started' ? await followRun(started, repair, deps.follow) : started.report
    // One step, one report: from the first start to the last ending, every entry mirrored.
    report = {
      ...next,
      mode: first.mode,
      startedAt: first.startedAt,
      repoId: first.repoId,
      entriesSeen: report.entriesSeen + next.entriesSeen
    }
  }
}
