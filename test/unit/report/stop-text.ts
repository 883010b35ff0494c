import { renderTrackingComment } from '../../../src/report/tracking-text.js'
import type { RunReport, RunStop } from '../../../src/model.js'
import { renderCheckRun } from '../../../src/report/check-run-text.js'
import { renderSummary } from '../../../src/report/summary.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { trackingState } from '../../support/tracking-state.js'

/** stop-run-on's words where people look (report/stop-text.ts, in the summary, the comment and the check). */

describe('what readers see of a stop', () => {
  const run = {
    id: 7,
    organization_id: 1,
    status: 'STOPPED',
    web_url: 'https://app.codegen.com/agent/trace/7'
  }
  const report = (stop: RunStop, outcome: 'cancelled' | 'timeout' = 'cancelled'): RunReport => ({
    outcome,
    mode: 'create',
    status: stop.status,
    startedAt: 0,
    endedAt: 60_000,
    entriesSeen: 2,
    run: { ...run, status: stop.status },
    stop
  })
  const stopped: RunStop = { stopped: true, status: 'STOPPED' }
  const failed: RunStop = { stopped: false, status: 'RUNNING', why: 'the service refused: *no* <b>way</b>' }
  const tracking = trackingState({ runId: 7, entriesSeen: 2 })
  const check = (stop: RunStop, outcome: 'cancelled' | 'timeout' = 'cancelled') =>
    readerText(
      renderCheckRun({
        entriesSeen: 2,
        resumed: false,
        report: report(stop, outcome),
        workflowRunUrl: '',
        policy: { failOn: new Set(), triggerPhrase: '/codegen' }
      }).summary
    )

  test('the summary, the comment and the check say the run was stopped, and its status after', () => {
    const line = 'The run was stopped: this step asked Codegen to stop it, and it now shows STOPPED.'
    expect(readerText(renderSummary({ report: report(stopped) }))).toContain(line)
    const comment = readerText(renderTrackingComment({ ...tracking, report: report(stopped) }))
    expect(comment).toContain('Codegen agent run #7 🛑 was stopped: the workflow job was cancelled')
    expect(comment).toContain(line)
    expect(comment).not.toContain('left running')
    expect(check(stopped)).toContain('Codegen agent run #7 🛑 was stopped: the workflow job was cancelled')
    expect(check(stopped, 'timeout')).toContain('⏱️ was stopped when the workflow stopped waiting')
    expect(check(stopped)).toContain(line)
  })

  test('or that it could not be, and why, the service’s words shown as written', () => {
    const line = 'The run could not be stopped (the service refused: *no* <b>way</b>): it goes on at Codegen.'
    expect(readerText(renderSummary({ report: report(failed) }))).toContain(line)
    const comment = readerText(renderTrackingComment({ ...tracking, report: report(failed) }))
    expect(comment).toContain('was left running: the workflow job was cancelled')
    expect(comment).toContain(line)
    expect(check(failed)).toContain(line)
  })

  test('a report without a stop reads as before', () => {
    const plain: RunReport = { ...report(stopped), stop: undefined }
    expect(readerText(renderSummary({ report: plain }))).not.toContain('stopped')
  })
})
