import type { FailCondition } from '../../src/settings/settings.js'
import {
  aggregateOutcome,
  itemsFailingStep,
  SEVERITY,
  type ItemOutcome
} from '../../src/runs/items-outcome.js'
import { item, judged } from '../support/item-reports.js'

const failOn = new Set<FailCondition>(['failure', 'timeout', 'rejected', 'invalid-output'])

describe('the outcome of a fan-out', () => {
  test('success only when every run succeeded', () => {
    expect(aggregateOutcome([item('a', 'success'), item('b', 'success')])).toBe('success')
  })

  test.each([
    [['success', 'cancelled', 'paused'], 'paused'],
    [['success', 'timeout', 'paused'], 'timeout'],
    [['invalid-output', 'timeout'], 'invalid-output'],
    [['invalid-output', 'rejected'], 'rejected'],
    [['rejected', 'failure', 'success'], 'failure'],
    [['failure', 'error'], 'error'],
    [['started', 'started'], 'started'],
    [['success', 'cancelled'], 'cancelled']
  ] as Array<[ItemOutcome[], ItemOutcome]>)('%p is %s: the most severe', (outcomes, expected) => {
    expect(aggregateOutcome(outcomes.map((outcome, i) => item(`r${i}`, outcome)))).toBe(expected)
  })

  test('the severity order is the issue’s', () => {
    expect(SEVERITY.slice(0, 7)).toEqual([
      'error',
      'failure',
      'rejected',
      'invalid-output',
      'timeout',
      'paused',
      'cancelled'
    ])
  })

  test('an item that never started counts as cancelled', () => {
    expect(aggregateOutcome([item('a', 'success'), { name: 'b' }])).toBe('cancelled')
  })

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
