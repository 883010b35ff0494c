import type { FaultRule, RunScript } from '../../../emulator/index.js'
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../../src/api/client.js'
import { runScheduleInProcess, type InProcessScheduleResult } from '../../long/faults/execute.js'
import type { FaultSchedule, PermanentFault } from '../../long/faults/schedule.js'

/**
 * Each bug the fault-injection suite (faults.test.ts) found, pinned by a minimal schedule written by
 * hand, so that it stays what it is when the seeded schedules change. The test names the seed that
 * found it. The same checks as the suite's apply: one create or resume, every entry mirrored once
 * and in order, outputs equal to the run (or what the step had, with one clear error), in time.
 * Each schedule has a world of its own, the step as the runner runs it, in process on the virtual
 * clock, by the suite's own runner (long/faults/execute.ts): waits (seed 94's 30 s resume grace)
 * cost no real time.
 */

/** A run script: ACTIVE, one entry (marked [eN]) at each moment given, then COMPLETE with `result`. */
function run(
  marks: Array<[mark: number, at: number]>,
  endAt: number,
  result: string,
  staleMs?: number
): RunScript {
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      ...marks.map(([mark, at]) => ({
        at,
        log: { message_type: 'ACTION', thought: `[e${mark}] step ${mark}` }
      })),
      { at: endAt, status: 'COMPLETE', result, summary: `${result} (summary)` }
    ],
    ...(staleMs === undefined ? {} : { staleAfterResumeMs: staleMs })
  }
}

/** Entries e`first` on, `count` of them, 100 ms apart from 100 ms. */
const marks = (first: number, count: number): Array<[mark: number, at: number]> =>
  Array.from({ length: count }, (_, n) => [first + n, 100 * (n + 1)])

/** A run that ended before the step resumes it, with entries e1 to e4. */
const EARLIER = run(
  [
    [1, 10],
    [2, 20],
    [3, 30],
    [4, 40]
  ],
  60,
  'The earlier result'
)

type Fields = Partial<FaultSchedule> & Pick<FaultSchedule, 'mode' | 'script'>

function schedule(description: string, fields: Fields): FaultSchedule {
  const timeoutMinutes = 1
  return {
    seed: 0,
    faults: [],
    expect: 'success',
    inputs: {
      'poll-interval': '0.1',
      'timeout-minutes': String(timeoutMinutes),
      ...(fields.mode === 'create' ? { 'repo-id': '101' } : {})
    },
    emulator: {},
    neighbours: fields.mode === 'create',
    timeoutMs: timeoutMinutes * 60_000,
    estimateMs: 0,
    description,
    ...(fields.mode === 'resume' ? { earlier: EARLIER } : {}),
    ...fields
  }
}

const driftOnce = (
  after: number,
  mutate: (page: Record<string, unknown>) => Record<string, unknown>
): FaultRule => ({
  route: ['logs', 'logs-alpha'],
  after,
  fault: { kind: 'drift', mutate }
})

/** A create of a run with one entry that ends at 400 ms, with `fields` over it. */
const created = (fields: Partial<FaultSchedule>): Fields => ({
  mode: 'create',
  script: run(marks(1, 1), 400, 'Done'),
  ...fields
})

/**
 * Ten answers `status` on `route`: the step fails for good (`kind`), saying `message`, after sending
 * `route` `max` times at most.
 */
const failsForGood = (
  route: PermanentFault['bound']['routes'][number],
  status: number,
  kind: PermanentFault['kind'],
  message: RegExp,
  max: number
): Partial<FaultSchedule> => ({
  faults: [{ route, times: 10, fault: { kind: 'status', status } }],
  expect: 'error',
  permanent: { kind, message, bound: { routes: [route], max } }
})

/** A resume whose count of the earlier entries reads total_logs `by` off. */
const totalLogsOff = (by: number): Fields => ({
  mode: 'resume',
  script: run(marks(5, 3), 500, 'Resumed'),
  faults: [driftOnce(0, page => ({ ...page, total_logs: Number(page.total_logs) + by }))]
})

/**
 * One bug pinned: its schedule runs in a world of its own and keeps every check of the suite; `timed`
 * asserts, to the millisecond, the waits its premise is about.
 */
function pinned(
  name: string,
  description: string,
  fields: Fields,
  timed?: (result: InProcessScheduleResult) => void
): void {
  test(name, async () => {
    const fault = schedule(description, fields)
    const result = await runScheduleInProcess(fault)
    expect({ schedule: fault.description, violations: result.violations }).toEqual({
      schedule: fault.description,
      violations: []
    })
    timed?.(result)
  })
}

/** When each request on `route` came, in virtual ms from the step's start. */
const times = (result: InProcessScheduleResult, route: string): number[] =>
  result.sent.filter(request => request.route === route).map(request => request.at)

