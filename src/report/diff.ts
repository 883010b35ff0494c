/**
 * Where a review comment may go: GitHub takes one on the lines its diff shows (422 "Pull request
 * review thread line must be part of the diff" for any other), and a range within one hunk. The
 * lines are read from the unified diff of each file (`patch` of GET /pulls/{n}/files), on the new
 * side (RIGHT): context lines and added ones.
 */

/** The first and last line of the new file a hunk shows (its RIGHT side is one run of lines). */
export type HunkLines = readonly [first: number, last: number]

const HUNK_HEADER = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/

/**
 * The new file's lines each hunk of `patch` shows, in order; a hunk that only removes lines shows
 * none. Counted from the hunk's lines, not taken from its header. One pass over the patch.
 */
export function rightSideHunks(patch: string): HunkLines[] {
  const hunks: HunkLines[] = []
  let next: number | undefined
  let first: number | undefined
  const close = (): void => {
    if (first !== undefined && next !== undefined && next > first) hunks.push([first, next - 1])
    first = undefined
  }
  let at = 0
  while (at < patch.length) {
    const newline = patch.indexOf('\n', at)
    const end = newline < 0 ? patch.length : newline
    const mark = patch[at]
    if (mark === '@') {
      close()
      // A header is short: only its head is read, whatever the function name after it.
      const header = HUNK_HEADER.exec(patch.slice(at, Math.min(end, at + 100)))
      next = header ? Number(header[1]) : undefined
    } else if (next !== undefined && (mark === ' ' || mark === '+')) {
      first ??= next
      next++
    }
    // '-' is the old side's, '\' says a file lacks its last newline: neither is on the new side.
    at = end + 1
  }
  close()
  return hunks
}

/** Whether lines `line` to `endLine` are all in one hunk's new side. */
export function inDiff(hunks: readonly HunkLines[] | undefined, line: number, endLine: number): boolean {
  return (hunks ?? []).some(([first, last]) => first <= line && endLine <= last)
}
