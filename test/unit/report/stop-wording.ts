import { DeadlineError, ServiceError, UnsupportedEndpointError } from '../../../src/api/errors.js'
import { stopOutcome, stopWarning } from '../../../src/agent-run/stop.js'

/**
 * Why a stop failed, as it happened (src/agent-run/stop.ts): the status the service answered, the
 * connection's error, or, only for a try that got no answer within its time, "did not answer in
 * time". A stop answered 500 or reset was once said to have had no answer in time.
 */

const why = (error: unknown): string | undefined => stopOutcome({ error }, 'RUNNING').why

test('out of time after a 500: the service answered 500, with its words', () => {
  const error = new DeadlineError({
    reason: 'service error 500: Internal error.',
    httpStatus: 500,
    detail: 'Internal error.'
  })
  expect(why(error)).toBe('the service answered 500: Internal error.')
  expect(stopWarning(7, 'https://app.codegen.com/agent/trace/7', stopOutcome({ error }, 'RUNNING'))).toBe(
    'Agent run 7 could not be stopped (the service answered 500: Internal error.); it goes on at Codegen: https://app.codegen.com/agent/trace/7'
  )
  expect(why(new DeadlineError({ reason: 'service error 502: ', httpStatus: 502, detail: '' }))).toBe(
    'the service answered 502'
  )
})

test('out of time after a reset: the connection failed, and its error', () => {
  const error = new DeadlineError({ reason: 'connection failed (ECONNRESET)', connection: 'ECONNRESET' })
  expect(why(error)).toBe('the connection to the service failed (ECONNRESET)')
})

test('out of tries: what the last one met, as out of time', () => {
  const error = new ServiceError(
    'Could not stop agent run 7 after 6 attempts: rate limited (429): Slow down.',
    undefined,
    {
      reason: 'rate limited (429): Slow down.',
      httpStatus: 429,
      detail: 'Slow down.'
    }
  )
  expect(why(error)).toBe('the service answered 429: Slow down.')
  const unreadable = new DeadlineError({ reason: 'the answer was larger than 16 MiB', httpStatus: 200 })
  expect(why(unreadable)).toBe('the stop failed: the answer was larger than 16 MiB')
})

test('only a try with no answer within its time says "did not answer in time"', () => {
  expect(why(new DeadlineError({ reason: 'no answer within 2000 ms', timedOut: true }))).toBe(
    'the service did not answer in time'
  )
  // Out of time with no try that said otherwise.
  expect(why(new DeadlineError())).toBe('the service did not answer in time')
  for (const error of [
    new DeadlineError({ reason: 'service error 500: x', httpStatus: 500, detail: 'x' }),
    new DeadlineError({ reason: 'connection failed (ECONNRESET)', connection: 'ECONNRESET' })
  ])
    expect(why(error)).not.toContain('in time')
})

test('a refusal and a missing endpoint read as before', () => {
  expect(why(new ServiceError('Permission denied (403) while trying to stop agent run 7.', 403))).toBe(
    'the service refused: Permission denied (403) while trying to stop agent run 7.'
  )
  expect(why(new UnsupportedEndpointError('stop agent run 7', 405))).toBe(
    'the service has no endpoint to stop a run (HTTP 405)'
  )
})
