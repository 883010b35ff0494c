import { problemLine, readAnswer, type Answer, type AnswerSpec } from '../answer/answer.js'
import { CHECK_MS, type AnswerChecker } from '../answer/check.js'
import { repairPrompt } from '../answer/answer-prompt.js'
import type { RunEvents, RunBrief, RunReport } from '../model.js'
import { followRun, type FollowDeps } from './follow.js'
import { startRun, type Start, type StartDeps } from './start.js'

/**
 * The answer of a run the step asked for one (verdict, output-schema), read from the result of the
 * run once it completed. While none is valid, the run is resumed with a repair follow-up (up to
 * `spec.retries` times) and followed like any resume: its guard keeps the earlier result from being
 * read as the new one. The outcome then says what the answer said: rejected when the verdict is
 * fail, invalid-output when no valid answer came.
 */
export async function settleAnswer(
  first: RunReport,
  brief: RunBrief,
  spec: AnswerSpec,
  deps: { start: StartDeps; follow: FollowDeps; check: AnswerChecker }
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
    const answer = await readAnswer(report.run.result, spec, value => checkInTime(value, spec, deps))
    if (deps.follow.signal?.aborted) return cancelledWhileChecking(report, answered(answer))
    if (answer.valid) {
      return {
        ...report,
        outcome: answer.verdict === 'fail' ? 'rejected' : 'success',
        answer: answered(answer)
      }
    }
    // A check that could not finish is not the agent's to repair: it is reported as it is.
    if (repairs.length >= spec.retries || answer.problem.kind === 'unchecked')
      return { ...report, outcome: 'invalid-output', answer: answered(answer) }
    last = answer
    repairs.push(problemLine(answer.problem))
    deps.follow.events.repairAsked(problemLine(answer.problem), repairs.length, spec.retries)
    // A repair resumes this run, never another: a thread carried on in a fresh run is carried no further.
    const repair: RunBrief = {
      ...brief,
      carryOn: undefined,
      prompt: repairPrompt(spec, answer.problem),
      images: [],
      resumeRunId: report.run.id,
      orgId: report.orgId ?? brief.orgId
    }
    const started = await startRun(repair, deps.start)
    if (started.kind === 'not-started') {
      const ended = repairNotStarted(report, started, deps.follow.events)
      // Refused, the agent was never asked: no repair to tell of.
      if (started.refusedResume) repairs.pop()
      return { ...ended, answer: answered(answer) }
    }
    const next = await followRun(started, repair, deps.follow)
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

/**
 * A repair that could not start keeps the completed run as it ended (id, status, result, pull
 * requests). Refused by the service (the live one may resume paused runs only), the run is
 * reported without a valid answer and the user warned; else (the step cut short, the service
 * unreachable) the ending is the start's, with its reason.
 */
function repairNotStarted(
  completed: RunReport,
  start: Extract<Start, { kind: 'not-started' }>,
  events: RunEvents
): RunReport {
  const endedAt = start.report.endedAt
  if (start.refusedResume !== undefined) {
    const id = completed.run?.id
    events.warning(
      `Agent run ${id} completed without a valid answer, and the service would not resume it to ask for one (${start.refusedResume}): it is reported as it completed.`
    )
    return { ...completed, outcome: 'invalid-output', endedAt }
  }
  const { outcome, error, httpStatus } = start.report
  return {
    ...completed,
    outcome,
    endedAt,
    ...(error !== undefined ? { error } : {}),
    ...(httpStatus !== undefined ? { httpStatus } : {})
  }
}

/**
 * The answer checked within the time left before the step's deadline, CHECK_MS at most (and a
 * second at least: a run that completed just in time still has its answer read), stopped when the
 * job is cancelled.
 */
function checkInTime(
  value: unknown,
  spec: AnswerSpec,
  { check, follow }: { check: AnswerChecker; follow: FollowDeps }
): ReturnType<AnswerChecker> {
  const left = follow.deadline - follow.clock.now()
  return check(spec.schema, value, {
    timeoutMs: Math.max(1_000, Math.min(CHECK_MS, left)),
    signal: follow.signal ?? new AbortController().signal
  })
}

/** The job was cancelled while the answer was checked: the step's outcome is cancelled, as any other. */
function cancelledWhileChecking(report: RunReport, answer: RunReport['answer']): RunReport {
  return {
    ...report,
    outcome: 'cancelled',
    error: "The job was cancelled while the agent run's answer was being checked.",
    answer
  }
}
