import { emulator, fast, github, onEvent } from '../../support/comment-world.js'
import { markerLine } from '../../../src/github-shapes.js'
import { markerSignature, readMarker } from '../../../src/thread/tracking.js'
import {
  creates,
  resumes,
  promptOf,
  writes,
  trackingComments,
  trackingReplies,
  reviewComment,
  issueComment
} from '../../support/trigger-world.js'

/**
 * A `/codegen` comment on a pull request's code (issue #12): the code in the prompt, the answer in
 * the review thread, resumes from any thread of the pull request, and GitHub failing or comments off.
 * The bundled action, the service emulator and a fake GitHub, all on loopback.
 */

describe('a /codegen comment on a pull request’s code', () => {
  test('starts a run with the code in the prompt, and answers in the review thread', async () => {
    emulator.queueScript(fast('success'))
    const { stored, event } = reviewComment({ body: '/codegen start the index at 0 again' })
    const result = await onEvent(event, { prompt: 'Run the tests.' })
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'review-comment' })

    const prompt = promptOf(creates()[0])
    expect(prompt).toMatch(/^Run the tests\.\n\nstart the index at 0 again\n\n/)
    expect(prompt).toContain(
      `@alice asked for this in a comment on the code of pull request #7 in octo-org/octo-repo: ${stored.html_url}`
    )
    expect(prompt).toContain('The pull request merges branch feature/parser into main.')
    expect(prompt).toContain(
      'The comment is on lines 10 to 12 of `src/parser.ts`, in the pull request’s version (right side of the diff).'
    )
    expect(prompt).toContain('```diff\n@@ -8,5 +8,5 @@ export function parse(line) {\n')
    expect(prompt).toContain('+  let i = 1\n   while (i < line.length) {\n```')
    expect(prompt).toContain('Quoted text from the pull request')
    expect(prompt).toContain('> Parse quoted fields')
    expect(prompt).toContain('> Fixes the last field.')
    expect(prompt).not.toContain('hidden from readers')

    expect(github.reactions).toEqual([
      expect.objectContaining({ target: { reviewCommentId: stored.id }, content: 'eyes' })
    ])
    // The tracking comment is a reply in the thread, next to the code; nothing on the conversation.
    expect(trackingComments(7)).toEqual([])
    const replies = trackingReplies()
    expect(replies).toHaveLength(1)
    expect(replies[0]).toMatchObject({ in_reply_to_id: stored.id, path: 'src/parser.ts', line: 12 })
    expect(readMarker(replies[0]!.body)?.runId).toBe(emulator.runs()[0]!.id)
    expect(replies[0]!.body).toContain('✅ **succeeded**')
    expect(writes().map(request => `${request.method} ${request.path}`)).toEqual([
      `POST /repos/octo-org/octo-repo/pulls/comments/${stored.id}/reactions`,
      `POST /repos/octo-org/octo-repo/pulls/7/comments/${stored.id}/replies`,
      ...writes()
        .slice(2)
        .map(() => `PATCH /repos/octo-org/octo-repo/pulls/comments/${replies[0]!.id}`)
    ])
  })

  test('a reply in the thread resumes its run and edits the same tracking reply', async () => {
    emulator.queueScript(fast('success'))
    const first = reviewComment({ body: '/codegen start the index at 0 again' })
    await onEvent(first.event)
    const runId = emulator.runs()[0]!.id
    const [tracking] = trackingReplies()

    emulator.queueScript(fast('success'))
    const reply = reviewComment({ body: '/codegen and add a test for it', inReplyTo: tracking!.id })
    expect(reply.stored.in_reply_to_id).toBe(first.stored.id)
    const result = await onEvent(reply.event)
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'review-comment' })
    expect(creates()).toHaveLength(1)
    expect(resumes()[0]!.body).toMatchObject({ agent_run_id: runId })
    const prompt = promptOf(resumes()[0])
    expect(prompt).toMatch(/^and add a test for it\n/)
    // A follow-up keeps the code it points at, not the pull request's text again.
    expect(prompt).toContain('lines 10 to 12 of `src/parser.ts`')
    expect(prompt).not.toContain('Quoted text from the pull request')
    expect(trackingReplies().map(c => c.id)).toEqual([tracking!.id])
    expect(github.reactions.at(-1)).toMatchObject({ target: { reviewCommentId: reply.stored.id } })
  })

  test('another thread of the pull request, or its conversation, resumes the same run where it was asked', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(reviewComment({ body: '/codegen start the index at 0 again' }).event)
    const runId = emulator.runs()[0]!.id

    emulator.queueScript(fast('success'))
    const other = reviewComment({
      body: '/codegen rename it too',
      path: 'src/cli.ts',
      line: 3,
      startLine: null
    })
    await onEvent(other.event)
    expect(resumes()).toHaveLength(1)
    expect(resumes()[0]!.body).toMatchObject({ agent_run_id: runId })
    expect(promptOf(resumes()[0])).toContain('The comment is on line 3 of `src/cli.ts`')
    const replies = trackingReplies()
    expect(replies).toHaveLength(2)
    expect(replies[1]).toMatchObject({ in_reply_to_id: other.stored.id })
    expect(replies.map(c => readMarker(c.body)?.runId)).toEqual([runId, runId])

    emulator.queueScript(fast('success'))
    const result = await onEvent(issueComment('/codegen and update the changelog'))
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'comment' })
    expect(resumes()).toHaveLength(2)
    expect(resumes()[1]!.body).toMatchObject({ agent_run_id: runId })
    expect(trackingComments(7).map(c => readMarker(c.body)?.runId)).toEqual([runId])
    expect(creates()).toHaveLength(1)
  })

  test('`/codegen new` on the code starts a fresh run', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(reviewComment({ body: '/codegen start the index at 0 again' }).event)
    emulator.queueScript(fast('success'))
    await onEvent(reviewComment({ body: '/codegen new try a different approach' }).event)
    expect(creates()).toHaveLength(2)
    expect(resumes()).toHaveLength(0)
  })

  test('a marker a person wrote in a review comment, even a signed one copied, is not followed', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(reviewComment({ body: '/codegen start the index at 0 again' }).event)
    const [tracking] = trackingReplies()
    // Mallory copies the tracking reply, signature and all, into a comment of her own.
    github.addReviewComment(7, { body: tracking!.body, user: { login: 'mallory', type: 'User' } })
    // And a bot writes a marker signed for a comment on the conversation with the same id.
    const forged = github.addReviewComment(7, {
      body: 'x',
      user: { login: 'github-actions[bot]', type: 'Bot' }
    })
    const key = { secret: 'emulator-token', repository: 'octo-org/octo-repo', issueNumber: 7 }
    github.editReviewComment(
      forged.id,
      `${markerLine(4242, markerSignature(key, forged.id, 4242))}\nrun 4242`
    )

    emulator.queueScript(fast('success'))
    const result = await onEvent(reviewComment({ body: '/codegen continue' }).event)
    expect(result.stdout).toMatch(/::notice::Not following the run marker of comment \d+ \(run 4242\)/)
    expect(resumes()).toHaveLength(1)
    expect(resumes()[0]!.body).toMatchObject({ agent_run_id: emulator.runs()[0]!.id })
  })
})

