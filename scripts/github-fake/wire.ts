import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ServerClock } from '../../emulator/loopback-server.js'
import { json, type Answer } from './answers.js'
import { LATE_ANSWER_MS, type LostAnswer } from './faults.js'
import type { RecordedGitHubRequest } from './types.js'

/** The fake's side of the wire: answers written as GitHub writes them, or lost on the way. */

/** Writes answers with GitHub's headers, each with the next request id. */
export class AnswerWriter {
  private count = 0

  write(response: ServerResponse, answer: Answer, rateLimitHeaders: Record<string, string>): void {
    // A client that gave up (or a stopped fake) has no socket left to answer on.
    if (response.destroyed || response.socket?.destroyed) return
    // No value: an answer without a body (a redirect).
    const body =
      answer.raw?.body ??
      (answer.value === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(answer.value)))
    this.count++
    response.writeHead(answer.status, {
      ...answer.headers,
      ...rateLimitHeaders,
      'x-github-api-version-selected': '2022-11-28',
      'x-github-media-type': 'github.v3; format=json',
      'x-github-request-id': `FAKE:${this.count.toString(16).toUpperCase().padStart(6, '0')}`,
      ...(answer.raw
        ? { 'content-type': answer.raw.type }
        : answer.value === undefined
          ? {}
          : { 'content-type': 'application/json; charset=utf-8' }),
      'content-length': String(body.length)
    })
    response.end(body)
  }
}

/**
 * The work is done (the answer was made), and its answer lost: a 502 of the front end, a reset
 * connection, or the answer LATE_ANSWER_MS after the request (or never, once the client gave up).
 * `record.applied` says the work was done; its status is what the client got (0: nothing).
 */
export function loseAnswer(
  clock: ServerClock,
  writer: AnswerWriter,
  how: LostAnswer,
  record: RecordedGitHubRequest,
  { request, response, answer }: { request: IncomingMessage; response: ServerResponse; answer: Answer },
  rateLimit: () => Record<string, string>
): void {
  record.applied = true
  if (how === '502') {
    record.status = 502
    record.answeredAt = clock.now()
    return writer.write(response, json({ message: 'Server Error' }, 502), rateLimit())
  }
  if (how === 'reset') return void request.socket.destroy()
  const gaveUp = new AbortController()
  response.once('close', () => gaveUp.abort())
  void clock.hold(
    request,
    clock.sleep(LATE_ANSWER_MS, gaveUp.signal).then(
      () => {
        record.status = answer.status
        record.answeredAt = clock.now()
        writer.write(response, answer, rateLimit())
      },
      () => undefined
    )
  )
}

/** The path as routed (the prefix taken off), and whether it was under the prefix at all. */
export function withoutPrefix(pathPrefix: string, pathname: string): { path: string; insidePrefix: boolean } {
  if (pathPrefix === '') return { path: pathname, insidePrefix: true }
  if (pathname === pathPrefix) return { path: '/', insidePrefix: true }
  if (pathname.startsWith(`${pathPrefix}/`)) {
    return { path: pathname.slice(pathPrefix.length), insidePrefix: true }
  }
  return { path: pathname, insidePrefix: false }
}
