import { isMainThread } from 'node:worker_threads'
import { serveAnswerCheck, workerChecker } from './answer/check-worker.js'
import { run } from './main.js'

/** How long the process may linger once its work is done. */
const LINGER_MS = 1_000

// The bundle is one file: started again as a worker thread, it checks an agent's answer against
// the schema, where the step can stop the check (answer/check-worker.ts).
if (isMainThread) {
  // Once run() is done everything is written. A GitHub call given up at the deadline may leave a
  // socket or a retry timer behind: they do not hold the step past LINGER_MS.
  void run(workerChecker(new URL(import.meta.url))).finally(() =>
    setTimeout(() => process.exit(), LINGER_MS).unref()
  )
} else serveAnswerCheck()
