import { renderWithin, shareRoom } from '../../../src/report/fit-text.js'

/** Fitting texts into GitHub's limits: the cut that makes a rendering fit, and the room shared among texts. */

const chars = (text: string): number => text.length
const bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

describe('renderWithin', () => {
  test('the longest head whose rendering fits, in a few rounds, however much the rendering grows', () => {
    const text = '&'.repeat(100_000)
    let rounds = 0
    // Each & is rendered as &amp; (five times longer).
    const render = (keep: number): string => {
      rounds++
      return text.slice(0, keep).replaceAll('&', '&amp;')
    }
    const fitted = renderWithin(text.length, 1_000, render, chars)
    expect(fitted!.length).toBeLessThanOrEqual(1_000)
    expect(fitted!.length).toBeGreaterThan(900)
    expect(rounds).toBeLessThan(10)
  })

  test('measured as it is counted: bytes for a check run', () => {
    const fitted = renderWithin(1_000, 100, keep => '漢'.repeat(keep), bytes)
    expect(bytes(fitted!)).toBeLessThanOrEqual(100)
    expect(fitted).toBe('漢'.repeat(33))
  })

  test('undefined when even an empty head does not fit', () => {
    expect(renderWithin(10, 5, keep => `> ${'x'.repeat(keep)} (cut)`, chars)).toBeUndefined()
  })
})

describe('shareRoom', () => {
  test('a short text leaves its unused share to the others, shortest first', () => {
    const short = { text: 'short', overhead: 10 }
    const long = { text: 'x'.repeat(1_000), overhead: 10 }
    const other = { text: 'y'.repeat(500), overhead: 10 }
    const fitted = shareRoom([long, short, other], 630, (sharer, share) => sharer.text.slice(0, share), chars)
    // 630 in three: short takes 5 (and its 10) of its 200, leaving 615 to two: other 297, long 298.
    expect(fitted.get(short)).toBe('short')
    expect(fitted.get(other)!.length).toBe(297)
    expect(fitted.get(long)!.length).toBe(298)
    const used = [...fitted.values()].reduce((sum, text) => sum + text.length + 10, 0)
    expect(used).toBeLessThanOrEqual(630)
  })
})
