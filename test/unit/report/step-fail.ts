import { reportOf, type ItemReport, type Outcome, type RunReport } from '../../../src/model.js'
import { renderCheckRun, type CheckRunState } from '../../../src/report/check-run-text.js'
import {
  itemsFailingStep,
  passingWarnings,
  stepConclusion,
  stepFailMessage,
  stepFailReason,
  type FailPolicy
} from '../../../src/report/step-fail.js'
import { FAIL_CONDITIONS, type FailCondition } from '../../../src/settings/settings.js'
import { readerText } from '../../../scripts/render-markdown.js'
import { ENDINGS } from '../../support/outcomes.js'
import { item, judged } from '../../support/item-reports.js'

/**
 * The check's colour is the step's (issue #26): for every ending and every fail-on, the check
 * concludes `success` exactly when the step passes (stepFailMessage is the step's decision), else
 * `timed_out` or `cancelled` when that is why, `failure` otherwise; and its title never says the
 * opposite of its colour.
 */

const RUN = {
  id: 1000,
  organization_id: 1,
  status: 'COMPLETE',
  web_url: 'https://app.codegen.com/agent/trace/1000'
}
const PULL_REQUEST = { id: 7, title: 'Fix it', url: 'https://github.com/o/r/pull/7' }

/** A single run's report: run-less for an error, with or without a pull request. */
function runReport(outcome: Outcome, pullRequests: number): RunReport {
  const run = { ...RUN, result: 'The result.', github_pull_requests: pullRequests ? [PULL_REQUEST] : [] }
  return {
    outcome,
    mode: 'create',
    status: 'COMPLETE',
    startedAt: 0,
    endedAt: 60_000,
    entriesSeen: 3,
    ...(outcome === 'error' ? { error: 'The service answered 503.' } : { run })
  }
}

function policyOf(failOn: string): FailPolicy {
  const words = failOn === 'none' ? [] : failOn.split(',')
  return { failOn: new Set(words as FailCondition[]), triggerPhrase: '/codegen' }
}

function state(report: RunReport, policy: FailPolicy): CheckRunState {
  return { runId: report.run?.id, entriesSeen: 3, resumed: false, report, workflowRunUrl: '', policy }
}

const FAIL_ONS = [
  'none',
  'failure',
  'failure,no-pull-request',
  'timeout',
  'paused',
  'rejected,invalid-output',
  'failure,timeout,rejected,invalid-output',
  FAIL_CONDITIONS.join(',')
]

/** What the check must conclude: the step's decision, and why when it fails. */
function expected(report: RunReport, policy: FailPolicy): string {
  if (stepFailMessage(report, policy) === undefined) return 'success'
  return report.outcome === 'timeout' ? 'timed_out' : report.outcome === 'cancelled' ? 'cancelled' : 'failure'
}

const CASES = ENDINGS.flatMap(outcome =>
  FAIL_ONS.flatMap(failOn => [0, 1].map(pullRequests => [outcome, failOn, pullRequests] as const))
)

test.each(CASES)(
  '%s under fail-on %s (%i pull requests): the check concludes as the step ends',
  (outcome, failOn, prs) => {
    const report = runReport(outcome, prs)
    const policy = policyOf(failOn)
    const check = renderCheckRun(state(report, policy))
    expect(check.status).toBe('completed')
    expect(check.conclusion).toBe(expected(report, policy))
    expect(stepConclusion(report, policy)).toBe(check.conclusion)
    expect(check.conclusion === 'success').toBe(stepFailMessage(report, policy) === undefined)
  }
)

test('the table holds the cases the issue names', () => {
  const conclusion = (outcome: Outcome, failOn: string, prs = 1): string | undefined =>
    renderCheckRun(state(runReport(outcome, prs), policyOf(failOn))).conclusion
  // No pull request under failure,no-pull-request: the step fails, so does the check.
  expect(conclusion('success', 'failure,no-pull-request', 0)).toBe('failure')
  // A verdict of fail under none: the step passes, so does the check.
  expect(conclusion('rejected', 'none')).toBe('success')
  // A timeout under failure: the step passes.
  expect(conclusion('timeout', 'failure')).toBe('success')
  expect(conclusion('timeout', 'timeout')).toBe('timed_out')
  // A cancelled job and an error always fail.
  expect(conclusion('cancelled', 'none')).toBe('cancelled')
  expect(conclusion('error', 'none')).toBe('failure')
  // A paused run passes unless fail-on names paused; nothing is neutral or action_required.
  expect(conclusion('paused', 'failure,timeout,rejected,invalid-output')).toBe('success')
  expect(conclusion('paused', 'paused')).toBe('failure')
})

