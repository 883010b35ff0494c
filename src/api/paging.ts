import type { Page } from './types.js'

/** The service pages by 100 at most. */
export const PAGE_SIZE = 100
/** 50 pages is far beyond any real account. */
export const MAX_PAGES = 50

export interface Paging {
  /** Pages read at most (MAX_PAGES). */
  maxPages?: number
  /**
   * Whether the answer's page count ends the listing (default), or only a short page does: a listing
   * that moves as it is read (runs, newest first) may count too few.
   */
  trustPageCount?: boolean
}

/** One page of a listing at `skip`, `limit` items long. */
export type ReadPage<T> = (skip: number, limit: number) => Promise<Pick<Page<T>, 'items' | 'pages' | 'sent'>>

/** The first item `wanted` accepts, page after page; undefined after a short or last page. */
export async function searchPages<T>(
  read: ReadPage<T>,
  wanted: (item: T) => boolean,
  paging: Paging = {}
): Promise<T | undefined> {
  const maxPages = paging.maxPages ?? MAX_PAGES
  for (let page = 0; page < maxPages; page++) {
    const result = await read(page * PAGE_SIZE, PAGE_SIZE)
    const match = result.items.find(wanted)
    if (match !== undefined) return match
    const last = paging.trustPageCount !== false && page + 1 >= result.pages
    // Short as the service sent it: an item it sent that could not be read does not end the listing.
    if ((result.sent ?? result.items.length) < PAGE_SIZE || last) return undefined
  }
  return undefined
}

/** Every item of a paged listing, page after page, until a short or last page. */
export async function allPages<T>(read: ReadPage<T>): Promise<T[]> {
  const all: T[] = []
  await searchPages(read, item => {
    all.push(item)
    return false
  })
  return all
}