describe('bugs found by the fault-injection suite', () => {
  pinned(
    'seeds 37 and 46: a permanent fault after entries were mirrored still reports them and the last status',
    '403 on the final read of a run whose four entries were mirrored',
    created({
      script: run(marks(1, 4), 600, 'Done'),
      ...failsForGood('get', 403, 'forbidden', /Permission denied \(403\)/, 1)
    })
  )

  pinned(
    'seeds 79, 116, 125, 153, 154 and 175: a gateway that keeps failing fails the step with one readable message',
    "every create answered 502 by the gateway, with the gateway's HTML page",
    created(
      failsForGood(
        'create',
        502,
        'never-recovers',
        /Could not create the agent run: service error 502: 502 Bad Gateway \(sent 3 times; no run was created\)$/,
        3
      )
    )
  )

  pinned(
    "seed 117: a resume counts the log's entries, not a total_logs that lags behind them",
    'resume; the count of the earlier entries reads total_logs 3 short',
    totalLogsOff(-3)
  )

  pinned(
    "seed 100: a resume counts the log's entries, not a total_logs that runs ahead of them",
    'resume; the count of the earlier entries reads total_logs 20 too many',
    totalLogsOff(20)
  )

  pinned(
    'seed 104: refused creates do not fill the create window and end the step long before its time',
    'two 429s (Retry-After: 0) on the create, timeout-minutes 1',
    created({
      faults: [{ route: 'create', times: 2, fault: { kind: 'status', status: 429, retryAfter: 0 } }]
    })
  )

  pinned(
    'seeds 690 and 120: 429s and 503s on the create do not hold the run back by a minute',
    'two 429s, then two 503s on the create, timeout-minutes 1',
    created({
      faults: [
        { route: 'create', times: 2, fault: { kind: 'status', status: 429 } },
        { route: 'create', times: 2, fault: { kind: 'status', status: 503 } }
      ]
    })
  )

  pinned(
    'seeds 333 and 510: a resume that arrived is not sent again when the run restarts and ends without an entry',
    'resume answered after the request time limit; the run ends 300 ms later with no new entry',
    {
      mode: 'resume',
      script: run([], 300, 'Resumed without a word'),
      // The answer outlives the client's own time limit (30 s): virtual time, so it costs nothing.
      faults: [{ route: 'resume', fault: { kind: 'slow', delayMs: DEFAULT_REQUEST_TIMEOUT_MS + 500 } }]
    },
    result => {
      // The step heard nothing of its resume for the whole time limit.
      const [resume] = times(result, 'resume')
      const next = result.sent.find(request => request.at > resume!)
      expect(next!.at - resume!).toBeGreaterThanOrEqual(DEFAULT_REQUEST_TIMEOUT_MS)
    }
  )

  // The resume never reached the service (503 at the gateway): after the resume grace (30 s) shows
  // no restart, it is sent again, once.
  pinned(
    'seed 94: a status of null is no sign that a resume of unknown fate arrived',
    'resume answered 503 without reaching the service; the restart checks read status null',
    {
      mode: 'resume',
      script: run(marks(5, 1), 300, 'Resumed'),
      faults: [
        { route: 'resume', fault: { kind: 'status', status: 503 } },
        { ...driftOnce(1, page => ({ ...page, status: null })), times: 3 }
      ]
    },
    result => {
      const [first] = times(result, 'resume')
      expect(times(result, 'resume')).toEqual([first, first! + 30_000])
    }
  )

  pinned(
    'seeds 39, 74 and 132: a status of null while a resumed run still shows its earlier ending is no sign of a restart',
    'resume, stale 900 ms; the first poll after the resume reads status null',
    {
      mode: 'resume',
      script: run(marks(5, 2), 400, 'Resumed', 900),
      faults: [driftOnce(1, page => ({ ...page, status: null }))]
    }
  )

  // The first page lacks the status, so the run is read for it; that read is reset and retried
  // after a backoff (at least 500 ms), by when the last entry and the ending have come.
  pinned(
    'seed 170: a run that ends between a log page without a status and the read of the run loses no entry',
    'first log page without its status; the read of the run reset once; the last entry meanwhile',
    {
      mode: 'create',
      script: run(
        [
          [1, 0],
          [2, 0],
          [3, 0],
          [4, 300]
        ],
        350,
        'Done'
      ),
      faults: [
        driftOnce(0, page => ({ ...page, status: null })),
        { route: 'get', fault: { kind: 'reset-before' } }
      ]
    },
    result => {
      const [reset, retry] = times(result, 'get')
      expect(retry! - reset!).toBeGreaterThanOrEqual(500)
      expect(retry! - times(result, 'create')[0]!).toBeGreaterThanOrEqual(350)
    }
  )
})
