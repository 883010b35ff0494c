import { allPages, MAX_PAGES, PAGE_SIZE, searchPages } from '../../../src/api/paging.js'

/** A listing of `total` numbered items as the service pages it, recording what was asked. */
function listing(total: number, pages = Math.ceil(total / PAGE_SIZE)) {
  const asked: Array<[number, number]> = []
  const read = async (skip: number, limit: number) => {
    asked.push([skip, limit])
    const items = Array.from({ length: Math.max(0, Math.min(limit, total - skip)) }, (_, i) => skip + i)
    return { items, pages }
  }
  return { read, asked }
}

describe('paged listings', () => {
  test('every item, page after page of 100, until a short page', async () => {
    const { read, asked } = listing(250)
    expect(await allPages(read)).toEqual(Array.from({ length: 250 }, (_, i) => i))
    expect(asked).toEqual([
      [0, 100],
      [100, 100],
      [200, 100]
    ])
  })

  test('a full page with an item that could not be read is still full: the next page is read', async () => {
    const asked: number[] = []
    const read = async (skip: number) => {
      asked.push(skip)
      // The service sent 100 items on the first page; the 50th could not be read.
      const items = skip === 0 ? Array.from({ length: 99 }, (_, i) => i) : [100, 101]
      return { items, pages: 0, sent: skip === 0 ? 100 : 2 }
    }
    expect(await searchPages(read, item => item === 101, { trustPageCount: false })).toBe(101)
    expect(asked).toEqual([0, 100])
  })

  test('the page count ends a listing of full pages, and 50 pages at most are read', async () => {
    const exact = listing(200)
    expect(await allPages(exact.read)).toHaveLength(200)
    expect(exact.asked).toHaveLength(2)
    const endless = listing(1e9, 1e7)
    expect(await allPages(endless.read)).toHaveLength(MAX_PAGES * PAGE_SIZE)
  })

  test('a search stops at the first match, or after the last page', async () => {
    const found = listing(1000)
    expect(await searchPages(found.read, item => item === 342)).toBe(342)
    expect(found.asked).toHaveLength(4)
    const missing = listing(150)
    expect(await searchPages(missing.read, item => item === 9999)).toBeUndefined()
    expect(missing.asked).toHaveLength(2)
  })

  test('a listing that moves as it is read: only a short page ends it, within maxPages', async () => {
    // Counted as one page when asked, though more came meanwhile.
    const moving = listing(300, 1)
    expect(await searchPages(moving.read, item => item === 150)).toBeUndefined()
    expect(moving.asked).toHaveLength(1)
    const trusted = listing(300, 1)
    expect(await searchPages(trusted.read, item => item === 150, { trustPageCount: false })).toBe(150)
    const bounded = listing(300, 1)
    expect(
      await searchPages(bounded.read, item => item === 250, { trustPageCount: false, maxPages: 2 })
    ).toBeUndefined()
    expect(bounded.asked).toHaveLength(2)
  })
})