test("the title and summary say what happened, and never the opposite of the check's colour", () => {
  const render = (outcome: Outcome, failOn: string, prs = 1) =>
    renderCheckRun(state(runReport(outcome, prs), policyOf(failOn)))
  const timeout = render('timeout', 'failure')
  expect(timeout.title).toBe('Timed out (fail-on lets it pass): The result.')
  expect(readerText(timeout.summary)).toContain(
    'This check passes as the step does: fail-on: failure lets this ending pass.'
  )
  const rejected = render('rejected', 'none')
  expect(rejected.title).toMatch(/^Rejected \(fail-on lets it pass\): /)
  const noPullRequest = render('success', 'failure,no-pull-request', 0)
  expect(noPullRequest.title).toBe('No pull request (fail-on: no-pull-request): The result.')
  expect(readerText(noPullRequest.summary)).toContain(
    'This check fails as the step does: fail-on: failure,no-pull-request, and the run opened no pull request.'
  )
  // Where the ending says it already, no word of fail-on.
  const failed = render('failure', 'failure')
  expect(failed.title).toBe('Failed: The result.')
  expect(readerText(failed.summary)).not.toContain('This check')
  expect(render('success', 'failure').title).toBe('Succeeded: The result.')
})

describe('many runs: one check, concluded as the step', () => {
  const item = (name: string, outcome: Outcome | undefined, prs = 1): ItemReport => ({
    name,
    ...(outcome ? { report: runReport(outcome, prs) } : {})
  })
  const fanOut = (outcome: Outcome, items: ItemReport[]): RunReport => ({
    outcome,
    mode: 'create',
    status: '',
    startedAt: 0,
    endedAt: 60_000,
    entriesSeen: 0,
    runs: items,
    trigger: 'inputs'
  })
  const conclude = (report: RunReport, failOn: string) => {
    const policy = policyOf(failOn)
    const check = renderCheckRun(state(report, policy))
    expect(check.conclusion === 'success').toBe(stepFailMessage(report, policy) === undefined)
    expect(stepConclusion(report, policy)).toBe(check.conclusion)
    return check.conclusion
  }

  test.each([
    // A failure fail-on lets pass beside a timeout it does not: the timeout is why.
    ['failure', [item('a', 'failure'), item('b', 'timeout')], 'timeout', 'timed_out'],
    ['failure', [item('a', 'failure'), item('b', 'timeout')], 'failure', 'failure'],
    ['failure', [item('a', 'failure'), item('b', 'timeout')], 'none', 'success'],
    // Timed out: the runs that started time out, the ones that never did are cancelled.
    ['timeout', [item('a', 'timeout'), item('b', undefined)], 'timeout', 'timed_out'],
    ['cancelled', [item('a', 'cancelled'), item('b', undefined)], 'none', 'cancelled'],
    ['success', [item('a', 'success', 0), item('b', 'success')], 'no-pull-request', 'failure'],
    ['success', [item('a', 'success', 0), item('b', 'success')], 'failure', 'success'],
    ['rejected', [item('a', 'rejected'), item('b', 'success')], 'failure', 'success']
  ] as const)('%s of %j under fail-on %s: %s', (outcome, items, failOn, conclusion) => {
    expect(conclude(fanOut(outcome, [...items]), failOn)).toBe(conclusion)
  })
})

describe('a paused run: how to answer it', () => {
  const POLICY = policyOf('failure,timeout,rejected,invalid-output')
  const paused = (trigger: string): RunReport =>
    reportOf(
      {
        outcome: 'paused',
        run: {
          ...RUN,
          status: 'PAUSED',
          result: 'Waiting for an answer: remove `legacyMode`, or only document it?'
        },
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
      'The agent paused with a question, waiting for an answer.',
      'The agent’s question: Waiting for an answer: remove `legacyMode`, or only document it?',
      'Answer with a comment `/codegen <answer>` on the issue or pull request that asked for it, or resume the run in a step with `agent-run-id: 1000` and the answer as `prompt`.',
      'Agent run 1000, status PAUSED: https://app.codegen.com/agent/trace/1000'
    ])
  })
})

