import { emulator, fast, github, onEvent } from '../../support/comment-world.js'
import { markerLine } from '../../../src/github-shapes.js'
import { readMarker } from '../../../src/thread/tracking.js'
import { creates, resumes, promptOf, trackingComments } from '../../support/trigger-world.js'
import {
  assignedEvent,
  issueCommentEvent,
  labeledEvent,
  reviewCommentEvent,
  reviewEvent
} from '../../support/webhooks.js'

/**
 * Every way of asking besides a `/codegen` comment (issue #12): labels, assignment, reviews, and the
 * bot rules. The bundled action, the service emulator and a fake GitHub, all on loopback; the events
 * are GitHub's own webhook examples. Comments on a pull request's code: code-comment-triggers.ts;
 * the events that start nothing: trigger-refusals.ts.
 */

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
