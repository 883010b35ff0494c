import type { AgentRun, LogEntry } from '../api/types.js'
import type { RunEvents } from './agent-run.js'

/** One listener that passes every event on to several (the console mirror and the tracking comment). */
export function fanOut(...listeners: RunEvents[]): RunEvents {
  return {
    started: (run: AgentRun, mode) => listeners.forEach(listener => listener.started(run, mode)),
    newEntries: (entries: LogEntry[], firstIndex: number) =>
      listeners.forEach(listener => listener.newEntries(entries, firstIndex)),
    statusChanged: (from, to) => listeners.forEach(listener => listener.statusChanged(from, to)),
    heartbeat: (elapsedMs, status, seen) =>
      listeners.forEach(listener => listener.heartbeat(elapsedMs, status, seen)),
    notice: message => listeners.forEach(listener => listener.notice(message))
  }
}
