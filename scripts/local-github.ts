import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { close, listen } from '../emulator/loopback-server.js'

/**
 * The few of GitHub's REST routes a step on a comment or with a check run calls, for `npm start`
 * alone: the local user may write, pull request #7 has a head commit, and the comments, reactions
 * and check runs the action writes are kept to be shown at the end. The tests' fake GitHub
 * (test/github-fake) is the faithful one (errors, paging, rate limits, GitHub's published shapes);
 * it lives under test/, which scripts/ never import, so this stand-in is kept as small as it can be.
 */

export const LOCAL_REPOSITORY = 'octo-org/octo-repo'
export const LOCAL_TOKEN = 'local-github-token'
/** The pull request a simulated comment on a pull request is written on, and its head commit. */
export const LOCAL_PULL_REQUEST = { number: 7, head: 'feature/parser', sha: 'f'.repeat(40) }

export interface LocalComment {
  id: number
  issueNumber: number
  body: string
}

export interface LocalCheckRun {
  id: number
  name: string
  head_sha: string
  status: string
  conclusion?: string
  output?: { title?: string; summary?: string }
}

interface Answer {
  status: number
  body: unknown
}

export class LocalGitHub {
  readonly comments: LocalComment[] = []
  readonly checkRuns: LocalCheckRun[] = []
  readonly reactions: string[] = []
  private nextId = 9001
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
        answer = { status: 401, body: { message: 'Bad credentials' } }
      else {
        let body: Record<string, unknown> = {}
        try {
          body = text ? (JSON.parse(text) as Record<string, unknown>) : {}
        } catch {
          // A body that is not JSON is left empty: the routes below answer it as GitHub would, 4xx.
        }
        answer = this.route(request.method ?? 'GET', (request.url ?? '/').split('?')[0] ?? '/', body)
      }
      response.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' })
      response.end(JSON.stringify(answer.body))
    })
  }

  private route(method: string, path: string, body: Record<string, unknown>): Answer {
    // Any owner/name: a run against the real service names the user's own repository.
    const repo = '/repos/[^/]+/[^/]+'
    const ok = (value: unknown, status = 200): Answer => ({ status, body: value })
    let match: RegExpExecArray | null
    if (method === 'GET' && (match = new RegExp(`^${repo}/collaborators/([^/]+)/permission$`).exec(path)))
      return ok({ permission: 'write', role_name: 'write', user: { login: match[1] } })
    if (
      method === 'GET' &&
      (match = new RegExp(`^/repos/([^/]+/[^/]+)/pulls/${LOCAL_PULL_REQUEST.number}$`).exec(path))
    )
      return ok({
        number: LOCAL_PULL_REQUEST.number,
        head: { ref: LOCAL_PULL_REQUEST.head, sha: LOCAL_PULL_REQUEST.sha, repo: { full_name: match[1] } },
        base: { ref: 'main', repo: { full_name: match[1] } }
      })
    if ((match = new RegExp(`^${repo}/issues/(\\d+)/comments$`).exec(path))) {
      const issueNumber = Number(match[1])
      if (method === 'GET')
        return ok(this.comments.filter(c => c.issueNumber === issueNumber).map(c => this.shown(c)))
      if (method === 'POST') {
        const comment = { id: this.nextId++, issueNumber, body: String(body.body ?? '') }
        this.comments.push(comment)
        return ok(this.shown(comment), 201)
      }
    }
    if (method === 'PATCH' && (match = new RegExp(`^${repo}/issues/comments/(\\d+)$`).exec(path))) {
      const comment = this.comments.find(c => c.id === Number(match![1]))
      if (!comment) return { status: 404, body: { message: 'Not Found' } }
      comment.body = String(body.body ?? '')
      return ok(this.shown(comment))
    }
    // Review comments: none (a comment on a pull request's conversation is an issue comment).
    if (method === 'GET' && new RegExp(`^${repo}/pulls/\\d+/comments$`).test(path)) return ok([])
    if (method === 'POST' && /\/reactions$/.test(path)) {
      this.reactions.push(String(body.content))
      return ok({ id: this.nextId++, content: body.content }, 201)
    }
    if (method === 'POST' && new RegExp(`^${repo}/check-runs$`).test(path)) {
      const check = { ...(body as Omit<LocalCheckRun, 'id'>), id: this.nextId++ }
      this.checkRuns.push(check)
      return ok(check, 201)
    }
    if (method === 'PATCH' && (match = new RegExp(`^${repo}/check-runs/(\\d+)$`).exec(path))) {
      const check = this.checkRuns.find(c => c.id === Number(match![1]))
      if (!check) return { status: 404, body: { message: 'Not Found' } }
      Object.assign(check, body)
      return ok(check)
    }
    // A job's token may not read its user: the action does without.
    if (path === '/user') return { status: 403, body: { message: 'Resource not accessible by integration' } }
    return { status: 404, body: { message: 'Not Found' } }
  }

  private shown(comment: LocalComment): Record<string, unknown> {
    return {
      id: comment.id,
      body: comment.body,
      user: { login: 'github-actions[bot]', type: 'Bot' },
      created_at: new Date().toISOString(),
      html_url: `https://github.com/${LOCAL_REPOSITORY}/issues/${comment.issueNumber}#issuecomment-${comment.id}`
    }
  }
}

/** The event of a comment `body` by the local user on issue #9, or on pull request #7, of `repository`. */
export function commentEvent(
  body: string,
  onPullRequest: boolean,
  repository = LOCAL_REPOSITORY
): { name: string; payload: unknown } {
  const number = onPullRequest ? LOCAL_PULL_REQUEST.number : 9
  const user = { login: 'octocat', type: 'User' }
  const url = `https://github.com/${repository}/${onPullRequest ? 'pull' : 'issues'}/${number}`
  const [owner, name] = repository.split('/')
  return {
    name: 'issue_comment',
    payload: {
      action: 'created',
      issue: {
        number,
        title: onPullRequest ? 'Parse quoted fields' : 'The parser drops the last field',
        body: onPullRequest ? 'Fixes the last field of a line.' : 'Steps: parse `a,"b"`.',
        html_url: url,
        user,
        ...(onPullRequest
          ? { pull_request: { url: `https://api.github.com/repos/${repository}/pulls/${number}` } }
          : {})
      },
      comment: { id: 5001, body, user, author_association: 'OWNER', html_url: `${url}#issuecomment-5001` },
      repository: { full_name: repository, name, owner: { login: owner } },
      sender: user
    }
  }
}
