import { AmbiguousWriteError } from '../../../src/api/errors.js'
import { retryOrGiveUp, unrepeatable, type Unanswered } from '../../../src/api/retry.js'

/** Which calls may be sent again blind after a lost answer: reads and repeatable writes (a stop). */

const reset: Unanswered = { kind: 'failed', reason: 'connection failed (ECONNRESET)', sent: true }

test('a stop is sent again after a lost answer, as a read is; a create or a resume is not', () => {
  expect(unrepeatable('read')).toBe(false)
  expect(unrepeatable('repeatable-write')).toBe(false)
  expect(unrepeatable('write')).toBe(true)
  expect(retryOrGiveUp(reset, unrepeatable('repeatable-write'), 'stop agent run 1')).toEqual({
    kind: 'retry',
    rateLimited: false
  })
  const create = retryOrGiveUp(reset, unrepeatable('write'), 'create the agent run') as { error: Error }
  expect(create.error).toBeInstanceOf(AmbiguousWriteError)
})
