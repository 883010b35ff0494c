import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { close, listen } from '../emulator/loopback-server.js'

/**
 * The few of GitHub's REST routes a step on a comment, a pull request or with a check run calls, on
 * loopback, for the tools (`npm start`, `npm run screenshots`): the caller may write, one pull
 * request has a head commit, and the comments, reactions and check runs the action writes are kept
 * for a look. A call it has no answer for is kept in `unknownCalls`, so the tool can say the action
 * asked for something new. The tests' fake GitHub (test/github-fake) is the faithful one (errors,
 * paging, rate limits, GitHub's published shapes); the tools build without test/, so they have this.
 */

export const LOCAL_REPOSITORY = 'octo-org/octo-repo'
export const LOCAL_TOKEN = 'local-github-token'

export interface LocalPullRequest {
  number: number
  title: string
  head: string
  base: string
  /** The head commit. */
  sha: string
}

/** The pull request a simulated comment or review is on. */
export const LOCAL_PULL_REQUEST: LocalPullRequest = {
  number: 7,
  title: 'Parse quoted fields at the end of a line',
  head: 'feature/parser',
  base: 'main',
  sha: 'f'.repeat(40)
}

export interface LocalComment {
  id: number
  issueNumber: number
  body: string
  user: { login: string; type: 'User' | 'Bot' }
  created_at: string
}

export interface LocalCheckRun {
  id: number
  name: string
  head_sha: string
  status: string
  conclusion?: string
  details_url?: string
  output?: { title?: string; summary?: string }
}

/** What the action writes as: the GITHUB_TOKEN's bot. */
const BOT = { login: 'github-actions[bot]', type: 'Bot' as const }
const NOT_FOUND = { message: 'Not Found' }

type Answer = [status: number, body: unknown]

export class LocalGitHub {
  /** Every comment, in the order written: those the tool added and those the action wrote. */
  readonly comments: LocalComment[] = []
  readonly reactions: string[] = []
  readonly checkRuns: LocalCheckRun[] = []
  /** Calls it has no answer for, `METHOD path`: the action asked for something new. */
  readonly unknownCalls: string[] = []
  private nextId = 9_001
  private server: Server | undefined
  url = ''

  async start(): Promise<string> {
    const { server, url } = await listen((request, response) => this.receive(request, response))
    this.server = server
    this.url = url
    return url
  }

  async stop(): Promise<void> {
    if (this.server) await close(this.server)
    this.server = undefined
  }

  /**
   * A comment `body` by `login` on issue #9, or on the pull request, put in the thread as GitHub
   * would before the step starts; the `issue_comment` event GitHub sends for it.
   */
  ask(
    body: string,
    onPullRequest: boolean,
    { repository = LOCAL_REPOSITORY, login = 'octocat' } = {}
  ): { name: string; payload: unknown } {
    const number = onPullRequest ? LOCAL_PULL_REQUEST.number : 9
    const asked = this.write(number, body, { login, type: 'User' })
    const user = asked.user
    const url = `https://github.com/${repository}/${onPullRequest ? 'pull' : 'issues'}/${number}`
    const [owner, name] = repository.split('/')
    return {
      name: 'issue_comment',
      payload: {
        action: 'created',
        issue: {
          number,
          title: onPullRequest ? LOCAL_PULL_REQUEST.title : 'The parser drops the last field',
          body: onPullRequest ? 'Fixes the last field of a line.' : 'Steps: parse `a,"b"`.',
          html_url: url,
          user,
          ...(onPullRequest
            ? { pull_request: { url: `https://api.github.com/repos/${repository}/pulls/${number}` } }
            : {})
        },
        comment: { ...this.shown(asked, repository), author_association: 'OWNER' },
        repository: { full_name: repository, name, owner: { login: owner } },
        sender: user
      }
    }
  }

  /** The comments on an issue or pull request, in order. */
  commentsOn(issueNumber: number): LocalComment[] {
    return this.comments.filter(c => c.issueNumber === issueNumber)
  }

  private write(issueNumber: number, body: string, user: LocalComment['user']): LocalComment {
    const comment = { id: this.nextId++, issueNumber, body, user, created_at: new Date().toISOString() }
    this.comments.push(comment)
    return comment
  }

