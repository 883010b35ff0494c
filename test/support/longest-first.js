import TestSequencer from '@jest/test-sequencer'

/**
 * jest runs the longest test files first (so that no long one starts last), by the timings it cached
 * on earlier runs. On a first run it has none and goes by file size, which says little here: the
 * longest file is one of the shortest. So a first run takes these figures (ms, on 2 cores) instead.
 */
const EXPECTED_MS = {
  'integration/check-gate.test.ts': 64_000,
  'in-process/step-deadlines.test.ts': 51_000,
  'integration/code-comment-triggers.test.ts': 49_000,
  'integration/answer-repairs.test.ts': 44_000,
  'in-process/run-action.test.ts': 42_000,
  'integration/fault-regressions.test.ts': 38_000,
  'integration/check-cases.test.ts': 38_000,
  'in-process/threads-and-writes.test.ts': 37_000,
  'integration/live-differences.test.ts': 36_000,
  'integration/triggers.test.ts': 34_000,
  'integration/comment-limits.test.ts': 33_000,
  'integration/comment-endings.test.ts': 31_000,
  'integration/action-errors.test.ts': 29_000,
  'integration/shared-token.test.ts': 29_000,
  'integration/comments.test.ts': 29_000,
  'integration/fan-out.test.ts': 28_000,
  'integration/action.test.ts': 27_000,
  'unit/rendering.test.ts': 27_000,
  'integration/github-stalls.test.ts': 27_000,
  'integration/examples.test.ts': 27_000,
  'integration/run-edges.test.ts': 26_000,
  'integration/hostile.test.ts': 26_000,
  'integration/fan-out-endings.test.ts': 26_000,
  'integration/daily-limits-and-usage.test.ts': 25_000,
  'integration/check-life.test.ts': 25_000,
  'integration/structured-answers.test.ts': 24_000,
  'integration/org-setup-bundled.test.ts': 24_000,
  'integration/trigger-refusals.test.ts': 24_000,
  'integration/comment-markers.test.ts': 23_000,
  'integration/comment-permissions.test.ts': 23_000,
  'in-process/tracking-comment.test.ts': 23_000,
  'integration/secrecy.test.ts': 22_000,
  'integration/stop-run.test.ts': 19_000,
  'unit/summary-limits.test.ts': 18_000,
  'unit/docs-links.test.ts': 18_000,
  'integration/answer-check-overflow.test.ts': 17_000,
  'in-process/check-run-api.test.ts': 16_000
}

const Base = TestSequencer.default ?? TestSequencer

export default class LongestFirst extends Base {
  time(test) {
    const expected = Object.entries(EXPECTED_MS).find(([file]) => test.path.endsWith(`/test/${file}`))
    return super.time(test) ?? expected?.[1] ?? 1_000
  }
}
