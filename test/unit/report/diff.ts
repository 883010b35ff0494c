import { findingsDiff } from '../../../emulator/index.js'
import { inDiff, rightSideHunks } from '../../../src/report/diff.js'

/** The lines of a pull request's diff a review comment may go on: the new side of each hunk. */

describe('rightSideHunks', () => {
  test('context and added lines count on the new side, removed ones do not; a hunk each', () => {
    const patch = [
      '@@ -1,4 +1,5 @@ export function a() {',
      ' one',
      '-two',
      '+2',
      '+2.5',
      ' three',
      ' four',
      '@@ -40,3 +41,2 @@',
      ' forty',
      '-forty-one',
      ' forty-two',
      '\\ No newline at end of file'
    ].join('\n')
    expect(rightSideHunks(patch)).toEqual([
      [1, 5],
      [41, 42]
    ])
  })

  test("a hunk that only removes lines shows none of the new side; a file's whole removal, none", () => {
    expect(rightSideHunks('@@ -3,2 +2,0 @@\n-a\n-b')).toEqual([])
    expect(rightSideHunks('@@ -1,2 +0,0 @@\n-a\n-b\n')).toEqual([])
    expect(rightSideHunks('')).toEqual([])
  })

  test('a new file: every line; a header with one line and no count', () => {
    expect(rightSideHunks('@@ -0,0 +1,3 @@\n+a\n+b\n+c')).toEqual([[1, 3]])
    expect(rightSideHunks('@@ -7 +7 @@\n-a\n+b')).toEqual([[7, 7]])
  })

  test('the lines are counted, not taken from a header that says otherwise; a broken header starts nothing', () => {
    expect(rightSideHunks('@@ -1,2 +10,99 @@\n a\n+b')).toEqual([[10, 11]])
    expect(rightSideHunks('@@ garbage @@\n a\n+b\n@@ -5,1 +5,1 @@\n x')).toEqual([[5, 5]])
  })

  test('the findings scenario’s diff', () => {
    const [index, parser] = findingsDiff()
    expect(rightSideHunks(index!.patch)).toEqual([[1, 4]])
    expect(rightSideHunks(parser!.patch)).toEqual([[40, 50]])
  })

  test('a patch of 200,000 lines is read in one pass', () => {
    const patch = `@@ -1,1 +1,200000 @@\n${'+x\n'.repeat(200_000)}`
    expect(rightSideHunks(patch)).toEqual([[1, 200_000]])
  })
})

describe('inDiff', () => {
  const hunks = [
    [1, 5],
    [41, 42]
  ] as const
  test('a line or a range inside one hunk', () => {
    expect([inDiff(hunks, 1, 1), inDiff(hunks, 2, 5), inDiff(hunks, 41, 42)]).toEqual([true, true, true])
  })
  test('outside every hunk, across two hunks, or a file not in the diff', () => {
    expect([
      inDiff(hunks, 6, 6),
      inDiff(hunks, 5, 41),
      inDiff(hunks, 40, 41),
      inDiff(undefined, 1, 1)
    ]).toEqual([false, false, false, false])
  })
})
