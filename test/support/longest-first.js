import TestSequencer from '@jest/test-sequencer'

/**
 * jest runs the longest test files first (so that no long one starts last), by the timings it cached
 * on earlier runs. On a first run it has none and goes by file size, which says little here: the
 * longest file is one of the shortest. So a first run takes these figures (ms, on 2 cores) instead.
 */
const EXPECTED_MS = {
  'integration/comments.test.ts': 60_000,
  'integration/action.test.ts': 60_000,
  'integration/check-gate.test.ts': 50_000,
  'integration/code-comment-triggers.test.ts': 42_000,
  'in-process/run-action.test.ts': 40_000,
  'integration/answer-repairs.test.ts': 38_000,
  'integration/comment-limits.test.ts': 34_000,
  'integration/check-cases.test.ts': 34_000,
  'integration/live-differences.test.ts': 33_000,
  'integration/comment-endings.test.ts': 33_000,
  'integration/fault-regressions.test.ts': 32_000,
  'integration/shared-token.test.ts': 32_000,
  'in-process/threads-and-writes.test.ts': 31_000,
  'integration/triggers.test.ts': 30_000,
  'integration/examples.test.ts': 23_000,
  'integration/github-stalls.test.ts': 22_000,
  'integration/secrecy.test.ts': 22_000,
  'in-process/tracking-comment.test.ts': 22_000,
  'integration/check-life.test.ts': 21_000,
  'integration/fan-out-endings.test.ts': 20_000,
  'integration/hostile.test.ts': 18_000,
  'integration/fan-out.test.ts': 17_000
}

const Base = TestSequencer.default ?? TestSequencer

export default class LongestFirst extends Base {
  time(test) {
    const expected = Object.entries(EXPECTED_MS).find(([file]) => test.path.endsWith(`/test/${file}`))
    return super.time(test) ?? expected?.[1] ?? 1_000
  }
}
