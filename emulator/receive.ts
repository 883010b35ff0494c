import type { IncomingMessage, ServerResponse } from 'node:http'
import { faultAnswer, json, type Answer } from './answers.js'
import { deliver } from './delivery.js'
import type { FaultPlan } from './faults.js'
import type { ServerClock } from './loopback-server.js'
import { matchRoute, type Call } from './routes.js'
import type { EmulatorOptions, Fault, RecordedRequest } from './types.js'
import { readBody, recordedBody, type RequestBody } from './validation.js'

/** The emulator's HTTP plumbing: a request recorded, its fault taken, its body read, its answer sent. */

/** What the plumbing needs of the emulator. */
export interface Receiver {
  clock: ServerClock
  /** Every request, in order of arrival (the emulator's `requests`). */
  requests: RecordedRequest[]
  faults: FaultPlan
  /** Aborted on stop: answers held back by `slow` faults are never sent. */
  stopping: () => AbortSignal
  onAnswer: EmulatorOptions['onAnswer']
  /** The service's answer to a routed call. */
  handle: (call: Call) => Answer
}

export function receive(server: Receiver, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://emulator')
  const query: Record<string, string> = {}
  // FastAPI reads the last value of a repeated query parameter.
  for (const [name, value] of url.searchParams) query[name] = value
  const match = matchRoute(request.method ?? 'GET', url.pathname)
  const record: RecordedRequest = {
    at: server.clock.now(),
    method: request.method ?? 'GET',
    path: url.pathname,
    route: match.route?.name ?? 'unknown',
    query,
    body: undefined,
    authorization: request.headers.authorization,
    status: 0
  }
  server.requests.push(record)

  const fault = server.faults.take(record.route)
  if (fault) record.fault = fault.kind
  if (fault?.kind === 'reset-before') {
    request.socket.destroy()
    return
  }

  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('error', () => undefined)
  request.on('end', () => {
    const body = readBody(Buffer.concat(chunks).toString('utf8'), request.headers['content-type'])
    record.body = recordedBody(body)
    if (fault?.kind !== 'late') return answer(server, request, response, record, match, fault, body)
    // Done late, whether its client still waits or not: a stopped emulator never does it.
    server.clock.hold(request, server.clock.sleep(fault.delayMs, server.stopping())).then(
      () => answer(server, request, response, record, match, fault, body),
      () => undefined
    )
  })
}

/** Handles a request whose body was read (or answers as its fault says), and sends the answer. */
function answer(
  server: Receiver,
  request: IncomingMessage,
  response: ServerResponse,
  record: RecordedRequest,
  match: ReturnType<typeof matchRoute>,
  fault: Fault | undefined,
  body: RequestBody
): void {
  let answer: Answer
  if (fault?.kind === 'status') {
    answer = faultAnswer(fault)
  } else if (fault?.kind === 'redirect') {
    answer = { status: fault.status, text: '', headers: { location: fault.location } }
  } else if (!match.route) {
    answer = match.allowed
      ? json({ detail: 'Method Not Allowed' }, 405, { allow: match.allowed })
      : json({ detail: 'Not Found' }, 404)
  } else {
    const call: Call = {
      route: match.route,
      params: match.params,
      query: record.query,
      body,
      authorization: record.authorization,
      now: server.clock.now()
    }
    answer = server.handle(call)
  }
  record.status = answer.status
  const retryAfter = answer.headers?.['retry-after']
  if (retryAfter !== undefined) record.retryAfter = Number(retryAfter)
  server.onAnswer?.(record, answer.value ?? answer.text)
  deliver(response, answer, fault, record, (ms: number) =>
    server.clock.hold(request, server.clock.sleep(ms, server.stopping()))
  )
}
