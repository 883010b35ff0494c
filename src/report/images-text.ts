import type { ImageLeftOut, ThreadImages } from '../model.js'
import { cutChars } from '../text.js'
import { plainInline } from './markdown.js'

/**
 * What the reports say of the thread's images (thread-images): how many were sent and from where,
 * how many were left out and why, in one line. Never a URL: `ThreadImages` holds none.
 */

const WHY: Record<ImageLeftOut, string> = {
  'too-big': 'too big',
  'not-an-image': 'not an image',
  cap: 'over the cap of 10 images and 10 MiB',
  failed: 'download failed'
}

/** At most this many characters of the line (its places come from logins and dates). */
const LINE_MAX_CHARS = 1_000

const images = (n: number): string => `${n} image${n === 1 ? '' : 's'}`

/** Counts of each key, in the order first seen. */
function counted<T>(items: T[], key: (item: T) => string): string[] {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1)
  return [...counts].map(([name, n]) => `${n} ${name}`)
}

/**
 * "Images from the thread: 2 sent (1 from @alice's comment of 2026-12-01, 1 from the issue's
 * description); 1 left out (1 too big)." Plain text, one line.
 */
export function threadImagesLine(report: ThreadImages): string {
  const sent =
    report.sent.length === 0
      ? 'none sent'
      : `${images(report.sent.length)} sent (${counted(report.sent, image => `from ${image.where}`).join(', ')})`
  const leftOut =
    report.leftOut.length === 0
      ? ''
      : `; ${report.leftOut.length} left out (${counted(report.leftOut, image => WHY[image.why]).join(', ')})`
  return cutChars(`Images from the thread: ${sent}${leftOut}.`, LINE_MAX_CHARS)
}

/** The same line for a comment or a summary: nothing in it opens Markdown or mentions anyone. */
export function threadImagesMarkdown(report: ThreadImages): string {
  return plainInline(threadImagesLine(report))
}