describe('a /codegen comment on a pull request’s code, when GitHub fails or comments are off', () => {
  test('review comments GitHub will not list fail the step with one clear error, and the reply says why', async () => {
    github.injectClientError(1, /\/pulls\/7\/comments$/)
    const result = await onEvent(reviewComment({ body: '/codegen fix' }).event)
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ outcome: 'error', trigger: 'review-comment' })
    expect(result.stdout).toMatch(
      /::error::Could not read the comments of #7 to find its tracking comment \(Not Found.*\); the run is not started/
    )
    expect(emulator.requests).toEqual([])
    expect(trackingReplies()[0]!.body).toContain('⚠️ could not be started')
  })

  test('comment: false writes no reply, and still resumes through an earlier one', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(reviewComment({ body: '/codegen fix' }).event)
    const runId = emulator.runs()[0]!.id
    emulator.queueScript(fast('success'))
    const { stored, event } = reviewComment({ body: '/codegen and the docs' })
    const result = await onEvent(event, { comment: 'false' })
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'review-comment' })
    expect(resumes()[0]!.body).toMatchObject({ agent_run_id: runId })
    expect(
      writes()
        .slice(-1)
        .map(request => `${request.method} ${request.path}`)
    ).toEqual([`POST /repos/octo-org/octo-repo/pulls/comments/${stored.id}/reactions`])
    expect(trackingReplies()).toHaveLength(1)
  })
})
