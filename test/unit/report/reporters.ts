import type { AgentRun, LogEntry } from '../../../src/api/types.js'
import { reportOf, type RunReport } from '../../../src/model.js'
import { redactor, Reporters, type Reporter } from '../../../src/report/reporters.js'

/** The reporter list: every event and the report reach every reporter, redacted once on the way in. */

function recorder(calls: string[], name: string, remote = false, finished?: Promise<void>): Reporter {
  return {
    remote,
    started: (run, mode) => calls.push(`${name} started ${run.id} ${run.status} ${mode}`),
    newEntries: (entries, firstIndex) =>
      calls.push(`${name} entries ${entries.map(e => e.thought).join(',')} from ${firstIndex}`),
    statusChanged: (from, to) => calls.push(`${name} status ${from} -> ${to}`),
    heartbeat: (elapsedMs, status, seen) => calls.push(`${name} heartbeat ${elapsedMs} ${status} ${seen}`),
    warning: message => calls.push(`${name} warning ${message}`),
    repairAsked: (reason, attempt, retries) => calls.push(`${name} repair ${attempt}/${retries} ${reason}`),
    finish: async (report: RunReport) => {
      calls.push(`${name} finish ${report.error}`)
      await finished
      calls.push(`${name} finished`)
    }
  }
}

const run: AgentRun = { id: 7, organization_id: 1, status: 'ACTIVE s3cr3t-token' }
const entry: LogEntry = { agent_run_id: 7, message_type: 'ACTION', thought: 'uses s3cr3t-token' }
const redact = redactor(['s3cr3t-token', ''])
const never = (): Promise<void> => new Promise(() => undefined)

test('every event reaches every reporter, in order, each secret replaced by ***', () => {
  const calls: string[] = []
  const reporters = new Reporters([recorder(calls, 'a'), recorder(calls, 'b')], redact, never)
  reporters.started(run, 'create')
  reporters.newEntries([entry], 3)
  reporters.statusChanged('s3cr3t-token', 'COMPLETE')
  reporters.heartbeat(60_000, 'ACTIVE s3cr3t-token', 4)
  reporters.warning('the s3cr3t-token')
  reporters.repairAsked('/s3cr3t-token must be string', 1, 2)
  expect(calls).toEqual([
    'a started 7 ACTIVE *** create',
    'b started 7 ACTIVE *** create',
    'a entries uses *** from 3',
    'b entries uses *** from 3',
    'a status *** -> COMPLETE',
    'b status *** -> COMPLETE',
    'a heartbeat 60000 ACTIVE *** 4',
    'b heartbeat 60000 ACTIVE *** 4',
    'a warning the ***',
    'b warning the ***',
    'a repair 1/2 /*** must be string',
    'b repair 1/2 /*** must be string'
  ])
})

test('the report reaches the runner reporters first, then GitHub ones; it comes back as they saw it', async () => {
  const calls: string[] = []
  const list = [recorder(calls, 'comment', true), recorder(calls, 'console'), recorder(calls, 'summary')]
  const reporters = new Reporters(list, redact, never)
  const seen = await reporters.finish(reportOf({ outcome: 'error', error: 'refused s3cr3t-token' }, 0))
  expect(seen.error).toBe('refused ***')
  expect(calls).toEqual([
    'console finish refused ***',
    'console finished',
    'summary finish refused ***',
    'summary finished',
    'comment finish refused ***',
    'comment finished'
  ])
})

test('a cancelled job waits for GitHub reporters only until the deadlines say so', async () => {
  const calls: string[] = []
  let cancelled = (): void => undefined
  const afterCancelled = new Promise<void>(resolve => (cancelled = resolve))
  const reporters = new Reporters([recorder(calls, 'comment', true, never())], redact, () => afterCancelled)
  const finished = reporters.finish(reportOf({ outcome: 'cancelled' }, 0))
  cancelled()
  await finished
  expect(calls).toEqual(['comment finish undefined'])
})

test('a reporter that throws keeps none from writing: it writes the plain report of the error, which is the step’s', async () => {
  const calls: string[] = []
  let thrown = false
  const broken: Reporter = {
    ...recorder(calls, 'summary'),
    finish: async report => {
      calls.push(`summary finish ${report.outcome} ${report.error}`)
      if (!thrown) {
        thrown = true
        throw new RangeError('Maximum call stack size exceeded\n    at render (summary.ts:1:1)')
      }
    }
  }
  const list = [broken, recorder(calls, 'console'), recorder(calls, 'check', true)]
  const reporters = new Reporters(list, redact, never)
  const seen = await reporters.finish(
    reportOf({ outcome: 'success', run: { ...run, status: 'COMPLETE' } }, 0)
  )
  const error = 'The report could not be written: Maximum call stack size exceeded'
  expect(seen).toMatchObject({ outcome: 'error', error, run: { id: 7 } })
  expect(calls).toEqual([
    'summary finish success undefined',
    `summary finish error ${error}`,
    `console finish ${error}`,
    'console finished',
    `check finish ${error}`,
    'check finished'
  ])
})

test('a reporter implements only the events it needs: the others pass it by', async () => {
  const calls: string[] = []
  const endingOnly: Reporter = {
    finish: report => {
      calls.push(`ending-only finish ${report.outcome}`)
      return Promise.resolve()
    }
  }
  const reporters = new Reporters([endingOnly, recorder(calls, 'b')], redact, never)
  reporters.started(run, 'create')
  reporters.warning('careful')
  await reporters.finish(reportOf({ outcome: 'success' }, 0))
  expect(calls).toEqual([
    'b started 7 ACTIVE *** create',
    'b warning careful',
    'ending-only finish success',
    'b finish undefined',
    'b finished'
  ])
})