describe('a paused run where an answer was asked: the question came instead of it', () => {
  const policy = (answer: FailPolicy['answer']): FailPolicy => ({ ...policyOf('paused'), answer })
  const paused = (result: string | null): RunReport =>
    reportOf(
      { outcome: 'paused', run: { ...RUN, status: 'PAUSED', result }, status: 'PAUSED', trigger: 'inputs' },
      0,
      4_000
    )

  test('the failure says the verdict (or the answer) never came, the question, how to answer, where', () => {
    expect(stepFailMessage(paused('Keep `legacyMode`?\nIt is still read.'), policy({ verdict: true }))).toBe(
      [
        'The agent paused with a question instead of giving its verdict.',
        'The agent’s question: Keep `legacyMode`?',
        'Answer by resuming the run in a step with `agent-run-id: 1000` and the answer as `prompt`.',
        'Agent run 1000, status PAUSED: https://app.codegen.com/agent/trace/1000'
      ].join('\n')
    )
    // output-schema or findings alone: an answer, no verdict; a run that left no question says none.
    expect(stepFailMessage(paused(null), policy({ verdict: false }))?.split('\n')).toEqual([
      'The agent paused with a question instead of giving its answer.',
      'Answer by resuming the run in a step with `agent-run-id: 1000` and the answer as `prompt`.',
      'Agent run 1000, status PAUSED: https://app.codegen.com/agent/trace/1000'
    ])
  })

  test('many runs: a paused run that fails the step has its question and how to answer it below its line', () => {
    const report: RunReport = {
      ...reportOf({ outcome: 'paused', trigger: 'inputs' }, 0, 4_000),
      runs: [item('api', 'success'), item('docs', 'paused', 7)]
    }
    expect(stepFailMessage(report, policy({ verdict: true }))?.split('\n')).toEqual([
      '1 of 2 agent runs failed the step:',
      '- docs: paused, The agent paused with a question, waiting for an answer. (agent run 7: https://app.codegen.com/agent/trace/7)',
      '  The agent’s question: Result of docs',
      '  Answer by resuming the run in a step with `agent-run-id: 7` and the answer as `prompt`.'
    ])
    // Without paused in fail-on it passes as before, and the run says its own warning (under its name).
    expect(
      stepFailMessage(report, { ...policy({ verdict: true }), failOn: new Set(['failure']) })
    ).toBeUndefined()
  })
})

describe('stepFailReason', () => {
  const defaults = new Set(['failure', 'timeout'] as const)
  test('fails on the outcomes fail-on names, and always on cancellation', () => {
    expect(stepFailReason('failure', defaults, 0)).toBe('The agent run failed.')
    expect(stepFailReason('timeout', defaults, 0)).toMatch(/timeout-minutes/)
    expect(stepFailReason('paused', defaults, 0)).toBeUndefined()
    expect(stepFailReason('paused', new Set(['paused'] as const), 0)).toMatch(/paused/)
    expect(stepFailReason('failure', new Set(), 0)).toBeUndefined()
    expect(stepFailReason('cancelled', new Set(), 0)).toMatch(/cancelled/)
    expect(stepFailReason('error', new Set(), 0)).toMatch(/could not be started or followed/)
    expect(stepFailReason('started', defaults, 0)).toBeUndefined()
    expect(stepFailReason('skipped', defaults, 0)).toBeUndefined()
  })

  test('no-pull-request fails a success without pull requests only', () => {
    const strict = new Set(['failure', 'no-pull-request'] as const)
    expect(stepFailReason('success', strict, 0)).toMatch(/without a pull request/)
    expect(stepFailReason('success', strict, 1)).toBeUndefined()
    expect(stepFailReason('success', defaults, 0)).toBeUndefined()
  })

  test('rejected and invalid-output fail by the default fail-on, and pass when it leaves them out', () => {
    const byDefault = new Set(['failure', 'timeout', 'rejected', 'invalid-output'] as const)
    expect(stepFailReason('rejected', byDefault, 0)).toBe("The agent's verdict is fail.")
    expect(stepFailReason('invalid-output', byDefault, 0)).toBe('The agent run ended without a valid answer.')
    expect(stepFailReason('rejected', defaults, 0)).toBeUndefined()
    expect(stepFailReason('invalid-output', defaults, 0)).toBeUndefined()
    expect(stepFailReason('rejected', new Set(), 0)).toBeUndefined()
  })
})

describe('the runs of many that fail the step', () => {
  const failOn = new Set<FailCondition>(['failure', 'timeout', 'rejected', 'invalid-output'])

  test('the runs that fail the step follow fail-on, each with why', () => {
    const items = [
      item('api', 'success'),
      item('web', 'failure'),
      item('docs', 'paused'),
      item('cli', 'timeout'),
      item('ops', 'error', 5, { error: 'Could not create the agent run: 402 allowance used up' }),
      judged(item('lint', 'rejected'), 'fail', 'tests missing')
    ]
    const failing = itemsFailingStep(items, failOn)
    expect(failing.map(({ item: failed, reason }) => [failed.name, reason])).toEqual([
      ['web', 'The agent run failed.'],
      ['cli', 'The agent run did not end within timeout-minutes.'],
      ['ops', 'Could not create the agent run: 402 allowance used up'],
      ['lint', "The agent's verdict is fail."]
    ])
    // rejected follows fail-on like the other outcomes; an error always fails.
    expect(itemsFailingStep(items, new Set(['paused'])).map(({ item: failed }) => failed.name)).toEqual([
      'docs',
      'ops'
    ])
  })
})
