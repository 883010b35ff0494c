import { parentPort, Worker, workerData } from 'node:worker_threads'
import { checkNow, thrownReason, type AnswerCheck, type AnswerChecker } from './check.js'
import type { JsonSchema } from './schema.js'

/** What the worker is handed: the schema, and the answer as JSON text (parsed there as it was read). */
interface CheckRequest {
  schema: JsonSchema
  json: string
}

const CANCELLED = 'before the job was cancelled'

/** A worker's heap: a 1 MiB answer and its checks fit many times over; a runaway check does not. */
const WORKER_HEAP_MB = 256

/**
 * The checker of the bundle: each check in a worker thread started from `entry` (the bundle's own
 * file, which serves the check when it is not the main thread), stopped when the time is up or the
 * job is cancelled. terminate() interrupts running JavaScript, a backtracking regular expression
 * included, so a check past its time costs nothing after it.
 */
export function workerChecker(entry: URL): AnswerChecker {
  return (schema, value, { timeoutMs, signal }) =>
    new Promise<AnswerCheck>(resolve => {
      if (signal.aborted) return resolve({ unchecked: CANCELLED })
      const request: CheckRequest = { schema, json: JSON.stringify(value) }
      const worker = new Worker(entry, {
        workerData: request,
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
        stdout: true,
        stderr: true
      })
      let ended = false
      const end = (check: AnswerCheck): void => {
        if (ended) return
        ended = true
        clearTimeout(timer)
        signal.removeEventListener('abort', cancelled)
        void worker.terminate()
        resolve(check)
      }
      const seconds = Math.round(timeoutMs / 100) / 10
      const timer = setTimeout(() => end({ unchecked: `within ${seconds} s` }), timeoutMs)
      const cancelled = (): void => end({ unchecked: CANCELLED })
      signal.addEventListener('abort', cancelled, { once: true })
      worker.on('message', (check: AnswerCheck) => end(check))
      worker.on('error', error => end({ unchecked: thrownReason(error) }))
      worker.on('exit', () => end({ unchecked: '(the check ended without an answer)' }))
    })
}

/** The worker's side: checks the answer it was handed and posts what the check gave. */
export function serveAnswerCheck(): void {
  const { schema, json } = workerData as CheckRequest
  parentPort?.postMessage(checkNow(schema, JSON.parse(json)))
}
