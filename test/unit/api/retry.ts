import { AmbiguousWriteError, OversizedAnswerError } from '../../../src/api/errors.js'
import { retryOrGiveUp, type Unanswered } from '../../../src/api/retry.js'

/** The one policy after a request without a usable answer: send again, or give up (and how). */

const refused: Unanswered = { kind: 'refused', reason: 'rate limited (429): slow down', retryAfter: '2' }
const reset: Unanswered = { kind: 'failed', reason: 'connection failed (ECONNRESET)', sent: true }
const refusedConnection: Unanswered = {
  kind: 'failed',
  reason: 'connection failed (ECONNREFUSED)',
  sent: false
}
const failed502: Unanswered = {
  kind: 'failed',
  reason: 'service error 502: bad gateway',
  sent: true,
  status: 502
}
const tooLarge: Unanswered = {
  kind: 'failed',
  reason: 'the answer was larger than 8 MiB',
  sent: true,
  tooLarge: true
}

describe('retryOrGiveUp', () => {
  test('a 429 was not processed: sent again, reads and writes alike, as a refusal', () => {
    expect(retryOrGiveUp(refused, false, 'read agent run 1')).toEqual({ kind: 'retry', rateLimited: true })
    expect(retryOrGiveUp(refused, true, 'create the agent run')).toEqual({ kind: 'retry', rateLimited: true })
  })

  test('a read that failed is sent again', () => {
    for (const failure of [reset, refusedConnection, failed502])
      expect(retryOrGiveUp(failure, false, 'read agent run 1')).toEqual({ kind: 'retry', rateLimited: false })
  })

  test('a write that may have reached the service is never sent again blind', () => {
    const next = retryOrGiveUp(failed502, true, 'create the agent run')
    expect(next.kind).toBe('give-up')
    const error = (next as { error: Error }).error
    expect(error).toBeInstanceOf(AmbiguousWriteError)
    expect(error).toMatchObject({
      message: 'Could not create the agent run: service error 502: bad gateway',
      httpStatus: 502
    })
    const lost = retryOrGiveUp(reset, true, 'resume agent run 4')
    expect((lost as { error: Error }).error).toBeInstanceOf(AmbiguousWriteError)
    expect((lost as { error: Error }).error).toMatchObject({ httpStatus: undefined })
  })

  test('a write whose connection never opened is sent again', () => {
    expect(retryOrGiveUp(refusedConnection, true, 'create the agent run')).toEqual({
      kind: 'retry',
      rateLimited: false
    })
  })

  test('an answer too large is final: ambiguous for a write, oversized for a read', () => {
    const write = retryOrGiveUp(tooLarge, true, 'create the agent run') as { error: Error }
    expect(write.error).toBeInstanceOf(AmbiguousWriteError)
    expect(write.error.message).toBe('Could not create the agent run: the answer was larger than 8 MiB')
    const read = retryOrGiveUp(tooLarge, false, 'read agent run 1') as { error: Error }
    expect(read.error).toBeInstanceOf(OversizedAnswerError)
    expect(read.error.message).toBe('Could not read agent run 1: the answer was larger than 8 MiB')
  })
})
