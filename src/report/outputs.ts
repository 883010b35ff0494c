import type { RunReport } from '../model.js'
import type { Runner } from '../runner/runner.js'
import type { LogMirror } from './log-mirror.js'
import type { Reporter } from './reporters.js'
import { runsOutput } from './runs-report.js'
import { usageJson } from './usage.js'
import type { Finding } from '../answer/findings.js'

/** The action's outputs, in action.yml's order. */
export const OUTPUT_NAMES = [
  'agent-run-id',
  'status',
  'outcome',
  'web-url',
  'result',
  'summary',
  'github-pull-requests',
  'pull-request-url',
  'log-count',
  'log-file',
  'trigger',
  'org-id',
  'repo-id',
  'user',
  'structured-output',
  'verdict',
  'verdict-reason',
  'findings',
  'runs',
  'check-run-id',
  'usage',
  'plan'
] as const

export type OutputName = (typeof OUTPUT_NAMES)[number]

/**
 * Outputs from the report: every name always set, '' where there is nothing to say. `trigger` is
 * what started the run (inputs, comment, issue, label, assignment, review-comment, review,
 * workflow-run).
 * `task: check` sets only outcome, org-id, repo-id and user.
 */
export function actionOutputs(report: RunReport, logFile: string): Record<OutputName, string> {
  const setup = {
    'org-id': report.orgId === undefined ? '' : String(report.orgId),
    'repo-id': report.repoId === undefined ? '' : String(report.repoId),
    user: report.user ?? ''
  }
  const blank = Object.fromEntries(OUTPUT_NAMES.map(name => [name, ''])) as Record<OutputName, string>
  const checkRunId = report.checkRunId === undefined ? '' : String(report.checkRunId)
  const usage = report.usage ? usageJson(report.usage) : ''
  if (report.setupCheck) return { ...blank, outcome: report.outcome, ...setup }
  // A fan-out: the single-run outputs are '', `runs` has them per run.
  if (report.runs)
    return {
      ...blank,
      outcome: report.outcome,
      trigger: report.trigger ?? '',
      ...setup,
      runs: runsOutput(report.runs),
      'check-run-id': checkRunId,
      usage
    }
  const run = report.run
  const pullRequests = run?.github_pull_requests ?? []
  const answer = report.answer?.answer.valid ? report.answer.answer : undefined
  return {
    'agent-run-id': run ? String(run.id) : '',
    status: report.status,
    outcome: report.outcome,
    'web-url': run?.web_url ?? '',
    result: run?.result ?? '',
    summary: run?.summary ?? '',
    'github-pull-requests': JSON.stringify(pullRequests),
    'pull-request-url': pullRequests.map(pr => pr.url).find(url => typeof url === 'string' && url) ?? '',
    'log-count': String(report.entriesSeen),
    'log-file': logFile,
    trigger: report.trigger ?? '',
    ...setup,
    // The validated answer only (compact JSON, at most 1 MiB as read); '' when none was asked or valid.
    // Made from the value, redacted as the summary's is: redacting its JSON text would miss a
    // secret broken by an escape ("emulator-\ntoken").
    'structured-output': answer ? JSON.stringify(answer.value) : '',
    verdict: answer?.verdict ?? '',
    'verdict-reason': answer?.reason ?? '',
    findings: answer?.findings ? findingsJson(answer.findings) : '',
    runs: '',
    'check-run-id': checkRunId,
    usage,
    // The plan awaiting approval; an approved plan's run has its own result.
    plan: report.outcome === 'planned' ? (report.plan?.text ?? '') : ''
  }
}

/** The reporter of the step's outputs: every one set at the end, from the report and the log file's path. */
export class OutputsReporter implements Reporter {
  constructor(
    private readonly runner: Pick<Runner, 'setOutput'>,
    private readonly mirror: Pick<LogMirror, 'logFile'>
  ) {}

  finish(report: RunReport): Promise<void> {
    const outputs = actionOutputs(report, this.mirror.logFile)
    for (const name of OUTPUT_NAMES) this.runner.setOutput(name, outputs[name])
    return Promise.resolve()
  }
}

/** The findings as the agent named their fields (`end_line` only for a range): what later steps read. */
function findingsJson(findings: Finding[]): string {
  return JSON.stringify(
    findings.map(({ path, line, endLine, severity, title, message }) => ({
      path,
      line,
      ...(endLine > line ? { end_line: endLine } : {}),
      severity,
      ...(title ? { title } : {}),
      message
    }))
  )
}
