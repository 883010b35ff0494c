import { emulator, onEvent } from '../../support/comment-world.js'
import { writes, reviewComment } from '../../support/trigger-world.js'
import { assignedEvent, labeledEvent, reviewEvent } from '../../support/webhooks.js'

/**
 * The events that start nothing (issue #12): skipped green, a notice, nothing sent to the service.
 * The bundled action, the service emulator and a fake GitHub, all on loopback; the events are
 * GitHub's own webhook examples.
 */

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
