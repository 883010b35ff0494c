import type { Outcome } from '../../src/model.js'

/** Every way a followed run ends (not `started`, `skipped` nor `limited`), in the order reports list them. */
export const ENDINGS = [
  'success',
  'failure',
  'rejected',
  'invalid-output',
  'error',
  'timeout',
  'cancelled',
  'paused'
] as const satisfies readonly Outcome[]
