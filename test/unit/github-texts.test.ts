import { wellFormed, wellFormedText } from '../../src/github/well-formed.js'
import { buildCommentPrompt, commitLine, withCommit } from '../../src/github/thread-prompt.js'

/**
 * What the action writes for GitHub and for the agent there (issue #26): every text sent to GitHub
 * well-formed (lone surrogates replaced, pairs kept, in one pass); the commit a run on a pull request
 * reviews, named in its prompt.
 */

test('a lone surrogate, high or low, becomes U+FFFD; a pair stays whole', () => {
  expect(wellFormedText('a\ud800b')).toBe('a\ufffdb')
  expect(wellFormedText('a\udc00b')).toBe('a\ufffdb')
  expect(wellFormedText('end \ud83d')).toBe('end \ufffd')
  expect(wellFormedText('\udc00\ud800')).toBe('\ufffd\ufffd')
  expect(wellFormedText('🙂 \ud83d\ude42 漢')).toBe('🙂 🙂 漢')
  expect(wellFormedText('\ud83d\ud83d\ude42')).toBe('\ufffd🙂')
  // As Node's own toWellFormed (Node 20+) has it.
  const mixed = 'x\ud800\udc00\udc00\ud800y\ud83d'
  const toWellFormed = (String.prototype as unknown as { toWellFormed: () => string }).toWellFormed
  expect(wellFormedText(mixed)).toBe(toWellFormed.call(mixed))
})

test('every string of a request’s parameters, keys included; functions and signals kept as they are', () => {
  const signal = new AbortController().signal
  const fetch = (): void => undefined
  const params = {
    body: 'reason \ud800',
    output: { title: 'T\udc00', summary: ['a', 'b\ud83d'] },
    'k\ud800': 1,
    request: { fetch, signal },
    number: 7,
    none: null
  }
  const sent = wellFormed(params)
  expect(sent).toEqual({
    body: 'reason \ufffd',
    output: { title: 'T\ufffd', summary: ['a', 'b\ufffd'] },
    'k\ufffd': 1,
    request: { fetch, signal },
    number: 7,
    none: null
  })
  expect(sent.request.signal).toBe(signal)
  // A key __proto__ stays a key of its own.
  const hostile = wellFormed(JSON.parse('{"__proto__": {"polluted": "\\ud800"}}') as Record<string, unknown>)
  expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype)
  expect(Object.keys(hostile)).toEqual(['__proto__'])
})

describe('the commit a run on a pull request reviews', () => {
  const sha = 'a1'.repeat(20)
  test('named with the pull request, to check out and judge', () => {
    expect(commitLine(sha, 7)).toBe(
      `Review commit ${sha}, the head of pull request #7 when this run was asked for: check it out (\`git checkout ${sha}\`) and judge that commit, even if the branch has moved on since.`
    )
    expect(withCommit('Review it.', { sha, pullRequest: 7 })).toBe(`Review it.\n\n${commitLine(sha, 7)}`)
  })
  test('none for a check on a commit that is no pull request’s head, nor for a text that is no commit id', () => {
    expect(withCommit('Review it.', { sha })).toBe('Review it.')
    expect(withCommit('Review it.', undefined)).toBe('Review it.')
    expect(withCommit('Review it.', { sha: 'main; rm -rf /', pullRequest: 7 })).toBe('Review it.')
    expect(commitLine('b'.repeat(64))).toContain('the head of the pull request')
  })
  test("a thread's prompt names the head it read, on a follow-up too", () => {
    const input = {
      standing: '',
      instruction: 'review it',
      thread: { number: 7, isPullRequest: true, title: 'T', body: 'B', url: 'https://github.com/o/r/pull/7' },
      author: { login: 'alice', type: 'User' },
      repository: 'o/r',
      branches: { head: 'feature', base: 'main', headSha: sha }
    }
    for (const followUp of [false, true])
      expect(buildCommentPrompt({ ...input, followUp })).toContain(
        `The pull request merges branch feature into main.\nReview commit ${sha}, the head of the pull request when this run was asked for`
      )
    expect(buildCommentPrompt({ ...input, branches: { head: 'feature', base: 'main' } })).not.toContain(
      'Review commit'
    )
  })
})
