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

/** Passes events on with every secret replaced by ***: what the service sends may echo the token. */
export function redacting(listener: RunEvents, redact: <T>(value: T) => T): RunEvents {
  return {
    started: (run, mode) => listener.started(redact(run), mode),
    newEntries: (entries, firstIndex) => listener.newEntries(redact(entries), firstIndex),
    statusChanged: (from, to) => listener.statusChanged(redact(from), redact(to)),
    heartbeat: (elapsedMs, status, seen) => listener.heartbeat(elapsedMs, redact(status), seen),
    notice: message => listener.notice(redact(message))
  }
}
