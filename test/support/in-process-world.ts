import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction, type ActionEnvironment } from '../../src/action.js'
import type { InputName } from '../../src/settings/settings.js'
import { AgentRunEmulator, type EmulatorOptions } from '../../emulator/index.js'
import { VirtualClock } from './virtual-clock.js'
import { FakeRunner } from './fake-runner.js'
import { stepEnvironment, type StepPlace } from './step-environment.js'

export const TOKEN = 'emulator-token'

export interface Step {
  runner: FakeRunner
  failure: string | undefined
}

/** The step's environment, event, answer checker and cancellation (default: never). */
export type StepOptions = Pick<StepPlace, 'env' | 'event' | 'checkAnswer' | 'signal'>

/**
 * A test file's world for runAction in process with a fake runner (FakeRunner: the console as lines,
 * the outputs and summary in memory), on a virtual clock shared with the emulator (real HTTP on
 * loopback), and a temp folder for the runner's files. It registers its own hooks: each test gets a
 * new clock and folder, and what it started is stopped after it.
 */
export class InProcessWorld {
  /** Replaceable within a test (the emulator reads it through the world). */
  clock = new VirtualClock()
  temp = ''
  private started?: AgentRunEmulator

  constructor() {
    beforeEach(() => {
      this.clock = new VirtualClock()
      this.temp = mkdtempSync(join(tmpdir(), 'codegen-action-'))
    })
    afterEach(async () => {
      await this.started?.stop()
      this.started = undefined
      rmSync(this.temp, { recursive: true, force: true })
    })
  }

  get emulator(): AgentRunEmulator {
    if (!this.started) throw new Error('startEmulator() first')
    return this.started
  }

  async startEmulator(options: EmulatorOptions = {}): Promise<AgentRunEmulator> {
    this.started = new AgentRunEmulator({ clock: this.clock, ...options })
    await this.started.start()
    return this.started
  }

  /** One step of the action: the inputs over defaults for a run on the emulator. */
  async step(inputs: Partial<Record<InputName, string>>, options: StepOptions = {}): Promise<Step> {
    const { runner, environment } = this.prepare(inputs, options)
    const failure = await this.clock.run(() => runAction(environment))
    return { runner, failure }
  }

  /**
   * A step's runner (the inputs over defaults for a run on the emulator) and what runAction gets on
   * it, in `temp` (default: the test's folder): for steps side by side, run inside one `clock.run`.
   */
  prepare(
    inputs: Partial<Record<InputName, string>>,
    options: StepOptions & { temp?: string } = {}
  ): { runner: FakeRunner; environment: ActionEnvironment } {
    const runner = new FakeRunner({
      'api-token': TOKEN,
      'base-url': this.emulator.baseUrl,
      prompt: 'Fix the failing test',
      'timeout-minutes': '5',
      'poll-interval': '5',
      ...inputs
    })
    const environment = stepEnvironment(runner, {
      ...options,
      clock: this.clock,
      temp: options.temp ?? this.temp
    })
    return { runner, environment }
  }

  /**
   * Bends the next answer of the organization's runs list (the emulator's drift fault): its items as
   * `items` makes them, the page's other fields overwritten by `page`.
   */
  driftRunsList(
    items: (items: Array<Record<string, unknown>>) => unknown[],
    page: Record<string, unknown> = {}
  ): void {
    this.emulator.injectFaults({
      route: 'list-runs',
      fault: {
        kind: 'drift',
        mutate: body => ({ ...body, items: items(body.items as Array<Record<string, unknown>>), ...page })
      }
    })
  }

  /** The requests the emulator received on these routes. */
  routes(...names: string[]): AgentRunEmulator['requests'] {
    return this.emulator.requests.filter(request => names.includes(request.route))
  }
}
