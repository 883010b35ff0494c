import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { DEFAULT_POLL_INTERVAL_MS, INPUT_DEFAULTS } from '../../../src/settings/settings.js'
import { readInputs } from '../../support/read-inputs.js'

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

  test("poll-interval's default in ms is action.yml's, written once (DEFAULT_POLL_INTERVAL_MS)", () => {
    expect(DEFAULT_POLL_INTERVAL_MS).toBe(Number(action.inputs['poll-interval']?.default) * 1000)
    expect(readInputs(valid).pollIntervalMs).toBe(DEFAULT_POLL_INTERVAL_MS)
  })

  test('runs the bundle on node24', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' })
  })
})
