import type { AgentRunEmulator } from '../../emulator/index.js'
import type { RunnerResult } from '../../scripts/runner-process.js'
import type { FakeCheckRun, FakeGitHub } from '../../scripts/github-fake/index.js'
import type { FlowOptions, FlowResult } from './flow-step.js'
import { FlowWorld } from './flow-world.js'
import { issueCommentEvent, labeledEvent } from './webhooks.js'

/**
 * The world of the check runs' flows (check-life, check-cases, check-gate): the action in process on
 * the virtual clock (flow-step.ts), the emulator (scenarios chosen by `[emulator:NAME]` in the
 * request, 20 times faster) and a fake GitHub holding pull requests 7, 8 and 9 (from feature/7 and
 * so on), fresh for each test. Importing it registers the hooks.
 */

const world = new FlowWorld({ emulator: { speed: 20 }, github: { permissions: { alice: 'write' } } })
export let emulator: AgentRunEmulator
export let github: FakeGitHub

beforeEach(() => {
  emulator = world.emulator
  github = world.github
  github.addPullRequests(7, 8, 9)
})

afterEach(() => {
  // Every check-run body the action sent held to GitHub's REST description.
  expect(github.invalidCheckRunRequests).toEqual([])
})

/** The test's virtual clock. */
export const clock = () => world.clock

/** The action on `event`, as the runner runs it, against this world. */
export function step(
  event: { name: string; payload: unknown },
  inputs: Record<string, string> = {},
  runner: Pick<FlowOptions, 'terminateAfterMs' | 'terminateWhen' | 'terminateSignal'> = {}
): Promise<FlowResult> {
  return world.step({
    inputs: {
      'api-token': 'emulator-token',
      'org-id': '1',
      'base-url': emulator.baseUrl,
      'github-token': 'github-token',
      'poll-interval': '1',
      'timeout-minutes': '1',
      ...inputs
    },
    env: { GITHUB_API_URL: github.baseUrl },
    event,
    ...runner
  })
}

/** alice's comment on issue or pull request `number`, as GitHub stores it and sends it. */
export function commentOn(
  number: number,
  body: string,
  pullRequest = true
): ReturnType<typeof issueCommentEvent> {
  const stored = github.addComment(number, body, { login: 'alice', type: 'User' })
  return issueCommentEvent({ body, pullRequest, issueNumber: number, commentId: stored.id })
}

/** A pull_request event (label x added) on pull request `number`, its head as the world has it. */
export const pullRequestEvent = (number: number): ReturnType<typeof labeledEvent> =>
  labeledEvent({ label: 'x', eventName: 'pull_request', pullRequest: { number, head: `feature/${number}` } })

/** The check run the step wrote (its id is the step's check-run-id output), holding `fields`. */
export const stepsCheck = (result: RunnerResult, fields: Partial<FakeCheckRun>): unknown =>
  expect.objectContaining({ ...fields, id: Number(result.outputs['check-run-id']) })

/** The check runs on a pull request's head commit. */
export const checksOn = (number: number): FakeCheckRun[] =>
  github.checkRuns().filter(check => check.head_sha === github.headSha(number))

/** The check-run requests the action sent. */
export const checkWrites = () => github.requests.filter(request => request.path.includes('/check-runs'))

/** The warning annotations a step printed. */
export const warningsOf = (result: RunnerResult): string[] =>
  result.stdout.split('\n').filter(line => line.startsWith('::warning::'))
