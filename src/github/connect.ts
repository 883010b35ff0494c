import type { Clock } from '../clock.js'
import type { Deadlines } from '../deadlines.js'
import type { Network } from '../network.js'
import { once } from '../once.js'
import type { Console } from '../runner/runner.js'
import type { Settings } from '../settings/settings.js'
import type { GitHubApi } from './api.js'

/** Why nothing new is written to GitHub, in the words of a warning. */
const STOPPED_BECAUSE = {
  cancelled: 'the job was cancelled',
  timeout: 'timeout-minutes was reached',
  running: undefined
} as const

/**
 * The GitHub client of the step, its calls ending with GitHub's deadline, made at most once. Loaded
 * here only: octokit is a sixth of the bundle, and a step that neither answers a thread nor writes a
 * check never needs it.
 */
export function gitHubClient(
  settings: Settings,
  deadlines: Deadlines,
  say: Pick<Console, 'warning'>,
  io: { clock: Clock; fetch: Network['github']; cancellation: AbortSignal }
): () => Promise<GitHubApi> {
  return once(async () => {
    const { OctokitGitHubApi } = await import('./octokit-api.js')
    return new OctokitGitHubApi({
      token: settings.githubToken,
      repository: settings.context.repository,
      apiUrl: settings.context.apiUrl,
      warn: say.warning,
      signal: deadlines.githubSignal,
      stopAt: deadlines.githubStopAt,
      clock: io.clock,
      fetch: io.fetch,
      cancellation: io.cancellation,
      stopped: () => STOPPED_BECAUSE[deadlines.stopped() ?? 'running']
    })
  })
}
