import {
  findTrackingComment,
  markerSignature,
  readMarker,
  verifyMarker
} from '../../../src/thread/tracking.js'
import { markerLine } from '../../../src/github-shapes.js'

/** The tracking comment's marker (src/thread/tracking.ts): signed for its comment, and how the comment is found again. */

describe('the tracking comment’s marker', () => {
  const key = { secret: 'api-token', repository: 'octo-org/octo-repo', issueNumber: 7 }

  test('a marker signature binds the run to its comment, the thread and the API token, and does not reveal the token', () => {
    const sig = markerSignature(key, 555, 12)
    expect(sig).toMatch(/^[0-9a-f]{32}$/)
    expect(sig).not.toContain(key.secret)
    expect(verifyMarker(key, 555, { runId: 12, sig })).toBe(true)
    expect(verifyMarker(key, 556, { runId: 12, sig })).toBe(false)
    expect(verifyMarker(key, 555, { runId: 13, sig })).toBe(false)
    expect(verifyMarker(key, 555, { runId: 12 })).toBe(false)
    expect(verifyMarker(key, 555, { runId: 12, sig: sig.slice(0, 16) })).toBe(false)
    expect(verifyMarker({ ...key, issueNumber: 8 }, 555, { runId: 12, sig })).toBe(false)
    expect(verifyMarker({ ...key, repository: 'octo-org/other' }, 555, { runId: 12, sig })).toBe(false)
    expect(verifyMarker({ ...key, secret: 'another-token' }, 555, { runId: 12, sig })).toBe(false)
    const unkeyed = { ...key, secret: '' }
    expect(verifyMarker(unkeyed, 555, { runId: 12, sig: markerSignature(unkeyed, 555, 12) })).toBe(false)
  })

  test('a plan’s marker signs its digest: another digest, none, or working in its place does not verify', () => {
    const digest = '0123456789abcdef'
    const sig = markerSignature(key, 555, 12, 'issue', digest)
    const marker = readMarker(markerLine(12, sig, digest))
    expect(marker).toEqual({ runId: 12, plan: digest, sig })
    expect(verifyMarker(key, 555, marker!)).toBe(true)
    expect(verifyMarker(key, 555, { ...marker!, plan: 'fedcba9876543210' })).toBe(false)
    expect(verifyMarker(key, 555, { ...marker!, plan: 'working' })).toBe(false)
    expect(verifyMarker(key, 555, { runId: 12, sig })).toBe(false)
    expect(verifyMarker(key, 556, marker!)).toBe(false)
    expect(verifyMarker(key, 555, marker!, 'review')).toBe(false)
    // A run's plain signature does not sign a plan added to its marker.
    expect(verifyMarker(key, 555, { runId: 12, plan: digest, sig: markerSignature(key, 555, 12) })).toBe(
      false
    )
    // Only a 16-hex digest or working is a plan field: anything else is no marker at all.
    for (const plan of ['0123456789ABCDEF', '0123456789abcde', 'pending'])
      expect(
        readMarker(`<!-- codegen-agent-run-action run-id=12 plan=${plan} sig=${sig} -->`)
      ).toBeUndefined()
  })

  test('only trusted authors’ markers that verify are followed, the latest first', () => {
    const signed = (commentId: number, runId: number) =>
      markerLine(runId, markerSignature(key, commentId, runId))
    const bot = { login: 'github-actions[bot]', type: 'Bot' }
    const comments = [
      { id: 1, body: signed(1, 10), author: bot },
      { id: 2, body: signed(2, 11), author: bot },
      { id: 3, body: signed(3, 666), author: { login: 'mallory', type: 'User' } },
      { id: 4, body: markerLine(777), author: { login: 'some-app[bot]', type: 'Bot' } },
      { id: 5, body: markerLine(888, markerSignature({ ...key, issueNumber: 8 }, 5, 888)), author: bot },
      // An older marker of this thread reposted in a new comment.
      { id: 6, body: signed(1, 10), author: bot }
    ]
    const verify = (marker: { runId: number; sig?: string }, commentId: number) =>
      verifyMarker(key, commentId, marker)
    expect(findTrackingComment(comments, author => author.type === 'Bot', verify)).toEqual({
      found: { id: 2, runId: 11 },
      ignored: [
        { id: 6, runId: 10 },
        { id: 5, runId: 888 },
        { id: 4, runId: 777 }
      ]
    })
    expect(findTrackingComment(comments, author => author.login === 'nobody', verify)).toEqual({
      ignored: []
    })
  })
})
