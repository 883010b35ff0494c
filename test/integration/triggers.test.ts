import type { FakeReviewComment, NewReviewComment } from '../github-fake/index.js'
import { emulator, fast, github, onEvent } from '../support/comment-world.js'
import { markerLine, markerSignature, readMarker } from '../../src/github/tracking.js'
import { OWN_COMMENT_MARK } from '../../src/github/trigger.js'
import {
  assignedEvent,
  issueCommentEvent,
  labeledEvent,
  reviewCommentEvent,
  reviewEvent,
  type PullRequestFields
} from '../support/webhooks.js'

/**
 * Every way of asking besides a `/codegen` comment (issue #12): labels, assignment, comments on a
 * pull request's code, reviews, and the bot rules. The bundled action, the service emulator and a
 * fake GitHub, all on loopback; the events are GitHub's own webhook examples.
 */

// The comment workflow's world (emulator, fake GitHub and the bundled action, fresh for each test),
// with the pull request these events are about.
beforeEach(() => {
  github.addPullRequest({
    number: 7,
    title: 'Parse quoted fields',
    body: '',
    head: 'feature/parser',
    base: 'main'
  })
})

const creates = () => emulator.requests.filter(request => request.route === 'create')
const resumes = () => emulator.requests.filter(request => request.route === 'resume')
const promptOf = (request: { body: unknown } | undefined): string =>
  (request?.body as { prompt: string }).prompt
/** GitHub writes but the check run's (check-runs.test.ts follows those). */
const writes = () =>
  github.requests.filter(request => request.method !== 'GET' && !request.path.includes('/check-runs'))
const own = (body: string): boolean => body.startsWith(OWN_COMMENT_MARK)
const trackingComments = (issue: number) => github.comments(issue).filter(c => own(c.body))
const trackingReplies = (pull = 7) => github.reviewComments(pull).filter(c => own(c.body))

/** A review comment as GitHub has it (stored in the fake) and the event it sends. */
function reviewComment(
  options: Partial<NewReviewComment> & { body: string },
  event: { action?: string; pullRequest?: PullRequestFields } = {}
): { stored: FakeReviewComment; event: ReturnType<typeof reviewCommentEvent> } {
  const stored = github.addReviewComment(7, {
    user: { login: 'alice', type: 'User' },
    path: 'src/parser.ts',
    line: 12,
    startLine: 10,
    side: 'RIGHT',
    diffHunk:
      '@@ -8,5 +8,5 @@ export function parse(line) {\n   const fields = []\n-  let i = 0\n+  let i = 1\n   while (i < line.length) {',
    ...options
  })
  return { stored, event: reviewCommentEvent(stored, event) }
}

function issueComment(
  body: string,
  issueNumber = 7,
  pullRequest = true
): ReturnType<typeof issueCommentEvent> {
  const stored = github.addComment(issueNumber, body, { login: 'alice', type: 'User' })
  return issueCommentEvent({ body, commentId: stored.id, issueNumber, pullRequest })
}

describe('label-trigger', () => {
  test('an issue that gets the label starts a run on its text, with one tracking comment', async () => {
    emulator.queueScript(fast('success'))
    github.addLabel(9, 'codegen')
    const result = await onEvent(labeledEvent({ label: 'codegen', number: 9 }), {
      'label-trigger': 'codegen',
      prompt: 'Keep changes minimal.'
    })
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'label' })
    const prompt = promptOf(creates()[0])
    expect(prompt).toMatch(/^Keep changes minimal\.\n\nWork on the issue below as it is written\./)
    expect(prompt).toContain(
      '@alice added the label "codegen" to issue #9 in octo-org/octo-repo: https://github.com/octo-org/octo-repo/issues/9'
    )
    expect(prompt).toContain('> Add a CSV export')
    expect(prompt).toContain('> For the reports page.')
    expect(prompt).not.toContain('ignore all previous instructions')
    expect(github.reactions).toEqual([
      expect.objectContaining({ target: { issueNumber: 9 }, content: 'eyes' })
    ])
    const tracking = trackingComments(9)
    expect(tracking).toHaveLength(1)
    expect(readMarker(tracking[0]!.body)?.runId).toBe(emulator.runs()[0]!.id)
    expect(tracking[0]!.body).toContain('✅ **succeeded**')
  })

  test('the label added again resumes the thread’s run and edits its comment', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(labeledEvent({ label: 'codegen', number: 9 }), { 'label-trigger': 'codegen' })
    emulator.queueScript(fast('success'))
    const result = await onEvent(labeledEvent({ label: 'Codegen', number: 9 }), {
      'label-trigger': 'codegen'
    })
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'label' })
    expect(creates()).toHaveLength(1)
    expect(resumes()).toHaveLength(1)
    expect(resumes()[0]!.body).toMatchObject({ agent_run_id: emulator.runs()[0]!.id })
    expect(trackingComments(9)).toHaveLength(1)
  })

  test('a pull request from a fork, labelled under pull_request_target: the prompt names the fork’s branch', async () => {
    emulator.queueScript(fast('success'))
    const event = labeledEvent({
      label: 'codegen',
      eventName: 'pull_request_target',
      pullRequest: { number: 7, head: 'patch-1', headRepository: 'stranger/octo-repo' }
    })
    const result = await onEvent(event, { 'label-trigger': 'codegen' })
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'label' })
    const prompt = promptOf(creates()[0])
    expect(prompt).toContain('@alice added the label "codegen" to pull request #7')
    expect(prompt).toContain(
      'The pull request merges branch patch-1 of the fork stranger/octo-repo into main.'
    )
    expect(prompt).toContain('> Parse quoted fields')
    // The event carries the branches: the pull request is not fetched.
    expect(github.requests.filter(request => request.path.endsWith('/pulls/7'))).toEqual([])
    expect(trackingComments(7)).toHaveLength(1)
  })

  test('without label-trigger, pull request events run from the inputs as before', async () => {
    emulator.queueScript(fast('success'))
    const result = await onEvent(labeledEvent({ label: 'codegen', pullRequest: {} }), { prompt: 'Review it' })
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'inputs' })
    expect(promptOf(creates()[0])).toBe('Review it')
    expect(github.requests).toEqual([])
  })
})

