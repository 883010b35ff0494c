import type { ServerClock } from '../emulator/loopback-server.js'
import { FakeGitHub, type FakeComment, type RecordedGitHubRequest } from './github-fake/index.js'
import { readerText } from './render-markdown.js'

/**
 * GitHub as the tools simulate it (`npm start`, `npm run screenshots`): the fake GitHub the tests
 * use (github-fake/), holding a sample repository with one pull request, and the comment someone
 * asks on it with the event GitHub sends for it. What the step wrote is told as a reader sees it,
 * with every call the fake answered 404 (a route it does not have: the action asked for something new).
 */

export const SAMPLE_REPOSITORY = 'octo-org/octo-repo'
/** The job's token as the fake accepts it. */
export const SAMPLE_TOKEN = 'github-token'
/** The issue a comment that is not on the pull request is asked on. */
export const SAMPLE_ISSUE = 9

/** The pull request a simulated comment or review is on. */
export const SAMPLE_PULL_REQUEST = {
  number: 7,
  title: 'Parse quoted fields at the end of a line',
  head: 'feature/parser',
  base: 'main',
  /** The head commit: a check run goes on it. */
  sha: 'f'.repeat(40)
}

export interface SampleEvent {
  name: string
  payload: Record<string, unknown>
}

export class SampleGitHub extends FakeGitHub {
  readonly fullName: string

  /** `repository`: owner/name (a run against the real service names the user's own). */
  constructor(options: { repository?: string; clock?: ServerClock } = {}) {
    const repository = options.repository || SAMPLE_REPOSITORY
    const [owner, repo] = repository.split('/')
    super({ owner, repo, token: SAMPLE_TOKEN, ...(options.clock ? { clock: options.clock } : {}) })
    this.fullName = repository
    const { number, title, head, base, sha } = SAMPLE_PULL_REQUEST
    this.addPullRequest({ number, title, body: 'Fixes the last field of a line.', head, base, headSha: sha })
  }

  /**
   * A comment `body` by `login` (who may write) on issue #9, or on the pull request, put in the
   * thread as GitHub would before the step starts; the `issue_comment` event GitHub sends for it.
   */
  ask(body: string, onPullRequest: boolean, login = 'octocat'): SampleEvent {
    const number = onPullRequest ? SAMPLE_PULL_REQUEST.number : SAMPLE_ISSUE
    this.setPermission(login, 'write')
    const asked = this.addComment(number, body, { login, type: 'User' })
    const url = `https://github.com/${this.fullName}/${onPullRequest ? 'pull' : 'issues'}/${number}`
    const [owner, name] = this.fullName.split('/')
    return {
      name: 'issue_comment',
      payload: {
        action: 'created',
        issue: {
          number,
          title: onPullRequest ? SAMPLE_PULL_REQUEST.title : 'The parser drops the last field',
          body: onPullRequest ? 'Fixes the last field of a line.' : 'Steps: parse `a,"b"`.',
          html_url: url,
          user: asked.user,
          ...(onPullRequest
            ? { pull_request: { url: `https://api.github.com/repos/${this.fullName}/pulls/${number}` } }
            : {})
        },
        comment: {
          id: asked.id,
          body: asked.body,
          user: asked.user,
          created_at: asked.created_at,
          html_url: asked.html_url,
          author_association: 'COLLABORATOR'
        },
        repository: { full_name: this.fullName, name, owner: { login: owner } },
        sender: asked.user
      }
    }
  }

  /** The comments on the sample's issue and pull request, each thread in order. */
  threadComments(): FakeComment[] {
    return [SAMPLE_ISSUE, SAMPLE_PULL_REQUEST.number].flatMap(number => this.comments(number))
  }

  /** The calls answered 404: a route the fake does not have, or a thing it does not hold. */
  unanswered(): RecordedGitHubRequest[] {
    return this.requests.filter(request => request.status === 404)
  }

  /** What the step wrote, as a reader sees it on GitHub, then the calls the fake had no answer for. */
  written(): string {
    const indent = (text: string): string => text.replace(/^/gm, '    ')
    const parts: string[] = []
    const reactions = this.reactions.map(reaction => reaction.content)
    if (reactions.length) parts.push(`Reactions on the comment: ${reactions.join(', ')}`)
    const comments = this.threadComments().filter(comment => comment.user.type === 'Bot')
    for (const comment of comments)
      parts.push(
        `Comment on #${comment.issueNumber} (as GitHub shows it):\n${indent(readerText(comment.body))}`
      )
    for (const check of this.checkRuns()) {
      const state = check.conclusion ? `${check.status}, ${check.conclusion}` : check.status
      parts.push(
        `Check run "${check.name}" on ${check.head_sha.slice(0, 7)}: ${state}: ${check.output.title ?? ''}`
      )
    }
    if (!comments.length && !this.checkRuns().length) parts.push('Nothing was written to GitHub.')
    const unanswered = this.unanswered().map(request => `${request.method} ${request.path}`)
    if (unanswered.length) parts.push(`The simulated GitHub had no answer for: ${unanswered.join(', ')}`)
    return parts.join('\n\n')
  }
}