  private receive(request: IncomingMessage, response: ServerResponse): void {
    let text = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => {
      // The action's bodies are at most GitHub's 65,536 characters a comment or check summary.
      if (text.length < 1_000_000) text += chunk
    })
    request.on('end', () => {
      let answer: Answer
      if (request.headers.authorization?.replace(/^(token|bearer) /i, '') !== LOCAL_TOKEN)
        answer = [401, { message: 'Bad credentials' }]
      else {
        let body: Record<string, unknown> = {}
        try {
          body = text ? (JSON.parse(text) as Record<string, unknown>) : {}
        } catch {
          // A body that is not JSON is left empty: the routes below answer it as GitHub would, 4xx.
        }
        const path = new URL(request.url ?? '/', 'http://local-github').pathname
        answer = this.answer(request.method ?? 'GET', path, body)
      }
      response.writeHead(answer[0], { 'content-type': 'application/json; charset=utf-8' })
      response.end(JSON.stringify(answer[1]))
    })
  }

  private answer(method: string, path: string, body: Record<string, unknown>): Answer {
    // Any owner/name: a run against the real service names the user's own repository.
    const [, repository = LOCAL_REPOSITORY, rest = path] = /^\/repos\/([^/]+\/[^/]+)(\/.*)$/.exec(path) ?? []
    const call = `${method} ${rest}`
    let m: RegExpExecArray | null
    if ((m = /^GET \/collaborators\/([^/]+)\/permission$/.exec(call)))
      return [200, { permission: 'write', role_name: 'write', user: { login: m[1] } }]
    if (call === `GET /pulls/${LOCAL_PULL_REQUEST.number}`) return [200, this.pull(repository)]
    // Review comments: none (a comment on a pull request's conversation is an issue comment).
    if (/^GET \/pulls\/\d+\/comments$/.test(call)) return [200, []]
    if ((m = /^GET \/issues\/(\d+)\/comments$/.exec(call)))
      return [200, this.commentsOn(Number(m[1])).map(c => this.shown(c, repository))]
    if ((m = /^POST \/issues\/(\d+)\/comments$/.exec(call)))
      return [201, this.shown(this.write(Number(m[1]), String(body.body ?? ''), BOT), repository)]
    if ((m = /^PATCH \/issues\/comments\/(\d+)$/.exec(call))) {
      const comment = this.comments.find(c => c.id === Number(m?.[1]))
      if (!comment) return [404, NOT_FOUND]
      comment.body = String(body.body ?? '')
      return [200, this.shown(comment, repository)]
    }
    if (/^POST \/(?:issues|pulls)\/(?:comments\/)?\d+\/reactions$/.test(call)) {
      this.reactions.push(String(body.content))
      return [201, { id: this.nextId++, content: body.content, user: BOT }]
    }
    if (call === 'POST /check-runs') {
      const check = { ...(body as Omit<LocalCheckRun, 'id'>), id: this.nextId++ }
      this.checkRuns.push(check)
      return [201, check]
    }
    if ((m = /^PATCH \/check-runs\/(\d+)$/.exec(call))) {
      const check = this.checkRuns.find(c => c.id === Number(m?.[1]))
      if (!check) return [404, NOT_FOUND]
      Object.assign(check, body)
      return [200, check]
    }
    // A job's token may not read its user: the action does without.
    if (call === 'GET /user') return [403, { message: 'Resource not accessible by integration' }]
    this.unknownCalls.push(`${method} ${path}`)
    return [404, NOT_FOUND]
  }

  private pull(repository: string): Record<string, unknown> {
    const { number, title, head, base, sha } = LOCAL_PULL_REQUEST
    const repo = { full_name: repository, fork: false }
    return {
      number,
      title,
      html_url: `https://github.com/${repository}/pull/${number}`,
      head: { ref: head, sha, repo },
      base: { ref: base, repo }
    }
  }

  private shown(comment: LocalComment, repository: string): Record<string, unknown> {
    const { id, body, user, created_at, issueNumber } = comment
    return {
      id,
      body,
      user,
      created_at,
      html_url: `https://github.com/${repository}/issues/${issueNumber}#issuecomment-${id}`
    }
  }
}
