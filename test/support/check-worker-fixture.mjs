// A worker for workerChecker's tests in process (jest cannot start the TypeScript one): what it
// does is named by the schema's `mode`.
import { parentPort, workerData } from 'node:worker_threads'

const { schema, json } = workerData
if (schema.mode === 'answer') parentPort.postMessage({ errors: [{ pointer: '', message: `read ${json}` }] })
else if (schema.mode === 'throw') throw new RangeError('Maximum call stack size exceeded')
else if (schema.mode === 'exit') process.exit(0)
else for (;;) /^(a+)+$/.test(`${'a'.repeat(40)}b`)
