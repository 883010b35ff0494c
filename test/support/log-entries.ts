import type { LogEntry } from '../../src/api/types.js'

/** Entry `n` of run 1's log: an ACTION whose thought is `Entry n`, with `observation`. */
export const numberedEntry = (n: number, observation = ''): LogEntry => ({
  agent_run_id: 1,
  message_type: 'ACTION',
  thought: `Entry ${n}`,
  observation
})
