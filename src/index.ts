import { run } from './main.js'

/** How long the process may linger once its work is done. */
const LINGER_MS = 1_000

// Once run() is done everything is written. A GitHub call given up at the deadline may leave a
// socket or a retry timer behind: they do not hold the step past LINGER_MS.
void run().finally(() => setTimeout(() => process.exit(), LINGER_MS).unref())