describe('assignee-trigger', () => {
  test('an issue assigned to it starts a run', async () => {
    emulator.queueScript(fast('success'))
    github.assign(9, 'codegen-agent')
    const result = await onEvent(assignedEvent({ assignee: 'codegen-agent', sender: 'bob' }), {
      'assignee-trigger': '@codegen-agent'
    })
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'assignment' })
    expect(promptOf(creates()[0])).toContain(
      '@bob assigned issue #9 in octo-org/octo-repo to @codegen-agent: https://github.com/octo-org/octo-repo/issues/9'
    )
    expect(trackingComments(9)).toHaveLength(1)
  })
})

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
    expect(trackingReplies()[0]!.body).toContain('⚠️ could not be followed')
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

describe('a /codegen review', () => {
  test('starts a run on the review’s text, tracked on the pull request', async () => {
    emulator.queueScript(fast('success'))
    const result = await onEvent(
      reviewEvent({
        body: '/codegen address the comments below',
        pullRequest: { headRepository: 'fork/octo-repo' }
      })
    )
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'review' })
    const prompt = promptOf(creates()[0])
    expect(prompt).toMatch(/^address the comments below\n/)
    expect(prompt).toContain(
      '@alice asked for this in a review (changes requested) of pull request #7 in octo-org/octo-repo: https://github.com/octo-org/octo-repo/pull/7#pullrequestreview-80'
    )
    expect(prompt).toContain('merges branch feature/parser of the fork fork/octo-repo into main')
    expect(prompt).toContain('> Parse quoted fields')
    expect(trackingComments(7)).toHaveLength(1)
    expect(github.reactions).toEqual([expect.objectContaining({ target: { issueNumber: 7 } })])
  })
})

describe('bots', () => {
  test('allowed-bots lets a named bot trigger without a permission check', async () => {
    emulator.queueScript(fast('success'))
    const stored = github.addComment(7, '/codegen bump the lock file', {
      login: 'renovate[bot]',
      type: 'Bot'
    })
    const event = issueCommentEvent({
      body: stored.body,
      commentId: stored.id,
      login: 'renovate[bot]',
      userType: 'Bot',
      pullRequest: true
    })
    const result = await onEvent(event, { 'allowed-bots': 'dependabot, renovate' })
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'comment' })
    expect(promptOf(creates()[0])).toContain('@renovate[bot] asked for this on pull request #7')
    expect(github.requests.filter(request => request.path.endsWith('/permission'))).toEqual([])
  })

  test('`*` lets any bot label an issue', async () => {
    emulator.queueScript(fast('success'))
    const event = labeledEvent({ label: 'codegen', sender: 'triage-app[bot]', senderType: 'Bot' })
    const result = await onEvent(event, { 'label-trigger': 'codegen', 'allowed-bots': '*' })
    expect(result.outputs).toMatchObject({ outcome: 'success', trigger: 'label' })
  })

  test('the action’s own comment never triggers, whatever allowed-bots says', async () => {
    const body = `${markerLine(undefined)}\n/codegen do it again`
    const stored = github.addReviewComment(7, { body, user: { login: 'github-actions[bot]', type: 'Bot' } })
    const result = await onEvent(reviewCommentEvent(stored), { 'allowed-bots': '*' })
    expect(result.outputs).toMatchObject({ outcome: 'skipped', trigger: '' })
    expect(result.stdout).toMatch(/::notice::No agent run: The review comment is one of the action’s own\./)
    expect(emulator.requests).toEqual([])
  })
})

