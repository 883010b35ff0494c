import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import {
  DEFAULT_POLL_INTERVAL_MS,
  FAIL_CONDITIONS,
  INPUT_DEFAULTS,
  STOP_TRIGGERS
} from '../../../src/settings/settings.js'
import { problemsOf, readInputs } from '../../support/read-inputs.js'

/** settings.ts against action.yml: the inputs, their defaults, the runtime. */

const valid = { 'api-token': 'tok-123456', 'org-id': '7', prompt: 'Fix it' }

describe('action.yml', () => {
  const action = parse(readFileSync(new URL('../../../action.yml', import.meta.url), 'utf8')) as {
    inputs: Record<string, { default?: string; description: string }>
    runs: { using: string; main: string }
  }

  test('declares every input, with the defaults the code applies', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.keys(INPUT_DEFAULTS).sort())
    for (const [name, value] of Object.entries(INPUT_DEFAULTS)) {
      const declared = action.inputs[name]?.default
      expect([name, declared]).toEqual([name, name === 'github-token' ? '${{ github.token }}' : value])
    }
  })

  test('the list inputs offer in their descriptions every word they take, and none they refuse', () => {
    // The values after the description's " - ", up to its first sentence's end, parentheses left out:
    // "on cancel (the job cancelled), timeout (…), cancel,timeout for both, or none."
    const offered = (name: string): string[] =>
      (/ - (.*?)\.(?: |$)/.exec(action.inputs[name]!.description)?.[1] ?? '')
        .replace(/\([^)]*\)/g, '')
        .split(/,\s+|;\s+/)
        .map(value =>
          value
            .replace(/^(?:or|on) /, '')
            .replace(/ for both$/, '')
            .trim()
        )
    const lists = {
      'fail-on': FAIL_CONDITIONS,
      'stop-run-on': STOP_TRIGGERS,
      'mirror-logs': ['console', 'summary']
    }
    for (const [name, words] of Object.entries(lists)) {
      const values = offered(name)
      expect([name, words.filter(word => !values.includes(word))]).toEqual([name, []])
      for (const value of values)
        expect([name, value, problemsOf(() => readInputs({ ...valid, [name]: value }))]).toEqual([
          name,
          value,
          []
        ])
    }
  })

  test("poll-interval's default in ms is action.yml's, written once (DEFAULT_POLL_INTERVAL_MS)", () => {
    expect(DEFAULT_POLL_INTERVAL_MS).toBe(Number(action.inputs['poll-interval']?.default) * 1000)
    expect(readInputs(valid).pollIntervalMs).toBe(DEFAULT_POLL_INTERVAL_MS)
  })

  test('runs the bundle on node24', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' })
  })
})
