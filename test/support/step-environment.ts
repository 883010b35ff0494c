import { join } from 'node:path'
import type { ActionEnvironment } from '../../src/action.js'
import { checkInThread, type AnswerChecker } from '../../src/answer/check.js'
import { openLogFile } from '../../src/runner/log-file.js'
import type { FakeRunner } from './fake-runner.js'
import type { VirtualClock } from './virtual-clock.js'

export interface StepPlace {
  /** The step's time and network: run the step inside `clock.run`. */
  clock: VirtualClock
  /** The runner's folder: workspace, temp, event file. */
  temp: string
  repository?: string
  event?: { name: string; payload: unknown }
  env?: Record<string, string>
  signal?: AbortSignal
  /** How answers are checked (default: in this thread). */
  checkAnswer?: AnswerChecker
}

/** What runAction gets on a runner of workflow run 4242 (workflow_dispatch unless `event` says), its answers checked in this thread unless `checkAnswer` says. */
export function stepEnvironment(runner: FakeRunner, place: StepPlace): ActionEnvironment {
  return {
    runner,
    env: {
      GITHUB_REPOSITORY: place.repository ?? 'octo-org/octo-repo',
      GITHUB_RUN_ID: '4242',
      GITHUB_EVENT_NAME: place.event?.name ?? 'workflow_dispatch',
      GITHUB_EVENT_PATH: join(place.temp, 'event.json'),
      GITHUB_WORKSPACE: place.temp,
      RUNNER_TEMP: place.temp,
      ...place.env
    },
    clock: place.clock,
    network: place.clock.network,
    signal: place.signal ?? new AbortController().signal,
    openLogFile,
    readEventPayload: () => place.event?.payload ?? {},
    checkAnswer: place.checkAnswer ?? checkInThread
  }
}
