import {
  scenario,
  type AgentRunEmulator,
  type EmulatorOptions,
  type RunScript
} from '../../emulator/index.js'
import type { FakeGitHub, FakeUser } from '../../scripts/github-fake/index.js'
import type { FlowOptions, FlowResult } from './flow-step.js'
import { FlowWorld } from './flow-world.js'
import { markerLine } from '../../src/github-shapes.js'
import { markerSignature } from '../../src/thread/tracking.js'
import { OWN_COMMENT_MARK } from '../../src/github-shapes.js'
import { issueCommentEvent, type CommentOptions } from './webhooks.js'

/**
 * The world of the comment workflow's flows (comments, comment-markers, comment-permissions,
 * comment-endings, comment-limits and the trigger tests): the action in process on the virtual clock
 * (flow-step.ts), the service emulator and a fake GitHub on it, over loopback, fresh for each test.
 * Importing this module registers the hooks that start and stop them.
 */

export /** New runs start PENDING and go RUNNING and EVALUATION, as the live service's may. */
const LIVE_LIKE: EmulatorOptions = { modes: ['pending-start', 'extra-statuses'], pendingMs: 300 }

const world = new FlowWorld({
  emulator: LIVE_LIKE,
  github: {
    permissions: {
      alice: 'write',
      bob: 'admin',
      carol: 'maintain',
      dave: { name: 'deployer', base: 'write' },
      erin: { name: 'auditor', base: 'read' },
      reader: 'read',
      tri: 'triage'
    }
  }
})
export let emulator: AgentRunEmulator
export let github: FakeGitHub

beforeEach(() => {
  emulator = world.emulator
  github = world.github
})

/** The test's virtual clock. */
export const clock = () => world.clock

/** Replaces the world's emulator with one in more modes (or another account). */
export async function useEmulator(options: EmulatorOptions): Promise<void> {
  const modes = [...(LIVE_LIKE.modes ?? []), ...(options.modes ?? [])]
  emulator = await world.useEmulator({ ...LIVE_LIKE, ...options, modes })
}

export const fast = (name: string): RunScript => scenario(name, 20)
/** The marker this workflow (API token emulator-token) writes for a run in a comment of octo-org/octo-repo. */
export const signedMarker = (runId: number, commentId: number, issueNumber = 7): string =>
  markerLine(
    runId,
    markerSignature(
      { secret: 'emulator-token', repository: 'octo-org/octo-repo', issueNumber },
      commentId,
      runId
    )
  )

/** A comment on thread 7 whose first line is `marker(its own id)`, the rest `text`. */
export function addMarkedComment(marker: (commentId: number) => string, text: string, user: FakeUser): void {
  const { id } = github.addComment(7, text, user)
  github.editComment(id, `${marker(id)}\n${text}`)
}

export async function onEvent(
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
      'poll-interval': '0.1',
      'timeout-minutes': '1',
      // check-world and the check tests follow check runs: these flows leave them out.
      'check-run': 'false',
      ...inputs
    },
    env: { GITHUB_API_URL: github.baseUrl },
    event,
    ...runner
  })
}

/** The comment as GitHub has it (stored in the fake) and the event it sends. */
export function comment(options: CommentOptions): ReturnType<typeof issueCommentEvent> {
  const user = { login: options.login ?? 'alice', type: options.userType ?? ('User' as const) }
  const stored = github.addComment(options.issueNumber ?? 7, options.body, user)
  return issueCommentEvent({ ...options, commentId: stored.id })
}
/** Pull request 7 of octo-org/octo-repo, "Parse quoted fields", from feature/parser into main. */
export function addParserPullRequest(): void {
  github.addPullRequest({
    number: 7,
    title: 'Parse quoted fields',
    body: '',
    head: 'feature/parser',
    base: 'main'
  })
}
export const creates = () => emulator.requests.filter(request => request.route === 'create')
export const resumes = () => emulator.requests.filter(request => request.route === 'resume')
export const edits = () => github.requests.filter(request => request.method === 'PATCH')
/** The action's own comments on the thread (a tracking comment of a run that never started has no run id). */
export const trackingComments = (issue = 7) =>
  github.comments(issue).filter(c => c.body.startsWith(OWN_COMMENT_MARK))
