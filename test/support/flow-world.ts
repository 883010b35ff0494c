import { AgentRunEmulator, type EmulatorOptions } from '../../emulator/index.js'
import { FakeGitHub, type FakeGitHubOptions } from '../../scripts/github-fake/index.js'
import { runFlowStep, type FlowOptions, type FlowResult } from './flow-step.js'
import { VirtualClock } from './virtual-clock.js'

/**
 * A flow test's world: for each test a new virtual clock, the emulator of the service and (when the
 * file asks for it) the fake GitHub on it, over real HTTP on loopback; `step` runs the action in
 * process as the runner runs the bundle (flow-step.ts). Made at a test file's top level, it registers
 * its own hooks: what a test started is stopped after it.
 */
export class FlowWorld {
  clock = new VirtualClock()
  private startedEmulator?: AgentRunEmulator
  private startedGitHub?: FakeGitHub

  constructor(
    private readonly options: {
      emulator?: EmulatorOptions
      /** The fake GitHub's options, for a file whose steps talk to GitHub. */
      github?: FakeGitHubOptions
    } = {}
  ) {
    beforeEach(async () => {
      this.clock = new VirtualClock()
      await this.useEmulator(this.options.emulator ?? {})
      if (this.options.github) {
        this.startedGitHub = new FakeGitHub({ clock: this.clock, ...this.options.github })
        await this.startedGitHub.start()
      }
    })
    afterEach(async () => {
      await Promise.all([this.startedEmulator?.stop(), this.startedGitHub?.stop()])
      this.startedEmulator = undefined
      this.startedGitHub = undefined
    })
  }

  get emulator(): AgentRunEmulator {
    if (!this.startedEmulator) throw new Error('The emulator starts before each test')
    return this.startedEmulator
  }

  get github(): FakeGitHub {
    if (!this.startedGitHub) throw new Error('This world has no fake GitHub: pass `github` options')
    return this.startedGitHub
  }

  /** Replaces the test's emulator with one made of `options` (on the same clock). */
  async useEmulator(options: EmulatorOptions): Promise<AgentRunEmulator> {
    await this.startedEmulator?.stop()
    this.startedEmulator = new AgentRunEmulator({ clock: this.clock, ...options })
    await this.startedEmulator.start()
    return this.startedEmulator
  }

  /** One step of the action, in process on the virtual clock (one at a time). */
  step(options: FlowOptions): Promise<FlowResult> {
    return runFlowStep(this.clock, options)
  }
}
