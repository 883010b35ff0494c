import type { AgentRun } from '../../../src/api/types.js'
import { reportOf, type RunReport } from '../../../src/model.js'
import { stepFailMessage } from '../../../src/report/step-fail.js'
import { KEPT_FIRST_ENTRIES, KEPT_LAST_ENTRIES, LogMirror } from '../../../src/report/log-mirror.js'
import { renderSummary } from '../../../src/report/summary.js'
import type { Console } from '../../../src/runner/runner.js'
import type { FailCondition } from '../../../src/settings/settings.js'
import { FakeRunner } from '../../support/fake-runner.js'
import { numberedEntry } from '../../support/log-entries.js'

/**
 * The job log's lines of the ending: they agree with the outcome, and say only what applies. And
 * memory stays bounded whatever the service sends: the entries kept for the summary.
 */

const POLICY = {
  failOn: new Set<FailCondition>(['failure', 'timeout', 'rejected', 'invalid-output']),
  triggerPhrase: '/codegen'
}
const noFile = { path: '/tmp/run.jsonl', append: () => undefined }
const run = (fields: Partial<AgentRun> = {}): AgentRun => ({
  id: 1000,
  organization_id: 1,
  status: 'COMPLETE',
  web_url: 'https://app.codegen.com/agent/trace/1000',
  ...fields
})

function mirrored(events: (mirror: LogMirror) => void, report: RunReport): string[] {
  const runner = new FakeRunner()
  const mirror = new LogMirror(runner, {
    toConsole: true,
    keepEntries: false,
    openLogFile: () => noFile,
    policy: POLICY
  })
  events(mirror)
  void mirror.finish(report)
  return runner.lines
}

test('a run that completes with a verdict of fail: the status line says it ended, the outcome rejected', () => {
  const report = reportOf(
    { outcome: 'rejected', run: run(), status: 'COMPLETE', trigger: 'inputs' },
    0,
    4_000
  )
  const lines = mirrored(mirror => {
    mirror.started(run({ status: 'ACTIVE' }), 'create')
    mirror.statusChanged('ACTIVE', 'COMPLETE')
  }, report)
  expect(lines.slice(1)).toEqual([
    'Status ACTIVE → COMPLETE (the run ended)',
    'Outcome: rejected (status COMPLETE); 0 log entries mirrored to /tmp/run.jsonl'
  ])
  expect(lines.join('\n')).not.toContain('(success)')
})

test('each status class in words that no outcome contradicts', () => {
  const lines = mirrored(
    mirror => {
      mirror.statusChanged(null, 'PENDING')
      mirror.statusChanged('PENDING', 'PAUSED')
      mirror.statusChanged('PAUSED', 'FAILED')
    },
    reportOf({ outcome: 'failure', run: run({ status: 'FAILED' }), status: 'FAILED' }, 0, 1)
  )
  expect(lines.slice(0, 3)).toEqual([
    'Status none → PENDING (working)',
    'Status PENDING → PAUSED (the run paused)',
    'Status PAUSED → FAILED (the run failed)'
  ])
})

test('an error before any run (an org-id the token does not have) is printed alone: no outcome line', () => {
  const error = "org-id 99 is not among the token's organizations; set org-id to one of them:\n  1 Octo Org"
  const report = reportOf({ outcome: 'error', error, trigger: 'inputs' }, 0, 10)
  expect(mirrored(() => undefined, report)).toEqual([])
  expect(stepFailMessage(report, POLICY)).toBe(error)
  // Skipped (nothing to start) still says its outcome, without a count of entries it never had.
  expect(mirrored(() => undefined, reportOf({ outcome: 'skipped', reason: 'not a trigger' }, 0, 1))).toEqual([
    'Outcome: skipped'
  ])
})

const quiet: Console = { info() {}, group() {}, notice() {}, warning() {}, debug() {} }
const entry = numberedEntry

describe('the log mirror keeps what the summary can show', () => {
  test('the first and last entries of an endless log, each cut, and how many were left out', () => {
    const mirror = new LogMirror(quiet, { toConsole: false, keepEntries: true, openLogFile: () => noFile })
    const big = 'y'.repeat(100_000)
    const total = KEPT_FIRST_ENTRIES + KEPT_LAST_ENTRIES + 2_345
    for (let n = 1; n <= total; n += 100)
      mirror.newEntries(Array.from({ length: Math.min(100, total - n + 1) }, (_, i) => entry(n + i, big)))
    const kept = mirror.entries
    expect(kept).toHaveLength(KEPT_FIRST_ENTRIES + KEPT_LAST_ENTRIES)
    expect(kept[0]?.thought).toBe('Entry 1')
    expect(kept[KEPT_FIRST_ENTRIES - 1]?.thought).toBe(`Entry ${KEPT_FIRST_ENTRIES}`)
    expect(kept[KEPT_FIRST_ENTRIES]?.thought).toBe(`Entry ${total - KEPT_LAST_ENTRIES + 1}`)
    expect(kept.at(-1)?.thought).toBe(`Entry ${total}`)
    expect(mirror.entriesLeftOut).toEqual({ after: KEPT_FIRST_ENTRIES, count: 2_345 })
    // Cut to what the summary shows, and saying so truly.
    const observation = String(kept[0]?.observation)
    expect(observation.length).toBeLessThan(4_100)
    expect(observation).toMatch(/… \(96000 more characters\)$/)

    const summary = renderSummary({
      report: {
        outcome: 'timeout',
        mode: 'create',
        status: 'ACTIVE',
        startedAt: 0,
        endedAt: 1,
        entriesSeen: total
      },
      entries: kept,
      entriesLeftOut: mirror.entriesLeftOut
    })
    const note = /\*\*(\d+) log entries left out here\*\*/.exec(summary)
    const shown = (summary.match(/<details>/g) ?? []).length
    expect(Number(note?.[1]) + shown).toBe(total)
    expect(summary).toContain('Entry 1<')
    expect(summary).toContain(`Entry ${total}<`)
    expect(summary).toContain('(96000 more characters)')
  })

  test('a short log is kept whole', () => {
    const mirror = new LogMirror(quiet, { toConsole: false, keepEntries: true, openLogFile: () => noFile })
    mirror.newEntries([entry(1), entry(2)])
    expect(mirror.entries.map(e => e.thought)).toEqual(['Entry 1', 'Entry 2'])
    expect(mirror.entriesLeftOut).toBeUndefined()
  })
})
