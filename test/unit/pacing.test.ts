import { fastPollMs, nextPollDelay, type PaceState } from '../../src/run/pacing.js'

const at = (state: Partial<PaceState> = {}): number =>
  nextPollDelay({ baseMs: 5_000, quietPolls: 0, ...state })

describe('nextPollDelay', () => {
  test('polls every 1.4 bases while entries flow', () => {
    expect(at({ quietPolls: 0 })).toBe(7_000)
  })

  test('keeps that pace for one quiet poll, then backs off to twice the base', () => {
    expect([1, 2, 3, 4, 10, 1_000].map(quietPolls => at({ quietPolls }))).toEqual([
      7_000, 8_500, 10_000, 10_000, 10_000, 10_000
    ])
  })

  test('after a FINAL_ANSWER: every second for 30 s, then the usual pace', () => {
    expect(at({ sinceFinalAnswerMs: 0, quietPolls: 0 })).toBe(1_000)
    expect(at({ sinceFinalAnswerMs: 29_999, quietPolls: 29 })).toBe(1_000)
    expect(at({ sinceFinalAnswerMs: 30_000, quietPolls: 30 })).toBe(10_000)
    expect(at({ sinceFinalAnswerMs: 30_000, quietPolls: 0 })).toBe(7_000)
  })

  test('a resumed run that still shows its earlier ending is polled at the base', () => {
    expect(at({ awaitingRestart: true, quietPolls: 7 })).toBe(5_000)
  })

  test('is the same policy at any base up to the default, scaled (what the benchmark relies on)', () => {
    const states: Array<Omit<PaceState, 'baseMs'>> = [
      { quietPolls: 0 },
      { quietPolls: 1 },
      { quietPolls: 5 },
      { quietPolls: 3, sinceFinalAnswerMs: 0 },
      { quietPolls: 3, awaitingRestart: true }
    ]
    for (const base of [100, 500, 1_250, 2_000]) {
      const scale = base / 5_000
      for (const state of states) {
        const scaled = nextPollDelay({
          ...state,
          baseMs: base,
          sinceFinalAnswerMs:
            state.sinceFinalAnswerMs === undefined ? undefined : state.sinceFinalAnswerMs * scale
        })
        expect(scaled).toBeCloseTo(nextPollDelay({ ...state, baseMs: 5_000 }) * scale, 0)
      }
    }
    expect(fastPollMs(500)).toBe(100)
  })

  test('above the default, the fast polling keeps its absolute second and 30 s', () => {
    const base = 60_000
    expect(nextPollDelay({ baseMs: base, quietPolls: 0, sinceFinalAnswerMs: 29_000 })).toBe(1_000)
    expect(nextPollDelay({ baseMs: base, quietPolls: 30, sinceFinalAnswerMs: 30_000 })).toBe(120_000)
  })

  test('stays inside the budget: at most 30 fast polls per FINAL_ANSWER, whatever the base', () => {
    // Each base with its fast poll: a second, or a fifth of the base when that is shorter.
    for (const [base, fast] of [
      [100, 20],
      [1_000, 200],
      [5_000, 1_000],
      [30_000, 1_000]
    ] as const) {
      let elapsed = 0
      let polls = 0
      for (;;) {
        const delay = nextPollDelay({ baseMs: base, quietPolls: polls, sinceFinalAnswerMs: elapsed })
        if (delay > fast) break
        elapsed += delay
        polls++
      }
      expect(polls).toBeLessThanOrEqual(30)
    }
  })

  test('never waits beyond the ceiling: a run ending in a quiet stretch is seen within 2 bases', () => {
    for (let quietPolls = 0; quietPolls < 50; quietPolls++) {
      expect(at({ quietPolls })).toBeLessThanOrEqual(10_000)
    }
  })
})
