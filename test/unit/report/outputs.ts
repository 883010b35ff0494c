import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import type { PullRequest } from '../../../src/api/types.js'
import type { Finding } from '../../../src/answer/findings.js'
import type { RunReport } from '../../../src/model.js'
import { actionOutputs, OUTPUT_NAMES } from '../../../src/report/outputs.js'
import { SUCCEEDED as report } from '../../support/run-reports.js'

describe('outputs', () => {
  test('every output is set, pull requests as JSON', () => {
    const outputs = actionOutputs(report, '/tmp/run.jsonl')
    expect(Object.keys(outputs)).toEqual([...OUTPUT_NAMES])
    expect(outputs).toMatchObject({
      'agent-run-id': '41',
      status: 'COMPLETE',
      outcome: 'success',
      'pull-request-url': 'https://github.com/o/r/pull/9',
      'log-count': '2',
      'log-file': '/tmp/run.jsonl'
    })
    expect(JSON.parse(outputs['github-pull-requests'])).toHaveLength(1)
    expect(
      actionOutputs({ ...report, run: undefined, outcome: 'error', status: '' }, '')['github-pull-requests']
    ).toBe('[]')
    // The first pull request with a URL that is text: a drifting answer's odd value is passed over.
    const odd = {
      ...report.run!,
      github_pull_requests: [
        { id: 1, url: { href: 'x' } },
        { id: 2, url: 'u' }
      ] as unknown as PullRequest[]
    }
    expect(actionOutputs({ ...report, run: odd }, '')['pull-request-url']).toBe('u')
  })

  test('findings: the validated findings as the agent named their fields, [] when none, empty when not asked', () => {
    const answered = (findings?: Finding[]): RunReport => ({
      ...report,
      answer: {
        verdictAsked: false,
        repairs: [],
        answer: { valid: true, value: {}, ...(findings ? { findings } : {}) }
      }
    })
    const findings: Finding[] = [
      { path: 'src/a.ts', line: 3, endLine: 5, severity: 'failure', title: 'Off by one', message: 'm' },
      { path: 'b.md', line: 1, endLine: 1, severity: 'notice', message: 'n' }
    ]
    expect(JSON.parse(actionOutputs(answered(findings), '').findings)).toEqual([
      { path: 'src/a.ts', line: 3, end_line: 5, severity: 'failure', title: 'Off by one', message: 'm' },
      { path: 'b.md', line: 1, severity: 'notice', message: 'n' }
    ])
    expect(actionOutputs(answered([]), '').findings).toBe('[]')
    expect(actionOutputs(answered(), '').findings).toBe('')
    expect(actionOutputs(report, '').findings).toBe('')
    const invalid: RunReport = {
      ...report,
      answer: { verdictAsked: false, repairs: [], answer: { valid: false, problem: { kind: 'missing' } } }
    }
    expect(actionOutputs(invalid, '').findings).toBe('')
  })

  test('action.yml declares exactly these outputs', () => {
    const action = parse(readFileSync(new URL('../../../action.yml', import.meta.url), 'utf8')) as {
      outputs: Record<string, { description: string }>
    }
    expect(Object.keys(action.outputs)).toEqual([...OUTPUT_NAMES])
  })
})
