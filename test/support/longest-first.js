import TestSequencer from '@jest/test-sequencer'

/**
 * jest runs the longest test files first (so that no long one starts last), by the timings it cached
 * on earlier runs. On a first run it has none and goes by file size, which says little here (the
 * bundle's files are short and wait longest). So a first run takes these figures (ms, on 2 cores) for
 * the longest files, and a second for the rest.
 */
const EXPECTED_MS = {
  'bundle/github-step.test.ts': 15_000,
  'unit/rendering.test.ts': 9_000,
  'bundle/step-protocol.test.ts': 8_000,
  'docs/docs-links.test.ts': 6_000,
  'unit/summary-limits.test.ts': 5_000,
  'bundle/job-cancellation.test.ts': 5_000,
  'docs/examples.test.ts': 5_000,
  'flows/cancel-any-moment.test.ts': 4_500,
  'flows/hostile.test.ts': 4_000,
  'flows/comment-limits.test.ts': 4_000,
  'flows/action-errors.test.ts': 3_500,
  'bundle/answer-worker.test.ts': 3_500
}

const Base = TestSequencer.default ?? TestSequencer

export default class LongestFirst extends Base {
  time(test) {
    const expected = Object.entries(EXPECTED_MS).find(([file]) => test.path.endsWith(`/test/${file}`))
    return super.time(test) ?? expected?.[1] ?? 1_000
  }
}
