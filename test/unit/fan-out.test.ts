import type { AgentRun, LogEntry } from '../../src/api/types.js'
import type { RunEvents } from '../../src/agent-run/agent-run.js'
import { fanOut, redacting } from '../../src/agent-run/fan-out.js'

/** The event plumbing between the run and its listeners (console mirror, tracking comment). */

function recorder(calls: string[], name: string): RunEvents {
  return {
    started: (run, mode) => calls.push(`${name} started ${run.id} ${mode}`),
    newEntries: (entries, firstIndex) =>
      calls.push(`${name} entries ${entries.map(e => e.thought).join(',')} from ${firstIndex}`),
    statusChanged: (from, to) => calls.push(`${name} status ${from} -> ${to}`),
    heartbeat: (elapsedMs, status, seen) => calls.push(`${name} heartbeat ${elapsedMs} ${status} ${seen}`),
    notice: message => calls.push(`${name} notice ${message}`)
  }
}

const run: AgentRun = { id: 7, organization_id: 1, status: 'ACTIVE secret' }
const entry: LogEntry = { agent_run_id: 7, message_type: 'ACTION', thought: 'uses secret' }

test('fanOut passes every event to every listener, in order', () => {
  const calls: string[] = []
  const events = fanOut(recorder(calls, 'a'), recorder(calls, 'b'))
  events.started(run, 'create')
  events.newEntries([entry], 3)
  events.statusChanged('ACTIVE', 'COMPLETE')
  events.heartbeat(60_000, 'ACTIVE', 4)
  events.notice('hello')
  expect(calls).toEqual([
    'a started 7 create',
    'b started 7 create',
    'a entries uses secret from 3',
    'b entries uses secret from 3',
    'a status ACTIVE -> COMPLETE',
    'b status ACTIVE -> COMPLETE',
    'a heartbeat 60000 ACTIVE 4',
    'b heartbeat 60000 ACTIVE 4',
    'a notice hello',
    'b notice hello'
  ])
})

test('redacting replaces the secret in every event before the listener sees it', () => {
  const calls: string[] = []
  const redact = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('secret', '***')) as T
  const events = redacting(recorder(calls, 'r'), redact)
  events.started({ ...run, id: 8 }, 'resume')
  events.newEntries([entry], 0)
  events.statusChanged('secret', 'secret 2')
  events.heartbeat(1, 'secret', 0)
  events.notice('the secret')
  expect(calls).toEqual([
    'r started 8 resume',
    'r entries uses *** from 0',
    'r status *** -> *** 2',
    'r heartbeat 1 *** 0',
    'r notice the ***'
  ])
})
