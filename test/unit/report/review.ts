import type { Finding } from '../../../src/answer/findings.js'
import type { ReviewSummary } from '../../../src/github/api.js'
import {
  isOurReview,
  MAX_INLINE_COMMENTS,
  placeFindings,
  reviewComment,
  reviewMarker
} from '../../../src/report/review.js'
import { isBot } from '../../../src/thread/trigger.js'

/** The review of the findings: which go inline, how a comment is placed, and how our review is known again. */

const finding = (fields: Partial<Finding>): Finding => ({
  path: 'src/parser.ts',
  line: 46,
  endLine: 46,
  severity: 'warning',
  message: 'm',
  ...fields
})

const HUNKS = new Map([
  ['src/parser.ts', [[40, 50] as const]],
  ['src/index.ts', [[1, 4] as const]]
])

describe('placeFindings', () => {
  test('inline: those whose lines are in one hunk of the diff; the others for the body; the most severe first', () => {
    const inside = finding({ line: 46, endLine: 47 })
    const failure = finding({ path: 'src/index.ts', line: 2, endLine: 2, severity: 'failure' })
    const outsideLines = finding({ line: 88, endLine: 88, severity: 'notice' })
    const across = finding({ line: 48, endLine: 60 })
    const otherFile = finding({ path: 'docs/api.md', line: 14, endLine: 14 })
    expect(placeFindings([inside, outsideLines, failure, across, otherFile], HUNKS)).toEqual({
      inline: [failure, inside],
      listed: [across, otherFile, outsideLines]
    })
  })

  test('50 inline at most: the rest in the body, failures inline first', () => {
    const notices = Array.from({ length: 60 }, (_, i) => finding({ line: 40 + (i % 10), severity: 'notice' }))
    const failures = Array.from({ length: 5 }, () => finding({ severity: 'failure' }))
    const { inline, listed } = placeFindings([...notices, ...failures], HUNKS)
    expect(inline).toHaveLength(MAX_INLINE_COMMENTS)
    expect(inline.slice(0, 5).every(one => one.severity === 'failure')).toBe(true)
    expect(listed).toHaveLength(15)
  })
})

describe('reviewComment', () => {
  test('on the new side: `line`, and `start_line` for a range', () => {
    expect(reviewComment(finding({ line: 46, endLine: 46 }))).toEqual({
      path: 'src/parser.ts',
      body: expect.stringContaining('**warning**'),
      line: 46,
      side: 'RIGHT'
    })
    expect(reviewComment(finding({ line: 46, endLine: 47 }))).toMatchObject({
      line: 47,
      start_line: 46,
      side: 'RIGHT',
      start_side: 'RIGHT'
    })
  })
})

describe('our review, known again', () => {
  const key = { secret: 'api-token', repository: 'octo-org/octo-repo' }
  const place = { pullNumber: 7, sha: 'a'.repeat(40) }
  const bot = { login: 'github-actions[bot]', type: 'Bot' }
  const review = (body: string, author = bot): ReviewSummary => ({ id: 1, body, author })

  test('its marker, first, signed for the pull request and commit, by a trusted author', () => {
    const marker = reviewMarker(key, place)
    expect(marker).toMatch(/^<!-- codegen-agent-run-action review sha=a{40} sig=[0-9a-f]{32} -->$/)
    expect(isOurReview(review(`${marker}\n### 🤖 …`), key, place, isBot)).toBe(true)
  })

  test('not ours: written by a person, for another commit or pull request, with another token, or not first', () => {
    const marker = reviewMarker(key, place)
    const person = { login: 'mallory', type: 'User' }
    expect(isOurReview(review(marker, person), key, place, isBot)).toBe(false)
    expect(isOurReview(review(reviewMarker(key, { ...place, sha: 'b'.repeat(40) })), key, place, isBot)).toBe(
      false
    )
    expect(isOurReview(review(reviewMarker(key, { ...place, pullNumber: 8 })), key, place, isBot)).toBe(false)
    expect(isOurReview(review(reviewMarker({ ...key, secret: 'other' }, place)), key, place, isBot)).toBe(
      false
    )
    expect(isOurReview(review(`Looks good\n${marker}`), key, place, isBot)).toBe(false)
    expect(isOurReview(review(''), key, place, isBot)).toBe(false)
  })
})
