import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Server } from 'node:http'
import { close, listen } from '../emulator/loopback-server.js'

/**
 * A GitHub of one repository for the tools (`npm run screenshots`): the few REST calls the action
 * makes on a comment or a pull request, answered on loopback, with what it wrote kept for a look.
 * The tests' fake GitHub (test/github-fake, held to GitHub's REST description) is the faithful one;
 * the tools build without test/, so they have this small stand-in instead.
 */

export interface StandInComment {
  id: number
  body: string
  user: { login: string; type: 'User' | 'Bot' }
  created_at: string
}

export interface StandInCheckRun {
  id: number
  name: string
  head_sha: string
  status: string
  conclusion?: string
  details_url?: string
  output: { title: string; summary: string }
}

interface PullRequest {
  number: number
  title: string
  head: string
  base: string
}

/** What the action posts as: the GITHUB_TOKEN's bot. */
const BOT = { login: 'github-actions[bot]', type: 'Bot' as const }
const CREATED_AT = '2025-06-02T09:00:00Z'

export class GitHubStandIn {
  private readonly comments = new Map<number, StandInComment[]>()
  private readonly pulls = new Map<number, PullRequest>()
  private readonly checks: StandInCheckRun[] = []
  /** Calls it has no answer for, `METHOD path`: the action asked for something new. */
  readonly unknownCalls: string[] = []
  private nextId = 9_001
  private server: Server | undefined
  private url = ''

  constructor(private readonly repository = 'octo-org/octo-repo') {}

  async start(): Promise<string> {
    const { server, url } = await listen((request, response) => void this.receive(request, response))
    this.server = server
    this.url = url
    return url
  }

  async stop(): Promise<void> {
    if (this.server) await close(this.server)
    this.server = undefined
  }

  get baseUrl(): string {
    return this.url
  }

  addPullRequest(pr: PullRequest): void {
    this.pulls.set(pr.number, pr)
  }

  /** The head commit of a branch: the same for the same branch, as the tests' fake GitHub gives it. */
  headSha(number: number): string {
    const head = this.pulls.get(number)?.head ?? 'main'
    return createHash('sha1').update(`${this.repository}:${head}`).digest('hex')
  }

  addComment(issueNumber: number, body: string, login: string): StandInComment {
    const comment = {
      id: this.nextId++,
      body,
      user: { login, type: 'User' as const },
      created_at: CREATED_AT
    }
    this.comments.set(issueNumber, [...(this.comments.get(issueNumber) ?? []), comment])
    return comment
  }

  /** The comments on an issue or pull request, in order. */
  commentsOn(issueNumber: number): StandInComment[] {
    return this.comments.get(issueNumber) ?? []
  }

  checkRuns(): StandInCheckRun[] {
    return this.checks
  }

  private async receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>
    const path = new URL(request.url ?? '/', 'http://stand-in').pathname
    const [status, answer] = this.answer(request.method ?? 'GET', path, body)
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
    response.end(JSON.stringify(answer))
  }

  private answer(method: string, path: string, body: Record<string, unknown>): [number, unknown] {
    const repo = `/repos/${this.repository}`
    const call = `${method} ${path.startsWith(repo) ? path.slice(repo.length) : path}`
    let m: RegExpExecArray | null
    if ((m = /^GET \/collaborators\/([^/]+)\/permission$/.exec(call)))
      return [200, { permission: 'write', role_name: 'write', user: { login: m[1] } }]
    if ((m = /^GET \/pulls\/(\d+)$/.exec(call))) return this.pull(Number(m[1]))
    if ((m = /^GET \/(?:issues|pulls)\/(\d+)\/comments$/.exec(call)))
      return [200, call.includes('/pulls/') ? [] : this.commentsOn(Number(m[1]))]
    if ((m = /^POST \/issues\/(\d+)\/comments$/.exec(call))) {
      const comment = { id: this.nextId++, body: String(body.body), user: BOT, created_at: CREATED_AT }
      this.comments.set(Number(m[1]), [...this.commentsOn(Number(m[1])), comment])
      return [201, comment]
    }
    if ((m = /^PATCH \/issues\/comments\/(\d+)$/.exec(call))) {
      const comment = [...this.comments.values()].flat().find(c => c.id === Number(m?.[1]))
      if (!comment) return [404, { message: 'Not Found' }]
      comment.body = String(body.body)
      return [200, comment]
    }
    if (/^POST \/issues\/(?:comments\/)?\d+\/reactions$/.test(call))
      return [201, { id: this.nextId++, content: body.content, user: BOT }]
    // A GITHUB_TOKEN cannot ask who it is.
    if (call === 'GET /user') return [403, { message: 'Resource not accessible by integration' }]
    if (call === 'POST /check-runs') {
      const check = { id: this.nextId++, ...(body as Omit<StandInCheckRun, 'id'>) }
      this.checks.push(check)
      return [201, check]
    }
    if ((m = /^PATCH \/check-runs\/(\d+)$/.exec(call))) {
      const check = this.checks.find(c => c.id === Number(m?.[1]))
      if (!check) return [404, { message: 'Not Found' }]
      Object.assign(check, body)
      return [200, check]
    }
    this.unknownCalls.push(`${method} ${path}`)
    return [404, { message: 'Not Found' }]
  }

  private pull(number: number): [number, unknown] {
    const pr = this.pulls.get(number)
    if (!pr) return [404, { message: 'Not Found' }]
    const repo = { full_name: this.repository, fork: false }
    return [
      200,
      {
        number,
        title: pr.title,
        html_url: `https://github.com/${this.repository}/pull/${number}`,
        head: { ref: pr.head, sha: this.headSha(number), repo },
        base: { ref: pr.base, sha: this.headSha(0), repo }
      }
    ]
  }
}
