import { checkRunPlace } from '../../../src/report/check-run.js'
import type { Trigger } from '../../../src/thread/trigger.js'

/** Where the check run goes (report/check-run.ts): its texts are in unit/report/check-run-text.ts. */

describe('where the check run goes', () => {
  const thread = (isPullRequest: boolean, headSha?: string): Trigger => ({
    kind: 'thread',
    trigger: 'comment',
    event: 'issue_comment',
    thread: { number: 7, isPullRequest, title: 'T', body: '', url: '' },
    instruction: '',
    fresh: false,
    author: { login: 'alice', type: 'User' },
    commentUrl: '',
    ...(headSha ? { pullRequest: { head: 'h', base: 'main', headRepository: 'o/r', headSha } } : {})
  })
  const push = { name: 'push', sha: 'c'.repeat(40) }
  const pullRequest = {
    name: 'pull_request',
    sha: 'm'.repeat(40),
    payload: () => ({ pull_request: { number: 9, head: { sha: 'd'.repeat(40) } } })
  }

  test('auto: a run asked for on a pull request, on the head its prompt names', () => {
    expect(checkRunPlace('auto', thread(true, 'a'.repeat(40)), push)).toEqual({
      sha: 'a'.repeat(40),
      pullRequest: 7
    })
    // Its head could not be read (the prompt names no commit): none.
    expect(checkRunPlace('auto', thread(true), push)).toBeUndefined()
    expect(checkRunPlace('auto', thread(false), push)).toBeUndefined()
    expect(checkRunPlace('auto', { kind: 'inputs' }, pullRequest)).toBeUndefined()
    expect(checkRunPlace('auto', { kind: 'skip', reason: 'no' }, push)).toBeUndefined()
  })

  test('true: runs from the inputs too, on the pull request head or GITHUB_SHA; false: none', () => {
    const head = { sha: 'd'.repeat(40), pullRequest: 9 }
    expect(checkRunPlace('true', { kind: 'inputs' }, pullRequest)).toEqual(head)
    expect(
      checkRunPlace('true', { kind: 'inputs' }, { ...pullRequest, name: 'pull_request_target' })
    ).toEqual(head)
    expect(checkRunPlace('true', { kind: 'inputs' }, push)).toEqual({ sha: 'c'.repeat(40) })
    expect(checkRunPlace('true', { kind: 'inputs' }, { name: 'workflow_dispatch', sha: '' })).toBeUndefined()
    // A payload that cannot be read: GITHUB_SHA.
    const unreadable = {
      ...pullRequest,
      payload: () => {
        throw new Error('ENOENT')
      }
    }
    expect(checkRunPlace('true', { kind: 'inputs' }, unreadable)).toEqual({ sha: 'm'.repeat(40) })
    expect(checkRunPlace('true', thread(false), push)).toBeUndefined()
    expect(checkRunPlace('true', { kind: 'skip', reason: 'no' }, push)).toBeUndefined()
    expect(checkRunPlace('false', thread(true, 'a'.repeat(40)), push)).toBeUndefined()
    expect(checkRunPlace('false', { kind: 'inputs' }, push)).toBeUndefined()
  })
})
