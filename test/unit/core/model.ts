import { aggregateOutcome, SEVERITY, type Outcome } from '../../../src/model.js'
import { item } from '../../support/item-reports.js'

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
  ] as Array<[Outcome[], Outcome]>)('%p is %s: the most severe', (outcomes, expected) => {
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
})
