import { scenario } from '../../../emulator/index.js'
import type { LostAnswer, RecordedGitHubRequest } from '../../../scripts/github-fake/index.js'
import { OWN_COMMENT_MARK } from '../../../src/github-shapes.js'
import { readMarker } from '../../../src/thread/tracking.js'
import { reviewCommentEvent } from '../../support/webhooks.js'
import { emulator, github, fast, onEvent, comment, trackingComments } from '../../support/comment-world.js'

/**
 * GitHub does the work and loses its answer (a 502 of its front end, a reset connection, an answer
 * after the client's 30 s): every create of a thread's step is made once all the same (issue #43).
 * The tracking comment and its reply in a review thread are looked for by their create mark before
 * they are sent again; a reaction is sent again, GitHub answering 200 with the one it has.
 */

const LOSSES: LostAnswer[] = ['502', 'reset', 'late']
const COMMENT_CREATE = /\/issues\/7\/comments$/
const COMMENT_LIST = COMMENT_CREATE

/** The requests matching `method` and `path`, as [ms after the first of them, status, applied]. */
function sent(method: string, path: RegExp): Array<[number, number, boolean]> {
  const matching = github.requests.filter(request => request.method === method && path.test(request.path))
  const first = matching[0]?.at ?? 0
  return matching.map((request: RecordedGitHubRequest) => [
    request.at - first,
    request.status,
    !!request.applied
  ])
}

/** When GitHub's create is lost by `how`, the step's look for it comes this long after it was sent. */
const lookAfter = (how: LostAnswer): number => (how === 'late' ? 30_000 : 0) + 1_000

describe('lost answers on a thread', () => {
  test.each(LOSSES)(
    'the tracking comment made, its answer lost (%s): found again by its mark, one comment, the run followed in it',
    async how => {
      github.injectLostAnswer(1, how, COMMENT_CREATE, 'POST')
      emulator.queueScript(fast('success'))
      const result = await onEvent(comment({ body: '/codegen fix the typo' }))
      expect(result.exitCode).toBe(0)
      const tracking = trackingComments()
      expect(tracking).toHaveLength(1)
      expect(readMarker(tracking[0]!.body)?.runId).toBe(emulator.runs()[0]!.id)
      expect(tracking[0]!.body).toContain('✅ **succeeded**')
      // Sent once; looked for a second after it failed (the late one: after the 30 s limit).
      expect(sent('POST', COMMENT_CREATE)).toEqual([[0, how === '502' ? 502 : 0, true]])
      const create = github.requests.find(
        request => request.method === 'POST' && COMMENT_CREATE.test(request.path)
      )!
      const looks = github.requests.filter(
        request => request.method === 'GET' && COMMENT_LIST.test(request.path) && request.at > create.at
      )
      expect(looks[0]!.at - create.at).toBe(lookAfter(how))
      expect(result.stdout).not.toMatch(/tracking comment/i)
    }
  )

  test('every comment create made and its answer lost: one tracking comment all the same, none sent again', async () => {
    github.injectLostAnswer(12, '502', COMMENT_CREATE, 'POST')
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen fix the typo' }))
    expect(result.exitCode).toBe(0)
    expect(trackingComments()).toHaveLength(1)
    expect(sent('POST', COMMENT_CREATE)).toEqual([[0, 502, true]])
    expect(trackingComments()[0]!.body).toContain('✅ **succeeded**')
  })

  test('a create GitHub did not do (502, nothing made): looked for, not there, sent again once', async () => {
    github.injectServerError(1, COMMENT_CREATE, 502, 'POST')
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen fix the typo' }))
    expect(result.exitCode).toBe(0)
    expect(trackingComments()).toHaveLength(1)
    // Sent, looked for 1, 4 and 9 s later, not found each time: sent again (once), 14 s after the first.
    const first = github.requests.find(
      request => request.method === 'POST' && COMMENT_CREATE.test(request.path)
    )!
    const looks = github.requests.filter(
      request => request.method === 'GET' && COMMENT_LIST.test(request.path) && request.at > first.at
    )
    expect(looks.map(request => request.at - first.at)).toEqual([1_000, 5_000, 14_000])
    expect(sent('POST', COMMENT_CREATE)).toEqual([
      [0, 502, false],
      [14_000, 201, false]
    ])
    expect(trackingComments()[0]!.body).toContain('✅ **succeeded**')
  })

  test.each(LOSSES)(
    'the reply in a review thread made, its answer lost (%s): one reply, the run followed in it',
    async how => {
      github.addPullRequest({ number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' })
      const asked = github.addReviewComment(7, {
        body: '/codegen start the index at 0',
        user: { login: 'alice', type: 'User' },
        path: 'src/parser.ts',
        line: 12,
        side: 'RIGHT',
        diffHunk: '@@ -8,3 +8,3 @@\n-  let i = 0\n+  let i = 1'
      })
      const REPLY = /\/pulls\/7\/comments\/\d+\/replies$/
      github.injectLostAnswer(1, how, REPLY, 'POST')
      emulator.queueScript(fast('success'))
      const result = await onEvent(reviewCommentEvent(asked))
      expect(result.exitCode).toBe(0)
      const replies = github.reviewComments(7).filter(reply => reply.body.startsWith(OWN_COMMENT_MARK))
      expect(replies).toHaveLength(1)
      expect(replies[0]).toMatchObject({ in_reply_to_id: asked.id })
      expect(readMarker(replies[0]!.body)?.runId).toBe(emulator.runs()[0]!.id)
      expect(replies[0]!.body).toContain('✅ **succeeded**')
      expect(sent('POST', REPLY)).toEqual([[0, how === '502' ? 502 : 0, true]])
    }
  )

  test.each(LOSSES)(
    'the reaction made, its answer lost (%s): sent again, GitHub answers 200 with it: one reaction',
    async how => {
      const REACTION = /\/issues\/comments\/\d+\/reactions$/
      github.injectLostAnswer(1, how, REACTION, 'POST')
      emulator.queueScript(scenario('success', 20))
      const asked = comment({ body: '/codegen fix the typo' })
      const result = await onEvent(asked)
      expect(result.exitCode).toBe(0)
      expect(github.reactions).toEqual([
        expect.objectContaining({ target: { commentId: asked.payload.comment.id }, content: 'eyes' })
      ])
      // Sent again a second after the failure (the late one: after its 30 s).
      expect(sent('POST', REACTION)).toEqual([
        [0, how === '502' ? 502 : 0, true],
        [lookAfter(how), 200, false]
      ])
      expect(result.stdout).not.toMatch(/Could not react/)
    }
  )
})
