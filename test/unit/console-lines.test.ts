import type { AgentRun } from '../../src/api/types.js'
import { reportOf, type RunReport } from '../../src/model.js'
import { stepFailMessage, passingWarnings } from '../../src/report/step-fail.js'
import { LogMirror } from '../../src/report/log-mirror.js'
import type { FailCondition } from '../../src/settings/settings.js'
import { FakeRunner } from '../support/fake-runner.js'

/** The job log's lines of the ending: they agree with the outcome, and say only what applies. */

const POLICY = {
  failOn: new Set<FailCondition>(['failure', 'timeout', 'rejected', 'invalid-output']),
  triggerPhrase: '/codegen'
}
const noFile = { path: '/tmp/run.jsonl', append: () => undefined }
const run = (fields: Partial<AgentRun> = {}): AgentRun => ({
  id: 1000,
  organization_id: 1,
  status: 'COMPLETE',
  web_url: 'https://app.codegen.com/agent/trace/1000',
  ...fields
})

function mirrored(events: (mirror: LogMirror) => void, report: RunReport): string[] {
  const runner = new FakeRunner()
  const mirror = new LogMirror(runner, {
    toConsole: true,
    keepEntries: false,
    openLogFile: () => noFile,
    policy: POLICY
  })
  events(mirror)
  void mirror.finish(report)
  return runner.lines
}

test('a run that completes with a verdict of fail: the status line says it ended, the outcome rejected', () => {
  const report = reportOf(
    { outcome: 'rejected', run: run(), status: 'COMPLETE', trigger: 'inputs' },
    0,
    4_000
  )
  const lines = mirrored(mirror => {
    mirror.started(run({ status: 'ACTIVE' }), 'create')
    mirror.statusChanged('ACTIVE', 'COMPLETE')
  }, report)
  expect(lines.slice(1)).toEqual([
    'Status ACTIVE → COMPLETE (the run ended)',
    'Outcome: rejected (status COMPLETE); 0 log entries mirrored to /tmp/run.jsonl'
  ])
  expect(lines.join('\n')).not.toContain('(success)')
})

test('each status class in words that no outcome contradicts', () => {
  const lines = mirrored(
    mirror => {
      mirror.statusChanged(null, 'PENDING')
      mirror.statusChanged('PENDING', 'PAUSED')
      mirror.statusChanged('PAUSED', 'FAILED')
    },
    reportOf({ outcome: 'failure', run: run({ status: 'FAILED' }), status: 'FAILED' }, 0, 1)
  )
  expect(lines.slice(0, 3)).toEqual([
    'Status none → PENDING (working)',
    'Status PENDING → PAUSED (the run paused)',
    'Status PAUSED → FAILED (the run failed)'
  ])
})

test('an error before any run (an org-id the token does not have) is printed alone: no outcome line', () => {
  const error = "org-id 99 is not among the token's organizations; set org-id to one of them:\n  1 Octo Org"
  const report = reportOf({ outcome: 'error', error, trigger: 'inputs' }, 0, 10)
  expect(mirrored(() => undefined, report)).toEqual([])
  expect(stepFailMessage(report, POLICY)).toBe(error)
  // Skipped (nothing to start) still says its outcome, without a count of entries it never had.
  expect(mirrored(() => undefined, reportOf({ outcome: 'skipped', reason: 'not a trigger' }, 0, 1))).toEqual([
    'Outcome: skipped'
  ])
})

describe('a paused run', () => {
  const paused = (trigger: string): RunReport =>
    reportOf(
      {
        outcome: 'paused',
        run: run({
          status: 'PAUSED',
          result: 'Waiting for an answer: remove `legacyMode`, or only document it?'
        }),
        status: 'PAUSED',
        trigger
      },
      0,
      4_000
    )

  test('started from inputs: answered from a step, never with /codegen', () => {
    const [warning] = passingWarnings(paused('inputs'), POLICY)
    expect(warning).toBe(
      [
        'The agent run paused. The agent’s question: Waiting for an answer: remove `legacyMode`, or only document it?',
        'Answer by resuming the run in a step with `agent-run-id: 1000` and the answer as `prompt`.',
        'Agent run 1000, status PAUSED: https://app.codegen.com/agent/trace/1000'
      ].join('\n')
    )
    expect(warning).not.toContain('/codegen')
    // Our words never repeat the agent's: "waiting for an answer: Waiting for an answer:" is gone.
    expect(warning).not.toMatch(/waiting for an answer: Waiting for an answer/i)
  })

  test('asked for on a thread: answered there with the trigger phrase, or from a step', () => {
    const failOnPaused = { ...POLICY, failOn: new Set<FailCondition>(['paused']) }
    const message = stepFailMessage(paused('comment'), failOnPaused) ?? ''
    expect(message.split('\n')).toEqual([
      'The agent run paused, waiting for a follow-up prompt.',
      'The agent’s question: Waiting for an answer: remove `legacyMode`, or only document it?',
      'Answer with a comment `/codegen <answer>` on the issue or pull request that asked for it, or resume the run in a step with `agent-run-id: 1000` and the answer as `prompt`.',
      'Agent run 1000, status PAUSED: https://app.codegen.com/agent/trace/1000'
    ])
  })
})
