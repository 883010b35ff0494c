import { createRequire } from 'node:module'
import { readWorkflowRun } from '../../../src/thread/workflow-run.js'
import { FAILED_WORKFLOW_RUN, workflowRunEvent } from '../../support/webhooks.js'

/** A workflow_run event read into the failure to fix, or why nothing starts (src/thread/workflow-run.ts). */

test('a failed run on a branch of the repository: the failure to fix, with its pull request', () => {
  expect(readWorkflowRun(workflowRunEvent().payload, 'octo-org/octo-repo')).toEqual({
    kind: 'fix',
    run: FAILED_WORKFLOW_RUN
  })
  const timedOut = readWorkflowRun(
    workflowRunEvent({ conclusion: 'timed_out' }).payload,
    'octo-org/octo-repo'
  )
  expect(timedOut).toMatchObject({ kind: 'fix', run: { conclusion: 'timed_out' } })
  const pushed = readWorkflowRun(workflowRunEvent({ event: 'push' }).payload, 'x/y')
  expect(pushed).toMatchObject({ kind: 'fix', run: { event: 'push', pullRequest: 7 } })
})

test('the default branch starts nothing, though a pull request has it for its head; nor does an event without one', () => {
  const main = workflowRunEvent({ headBranch: 'main', event: 'push' }).payload
  expect(main.workflow_run.pull_requests[0].head.ref).toBe('main')
  const reason =
    "The workflow run CI #163 ran on the branch main, the default branch: a CI fix pushes only to a pull request's branch, never to the default branch."
  expect(readWorkflowRun(main, 'octo-org/octo-repo')).toEqual({ kind: 'skip', reason })
  const unnamed = workflowRunEvent().payload
  delete unnamed.repository.default_branch
  expect(readWorkflowRun(unnamed, 'octo-org/octo-repo')).toEqual({
    kind: 'skip',
    reason:
      "The event does not name the default branch of octo-org/octo-repo: a CI fix pushes only to a pull request's branch, never to the default branch."
  })
})

test('a branch no open pull request has for its head starts nothing, and says why', () => {
  expect(readWorkflowRun(workflowRunEvent({ pullRequest: null, event: 'push' }).payload, 'x/y')).toEqual({
    kind: 'skip',
    reason:
      "The workflow run CI #163 ran on the branch feature/parser, the head of no open pull request of octo-org/octo-repo: a CI fix pushes only to a pull request's branch."
  })
})

test('a branch with backticks is a fix; one whose name the prompt could not show whole is none', () => {
  expect(readWorkflowRun(workflowRunEvent({ headBranch: 'fix/`rm`-``x' }).payload, 'o/r')).toMatchObject({
    kind: 'fix',
    run: { headBranch: 'fix/`rm`-``x' }
  })
  for (const headBranch of ['fix/\u200bhidden', `long/${'x'.repeat(300)}`])
    expect(readWorkflowRun(workflowRunEvent({ headBranch }).payload, 'o/r')).toMatchObject({
      kind: 'skip',
      reason: expect.stringContaining(
        'whose name the prompt cannot show whole (longer than 300 characters, or with invisible characters): no agent is told to push to it.'
      ) as string
    })
})

test.each(['success', 'cancelled', 'skipped', 'neutral', 'action_required', 'stale', null])(
  'a run that concluded %s starts nothing',
  conclusion => {
    expect(readWorkflowRun(workflowRunEvent({ conclusion }).payload, 'octo-org/octo-repo')).toEqual({
      kind: 'skip',
      reason: `The workflow run CI #163 concluded ${conclusion ?? 'nothing'}: there is no failure to fix.`
    })
  }
)

test('every example GitHub publishes of the event starts nothing: none is a failed, completed run', () => {
  const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as Array<{
    name: string
    examples: Array<{ action: string; workflow_run: { conclusion: string | null } }>
  }>
  const runs = examples.find(e => e.name === 'workflow_run')!.examples
  expect(runs.length).toBeGreaterThan(3)
  for (const payload of runs) expect(readWorkflowRun(payload, 'octo-org/octo-repo').kind).toBe('skip')
})

test('a fork’s branch starts nothing, and says why', () => {
  const fork = workflowRunEvent({ headRepository: 'stranger/octo-repo' }).payload
  expect(readWorkflowRun(fork, 'octo-org/octo-repo')).toEqual({
    kind: 'skip',
    reason:
      "The workflow run CI #163 ran on a branch of the fork stranger/octo-repo: its code and logs are a stranger's, so no agent is asked to fix them."
  })
  delete fork.workflow_run.head_repository
  expect(readWorkflowRun(fork, 'octo-org/octo-repo')).toMatchObject({
    kind: 'skip',
    reason: expect.stringContaining('a repository GitHub no longer knows') as string
  })
})

test('other actions, and events without a run, start nothing', () => {
  expect(readWorkflowRun(workflowRunEvent({ action: 'requested' }).payload, 'octo-org/octo-repo')).toEqual({
    kind: 'skip',
    reason: 'workflow_run events with action "requested" never trigger a run; only "completed" does.'
  })
  expect(readWorkflowRun({ action: 'completed' }, 'octo-org/octo-repo')).toEqual({
    kind: 'skip',
    reason: 'The event names no workflow run with a branch and a commit.'
  })
  expect(readWorkflowRun(workflowRunEvent({ headSha: 'not a sha' }).payload, 'octo-org/octo-repo').kind).toBe(
    'skip'
  )
})

test('a pull request of another repository, into another, or of another branch is not the one to push to: nothing starts', () => {
  const headElsewhere = workflowRunEvent().payload
  headElsewhere.workflow_run.pull_requests[0].head.repo.id = 1
  const baseElsewhere = workflowRunEvent().payload
  baseElsewhere.workflow_run.pull_requests[0].base.repo.id = 1
  const otherBranch = workflowRunEvent().payload
  otherBranch.workflow_run.pull_requests[0].head.ref = 'feature/other'
  for (const payload of [headElsewhere, baseElsewhere, otherBranch])
    expect(readWorkflowRun(payload, 'octo-org/octo-repo')).toMatchObject({
      kind: 'skip',
      reason: expect.stringContaining('the head of no open pull request of octo-org/octo-repo') as string
    })
})
