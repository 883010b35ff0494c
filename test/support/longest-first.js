import TestSequencer from '@jest/test-sequencer'

/**
 * jest runs the longest test files first (so that no long one starts last), by the timings it cached
 * on earlier runs. On a first run it has none and goes by file size, which says little here (the
 * bundle's files are short and wait longest). So a first run takes these figures (ms, on 2 cores) for
 * the longest files, and a second for the rest.
 */
const EXPECTED_MS = {
  'bundle/github-step.test.ts': 16_000,
  'unit/unit.test.ts': 14_000,
  'flows/step.test.ts': 13_500,
  'flows/comments.test.ts': 11_000,
  'bundle/job-cancellation.test.ts': 11_000,
  'flows/deadlines.test.ts': 10_500,
  'flows/run-action.test.ts': 10_000,
  'docs/docs.test.ts': 8_500,
  'flows/checks.test.ts': 8_500,
  'bundle/step-protocol.test.ts': 7_500
}

const Base = TestSequencer.default ?? TestSequencer

/** The bundle's files mostly wait on real time (child processes, GitHub's spacing): this many files apart. */
const BUNDLE_SPACING = 3

export default class LongestFirst extends Base {
  time(test) {
    const expected = Object.entries(EXPECTED_MS).find(([file]) => test.path.endsWith(`/test/${file}`))
    return super.time(test) ?? expected?.[1] ?? 1_000
  }

  /**
   * Longest first, but the bundle's files spread among the others: side by side they would hold
   * every worker while the cores wait with them.
   */
  sort(tests) {
    const sorted = super.sort(tests)
    const bundle = sorted.filter(test => test.path.includes('/test/bundle/'))
    const others = sorted.filter(test => !test.path.includes('/test/bundle/'))
    bundle.forEach((test, n) => others.splice(Math.min(n * (BUNDLE_SPACING + 1), others.length), 0, test))
    return others
  }
}
