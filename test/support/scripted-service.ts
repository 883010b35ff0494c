import {
  AgentRunEmulator,
  type EmulatorOptions,
  type RunScript,
  type ScriptStep
} from '../../emulator/index.js'
import { HttpAgentRunApi } from '../../src/api/client.js'
import type { Clock } from '../../src/clock.js'
import type { ServiceClients } from '../../src/org/clients.js'
import { VirtualClock } from './virtual-clock.js'

/**
 * The world of the flow tests of one run's watch (watcher, follow and stop .test.ts): the emulator
 * as the service, its runs scripted, read by the real client over loopback, all on one virtual clock
 * per test. Made at a test file's top level, it registers its own hooks.
 */

export const TOKEN = 'emulator-token'

/** `count` ACTION entries written at `at`, their thoughts numbered from `first` ('entry 0', ...). */
export function entries(at: number, count: number, first = 0): ScriptStep[] {
  return Array.from({ length: count }, (_, i) => ({
    at,
    log: { message_type: 'ACTION', thought: `entry ${first + i}` }
  }))
}

/** The agent's final answer, written at `at`. */
export function finalAnswer(at: number): ScriptStep {
  return { at, log: { message_type: 'FINAL_ANSWER', observation: 'done' } }
}

/** One emulator of a test, and the client the action reads it with. */
export interface ScriptedService {
  emulator: AgentRunEmulator
  /** The action's client of organization 1 (its own rate budget), on the test's clock. */
  api: HttpAgentRunApi
  /** The clients by organization, as startRun takes them: this one client. */
  apis: ServiceClients
  /** A run of organization 1 created now, following `script` from now on; its id. */
  seed(script: RunScript): number
  /**
   * What the service was asked, in order, in short: `get`, `logs:interface:<skip>`,
   * `logs:alpha:<skip>`, `stop`, `resume`, or the route's name.
   */
  calls(): string[]
}

export class ScriptedWorld {
  clock = new VirtualClock()
  private started: AgentRunEmulator[] = []

  constructor() {
    beforeEach(() => {
      this.clock = new VirtualClock()
    })
    afterEach(async () => {
      await Promise.all(this.started.map(emulator => emulator.stop()))
      this.started = []
    })
  }

  /** A new emulator on the test's clock (a test may start several). */
  async service(options: EmulatorOptions = {}): Promise<ScriptedService> {
    const emulator = new AgentRunEmulator({ clock: this.clock, ...options })
    this.started.push(emulator)
    await emulator.start()
    const api = new HttpAgentRunApi({
      baseUrl: emulator.baseUrl,
      token: TOKEN,
      orgId: 1,
      clock: this.clock,
      fetch: this.clock.network.service
    })
    return {
      emulator,
      api,
      apis: () => api,
      seed: script => emulator.seedRun({ script }),
      calls: () => emulator.requests.map(shortCall)
    }
  }

  /**
   * The clock as a watcher gets it, its sleeps recorded: the waits between looks alone (the test
   * clock's `sleeps` also hold every request's time limit and the client's own waits).
   */
  looking(): Clock & { sleeps: number[] } {
    const clock = this.clock
    const sleeps: number[] = []
    return {
      sleeps,
      now: () => clock.now(),
      sleep: (ms, signal) => {
        sleeps.push(ms)
        return clock.sleep(ms, signal)
      }
    }
  }
}

function shortCall(request: AgentRunEmulator['requests'][number]): string {
  if (request.route === 'logs') return `logs:interface:${request.query.skip ?? 0}`
  if (request.route === 'logs-alpha') return `logs:alpha:${request.query.skip ?? 0}`
  return request.route
}

/**
 * The status and result a script shows `ms` after its start: what a log endpoint that lags behind
 * the run endpoint by the difference still shows (a `drift` fault on the log routes).
 */
export function shownAt(script: RunScript, ms: number): { status: string | null; result: string | null } {
  const shown = { status: null as string | null, result: null as string | null }
  for (const step of [...script.steps].sort((a, b) => a.at - b.at)) {
    if (step.at > ms) break
    if (step.status !== undefined) shown.status = step.status
    if (step.result !== undefined) shown.result = step.result
  }
  return shown
}