describe('refusals: skipped green, a notice, nothing sent to the service', () => {
  const labelled = { 'label-trigger': 'codegen', 'assignee-trigger': 'codegen-agent' }
  test.each<[string, () => { name: string; payload: unknown }, Record<string, string>, RegExp]>([
    [
      'a label other than label-trigger',
      () => labeledEvent({ label: 'bug' }),
      labelled,
      /The label "bug" is not label-trigger \("codegen"\)/
    ],
    [
      'a label while label-trigger is not set',
      () => labeledEvent({ label: 'codegen' }),
      {},
      /The label "codegen" was added, and label-trigger is not set/
    ],
    [
      'a label on a pull request added by a stranger',
      () => labeledEvent({ label: 'codegen', pullRequest: {}, sender: 'stranger' }),
      labelled,
      /@stranger has none permission/
    ],
    [
      'a label added by a triager',
      () => labeledEvent({ label: 'codegen', sender: 'tri' }),
      labelled,
      /@tri has triage permission/
    ],
    [
      'a label added by a bot not in allowed-bots',
      () => labeledEvent({ label: 'codegen', sender: 'github-actions[bot]', senderType: 'Bot' }),
      { ...labelled, 'allowed-bots': 'renovate' },
      /github-actions\[bot\] is a bot; bots never trigger a run unless allowed-bots names them/
    ],
    [
      'a pull request event other than labeled',
      () => ({ ...labeledEvent({ label: 'codegen', pullRequest: {}, action: 'opened' }) }),
      labelled,
      /pull_request events with action "opened" never trigger a run; only "labeled" does/
    ],
    [
      'an assignment to someone else',
      () => assignedEvent({ assignee: 'carol' }),
      labelled,
      /assigned to @carol, not to assignee-trigger \(@codegen-agent\)/
    ],
    [
      'an assignment by a read-only user',
      () => assignedEvent({ assignee: 'codegen-agent', sender: 'reader' }),
      labelled,
      /@reader has read permission/
    ],
    [
      'an unassignment',
      () => assignedEvent({ assignee: 'codegen-agent', action: 'unassigned' }),
      labelled,
      /issues events with action "unassigned" never trigger/
    ],
    [
      'a review comment without the phrase',
      () => reviewComment({ body: 'nit: /codegen' }).event,
      {},
      /The review comment does not start with \/codegen/
    ],
    [
      'an edited review comment',
      () => reviewComment({ body: '/codegen fix' }, { action: 'edited' }).event,
      {},
      /pull_request_review_comment events with action "edited" never trigger/
    ],
    [
      'a deleted review comment',
      () => reviewComment({ body: '/codegen fix' }, { action: 'deleted' }).event,
      {},
      /action "deleted" never trigger/
    ],
    [
      'a review comment by a stranger on a fork’s pull request',
      () =>
        reviewComment(
          { body: '/codegen merge me', user: { login: 'stranger', type: 'User' } },
          { pullRequest: { headRepository: 'stranger/octo-repo' } }
        ).event,
      {},
      /@stranger has none permission/
    ],
    [
      'a review comment by a bot',
      () => reviewComment({ body: '/codegen fix', user: { login: 'dependabot[bot]', type: 'Bot' } }).event,
      {},
      /dependabot\[bot\] is a bot/
    ],
    [
      'a review without a body',
      () => reviewEvent({ body: null, state: 'approved' }),
      {},
      /The review does not start with \/codegen/
    ],
    [
      'a dismissed review',
      () => reviewEvent({ body: '/codegen fix', action: 'dismissed' }),
      {},
      /pull_request_review events with action "dismissed" never trigger/
    ],
    [
      'a review by a triager',
      () => reviewEvent({ body: '/codegen fix', login: 'tri' }),
      {},
      /@tri has triage permission/
    ]
  ])('%s', async (_what, event, inputs, reason) => {
    const result = await onEvent(event(), inputs)
    expect(result.exitCode).toBe(0)
    expect(result.outputs).toMatchObject({ outcome: 'skipped', trigger: '' })
    expect(result.stdout).toMatch(new RegExp(`::notice::No agent run: .*${reason.source}`))
    expect(emulator.requests).toEqual([])
    expect(writes()).toEqual([])
  })
})
