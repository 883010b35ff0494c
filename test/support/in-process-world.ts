import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction, type ActionEnvironment } from '../../src/action.js'
import { checkInThread, type AnswerChecker } from '../../src/answer/check.js'
import { openLogFile } from '../../src/runner/log-file.js'
import type { InputName } from '../../src/settings/settings.js'
import { AgentRunEmulator, type EmulatorOptions } from '../../emulator/index.js'
import { VirtualClock } from './virtual-clock.js'
import { FakeRunner } from './fake-runner.js'

export const TOKEN = 'emulator-token'

export interface Step {
  runner: FakeRunner
  failure: string | undefined
}

export interface StepOptions {
  env?: Record<string, string>
  event?: { name: string; payload: unknown }
  /** How answers are checked (default: in this thread). */
  checkAnswer?: AnswerChecker
  /** The job's cancellation (default: never). */
  signal?: AbortSignal
}

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
    const runner = new FakeRunner({
      'api-token': TOKEN,
      'base-url': this.emulator.baseUrl,
      prompt: 'Fix the failing test',
      'timeout-minutes': '5',
      'poll-interval': '5',
      ...inputs
    })
    const environment: ActionEnvironment = {
      runner,
      env: {
        GITHUB_REPOSITORY: 'octo-org/octo-repo',
        GITHUB_RUN_ID: '4242',
        GITHUB_EVENT_NAME: options.event?.name ?? 'workflow_dispatch',
        GITHUB_EVENT_PATH: join(this.temp, 'event.json'),
        GITHUB_WORKSPACE: this.temp,
        RUNNER_TEMP: this.temp,
        ...options.env
      },
      clock: this.clock,
      network: this.clock.network,
      signal: options.signal ?? new AbortController().signal,
      openLogFile,
      readEventPayload: () => options.event?.payload ?? {},
      checkAnswer: options.checkAnswer ?? checkInThread
    }
    const failure = await this.clock.run(() => runAction(environment))
    return { runner, failure }
  }

  /** The requests the emulator received on these routes. */
  routes(...names: string[]): AgentRunEmulator['requests'] {
    return this.emulator.requests.filter(request => names.includes(request.route))
  }
}
