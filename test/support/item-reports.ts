import type { ItemReport, RunReport } from '../../src/model.js'
import type { Outcome } from '../../src/model.js'

/** Items of a fan-out as the reports of many runs hold them. */

const STATUS: Partial<Record<Outcome, string>> = {
  success: 'COMPLETE',
  failure: 'FAILED',
  paused: 'PAUSED',
  rejected: 'COMPLETE',
  timeout: 'ACTIVE',
  cancelled: 'ACTIVE'
}

/** An item `name` that ended in `outcome`, its run `id` with the status such a run shows. */
export function item(name: string, outcome: Outcome, id = 100, extra: Partial<RunReport> = {}): ItemReport {
  const status = STATUS[outcome] ?? ''
  return {
    name,
    report: {
      outcome: outcome as RunReport['outcome'],
      mode: 'create',
      status,
      startedAt: 0,
      endedAt: 254_000,
      entriesSeen: 0,
      run: {
        id,
        organization_id: 1,
        status,
        web_url: `https://app.codegen.com/agent/trace/${id}`,
        result: `Result of ${name}`,
        summary: null,
        github_pull_requests: []
      },
      ...extra
    }
  }
}

/** An item whose run completed with a verdict (valid answer). */
export function judged(base: ItemReport, verdict: 'pass' | 'fail', reason: string): ItemReport {
  const answer = { valid: true as const, value: { verdict, reason }, json: '{}', verdict, reason }
  return { ...base, report: { ...base.report!, answer: { verdictAsked: true, answer, repairs: [] } } }
}
