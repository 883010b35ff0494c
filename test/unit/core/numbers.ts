import { greatest, least } from '../../../src/numbers.js'

describe('the least and the greatest of many numbers', () => {
  test('as Math.min and Math.max, empty lists included', () => {
    expect(least([3, -2, 7])).toBe(-2)
    expect(greatest([3, -2, 7])).toBe(7)
    expect(least([])).toBe(Infinity)
    expect(greatest([])).toBe(-Infinity)
    expect(least(new Set([5, 1]))).toBe(1)
  })

  test('300,000 of them, past what a spread into Math.min can pass', () => {
    const many = Array.from({ length: 300_000 }, (_, i) => 1_000_000 - i)
    expect(least(many)).toBe(700_001)
    expect(greatest(many)).toBe(1_000_000)
  })
})
