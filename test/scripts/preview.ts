import { readerText } from '../../scripts/render-markdown.js'
import { checkState, renderScenarios } from '../../scripts/render-fixtures.js'
import { renderCheckRun } from '../../src/report/check-run-text.js'
import { renderRunsSummary } from '../../src/report/runs-report.js'

/** `npm run preview` offers a verdict, many runs and check runs (issue #27): the fixtures it draws. */

const scenarios = renderScenarios()

test('the verdict scenario: rejected, its reason the check’s title, the check concluded failure', () => {
  const verdict = scenarios['verdict']!
  expect(verdict.report.outcome).toBe('rejected')
  const check = renderCheckRun(checkState(verdict, true))
  expect(check).toMatchObject({ status: 'completed', conclusion: 'failure' })
  expect(check.title).toBe('Rejected: It renames the exported parseLine, which v1 clients import.')
  expect(renderCheckRun(checkState(verdict, false)).status).toBe('in_progress')
})

test('the many-runs scenario: three runs of one step, each in the summary’s table', () => {
  const many = scenarios['many-runs']!
  expect(many.report.runs?.map(item => [item.name, item.report?.outcome])).toEqual([
    ['api', 'success'],
    ['web', 'rejected'],
    ['cli', 'failure']
  ])
  const text = readerText(renderRunsSummary({ items: many.report.runs! }))
  expect(text).toContain('3 agent runs: 1 success, 1 rejected, 1 failure')
  expect(renderCheckRun(checkState(many, true)).conclusion).toBe('failure')
})
