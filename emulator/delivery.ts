import type { ServerResponse } from 'node:http'
import { encode, isObject, type Answer } from './answers.js'
import type { Fault, RecordedRequest } from './types.js'

/**
 * Sends an answer as the fault (if any) has it: cut, delayed (after `wait`, which rejects when the
 * emulator stops: then never), malformed, drifted, huge, or the socket destroyed.
 */
export function deliver(
  response: ServerResponse,
  answer: Answer,
  fault: Fault | undefined,
  record: RecordedRequest,
  wait: (ms: number) => Promise<void>
): void {
  switch (fault?.kind) {
    case 'reset-after':
      response.socket?.destroy()
      return
    case 'slow':
      wait(fault.delayMs).then(
        () => write(response, answer),
        () => undefined
      )
      return
    case 'malformed':
      // A proxy's error page under a JSON content type: the header is not to be trusted.
      record.status = 200
      write(response, {
        status: 200,
        text: '<html><body><h1>Upstream connect error</h1></body></html>',
        contentType: 'application/json'
      })
      return
    case 'truncated': {
      const full = Buffer.from(encode(answer).body)
      record.status = 200
      writeRaw(
        response,
        200,
        full.subarray(0, Math.floor(full.length / 2)),
        'application/json',
        answer.headers
      )
      return
    }
    case 'drift':
      if (isObject(answer.value))
        answer = { ...answer, value: fault.mutate(structuredClone(answer.value), record.query) }
      break
    case 'huge':
      record.status = 200
      writeHuge(response, fault.bytes)
      return
  }
  const logs = isObject(answer.value) ? answer.value.logs : undefined
  if (answer.status === 200 && Array.isArray(logs) && !response.destroyed) record.served = logs.length
  write(response, answer)
}

function write(response: ServerResponse, answer: Answer): void {
  const { body, contentType } = encode(answer)
  writeRaw(response, answer.status, Buffer.from(body), contentType, answer.headers)
}

/** `{"padding":"xxx…"}` of exactly `bytes` bytes, written as the socket drains. */
function writeHuge(response: ServerResponse, bytes: number): void {
  if (response.destroyed || response.socket?.destroyed) return
  const head = '{"padding":"'
  const tail = '"}'
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes) })
  response.write(head)
  const chunk = Buffer.alloc(64 * 1024, 'x')
  let left = Math.max(0, bytes - head.length - tail.length)
  const pump = (): void => {
    while (left > 0 && !response.destroyed) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left)
      left -= piece.length
      if (!response.write(piece)) return void response.once('drain', pump)
    }
    if (!response.destroyed) response.end(tail)
  }
  response.on('error', () => undefined)
  pump()
}

function writeRaw(
  response: ServerResponse,
  status: number,
  body: Buffer,
  contentType: string,
  headers: Record<string, string> = {}
): void {
  // A client that gave up (or a stopped emulator) has no socket left to answer on.
  if (response.destroyed || response.socket?.destroyed) return
  response.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'content-length': String(body.length)
  })
  response.end(body)
}
