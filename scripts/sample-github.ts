import { findingsDiff } from '../emulator/index.js'
import type { ServerClock } from '../emulator/loopback-server.js'
import {
  FakeGitHub,
  type FakeComment,
  type FakeJob,
  type RecordedGitHubRequest
} from './github-fake/index.js'
import { readerText } from './render-markdown.js'

/**
 * GitHub as the tools simulate it (`npm start`, `npm run screenshots`): the fake GitHub the tests
 * use (github-fake/), holding a sample repository with one pull request (its files the diff the
 * emulator's `findings` scenario reviews), and the comment someone asks on it, its opening, or the CI
 * run that completed on its branch (its jobs and logs served, the logs from the fake's log storage on
 * another host), with the event GitHub sends for it. What the step wrote is told as a reader sees
 * it, with every call the fake answered 404 (a route it does not have: the action asked for
 * something new).
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

/** The attachments of the images scenario (ids as GitHub gives them), each the PNG below. */
const SAMPLE_SCREENSHOTS = [
  '5c1e2f0a-8d7b-4e6a-9f3c-2b1a0e9d8c7b',
  '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d',
  'e0d1c2b3-a4f5-4e6d-9c8b-7a6f5e4d3c2b'
]
/** A PNG of one pixel. */
const SAMPLE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64'
)

/** The sample's workflow run of "CI" on the pull request's head, as GitHub numbers it. */
export const SAMPLE_WORKFLOW_RUN = { id: 289782451, name: 'CI', runNumber: 163 }

/** The end of the sample's failed job's log, as the runner writes it (timestamps, colours). */
const FAILED_TEST_LOG = [
  '2026-03-02T08:58:59.1234567Z ##[group]Run npm test',
  '2026-03-02T08:58:59.1234567Z npm test',
  '2026-03-02T08:58:59.1234567Z shell: /usr/bin/bash -e {0}',
  '2026-03-02T08:58:59.1234567Z ##[endgroup]',
  '2026-03-02T08:59:00.1234567Z \u001b[1m\u001b[31mFAIL\u001b[39m\u001b[22m src/parser.test.ts',
  '2026-03-02T08:59:00.1234567Z   ● parse › keeps the last field of a line',
  '2026-03-02T08:59:00.1234567Z     Expected: ["a", "b"]',
  '2026-03-02T08:59:00.1234567Z     Received: ["a"]',
  '2026-03-02T08:59:01.1234567Z Tests: 1 failed, 41 passed, 42 total',
  '2026-03-02T08:59:01.1234567Z ##[error]Process completed with exit code 1.',
  ''
].join('\n')

/**
 * The jobs of the sample's CI run that ended `conclusion`: lint passed; test (ubuntu-latest), its
 * third step "Run npm test", ended so when the run failed or timed out (else passed), with its log.
 */
export function sampleCiJobs(conclusion: string): FakeJob[] {
  const failed = conclusion === 'failure' || conclusion === 'timed_out'
  return [
    {
      name: 'lint',
      conclusion: 'success',
      steps: [{ name: 'Run npm run lint', conclusion: 'success' }],
      log: '2026-03-02T08:58:40.1234567Z All files pass linting.\n'
    },
    {
      name: 'test (ubuntu-latest)',
      conclusion: failed ? (conclusion as 'failure' | 'timed_out') : 'success',
      steps: [
        { name: 'Set up job', conclusion: 'success' },
        { name: 'Run npm ci', conclusion: 'success' },
        { name: 'Run npm test', conclusion: failed ? conclusion : 'success' }
      ],
      log: FAILED_TEST_LOG
    }
  ]
}

/** Ids GitHub would give the sample repository, and a fork of it. */
const REPOSITORY_ID = 1296269
const FORK_ID = 1296270

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
    // Its attachments' signed addresses on its own origin, served by it, as a GitHub Enterprise Server's.
    super({
      owner,
      repo,
      token: SAMPLE_TOKEN,
      imageOrigin: 'self',
      ...(options.clock ? { clock: options.clock } : {})
    })
    this.fullName = repository
    const { number, title, head, base, sha } = SAMPLE_PULL_REQUEST
    this.addPullRequest({
      number,
      title,
      body: 'Fixes the last field of a line.',
      head,
      base,
      headSha: sha,
      // What the findings scenario's agent reviewed: some of its findings on these lines, some not.
      files: findingsDiff()
    })
  }

  /** The `pull_request` event GitHub sends when the pull request is `action` (opened by default). */
  pullRequestEvent(action = 'opened'): SampleEvent {
    const { number, title, head, base, sha } = SAMPLE_PULL_REQUEST
    const [owner, name] = this.fullName.split('/')
    const repository = { id: REPOSITORY_ID, name, full_name: this.fullName, owner: { login: owner } }
    const sender = { login: 'octocat', type: 'User' }
    return {
      name: 'pull_request',
      payload: {
        action,
        number,
        pull_request: {
          number,
          title,
          body: 'Fixes the last field of a line.',
          html_url: `https://github.com/${this.fullName}/pull/${number}`,
          draft: false,
          user: sender,
          head: { ref: head, sha, repo: repository },
          base: { ref: base, sha: 'e'.repeat(40), repo: repository }
        },
        repository,
        sender
      }
    }
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

  /**
   * `npm start -- --scenario images`: issue #9 written with a screenshot, and a comment `body` on it
   * with two more; the attachments served at the sample's own origin, signed.
   */
  askWithScreenshots(body: string): SampleEvent {
    for (const id of SAMPLE_SCREENSHOTS) this.texts.addImage(id, SAMPLE_PNG)
    const [first, second, third] = SAMPLE_SCREENSHOTS.map(
      id => `https://github.com/user-attachments/assets/${id}`
    )
    const issueBody = `The Save button overlaps the footer on small screens:\n\n![overlap](${first})`
    this.texts.setIssue({
      number: SAMPLE_ISSUE,
      title: 'The Save button overlaps the footer',
      body: issueBody,
      user: { login: 'bob', type: 'User' }
    })
    const event = this.ask(
      `${body}\n\nAt 320 px: ![narrow](${second})\nAnd the design: <img src="${third}" width="300">`,
      false
    )
    const issue = event.payload.issue as Record<string, unknown>
    Object.assign(issue, { title: 'The Save button overlaps the footer', body: issueBody })
    return event
  }

  /**
   * The workflow "CI" completed on the pull request's branch with `conclusion` (failure by default),
   * its jobs (lint passed, test failed at "Run npm test") and logs served; the `workflow_run` event
   * GitHub sends for it. `fork`: CI ran on a fork's branch of the same name (GitHub then lists no
   * pull request).
   */
  ciRun(options: { conclusion?: string; fork?: boolean } = {}): SampleEvent {
    const conclusion = options.conclusion || 'failure'
    const { number, head, base, sha } = SAMPLE_PULL_REQUEST
    const { id, name: workflow, runNumber } = SAMPLE_WORKFLOW_RUN
    this.addWorkflowRun({
      id,
      name: workflow,
      headBranch: head,
      headSha: sha,
      jobs: sampleCiJobs(conclusion)
    })
    const [owner, name] = this.fullName.split('/')
    const api = `https://api.github.com/repos/${this.fullName}`
    const repository = { id: REPOSITORY_ID, name, full_name: this.fullName, owner: { login: owner } }
    const forkName = `someone-else/${name}`
    const headRepository = options.fork
      ? { id: FORK_ID, name, full_name: forkName, owner: { login: 'someone-else' } }
      : repository
    const repo = { id: REPOSITORY_ID, name, url: api }
    const sender = { login: 'octocat', type: 'User' }
    return {
      name: 'workflow_run',
      payload: {
        action: 'completed',
        workflow_run: {
          id,
          name: workflow,
          run_number: runNumber,
          run_attempt: 1,
          event: 'pull_request',
          status: 'completed',
          conclusion,
          head_branch: head,
          head_sha: sha,
          html_url: `https://github.com/${this.fullName}/actions/runs/${id}`,
          // GitHub lists the pull requests of the repository's own branches only.
          pull_requests: options.fork
            ? []
            : [
                {
                  id: 1,
                  number,
                  url: `${api}/pulls/${number}`,
                  head: { ref: head, sha, repo },
                  base: { ref: base, sha: 'e'.repeat(40), repo }
                }
              ],
          repository,
          head_repository: headRepository,
          actor: sender,
          triggering_actor: sender
        },
        workflow: { id: 161335, name: workflow, path: '.github/workflows/ci.yml' },
        // The pull request's base is the default branch; a fix is never pushed there.
        repository: { ...repository, default_branch: base },
        sender
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
      const annotations = check.annotations.map(
        one =>
          `\n    ${one.annotation_level} ${one.path}:${one.start_line}${one.end_line > one.start_line ? `-${one.end_line}` : ''}: ${one.title ?? one.message}`
      )
      parts.push(
        `Check run "${check.name}" on ${check.head_sha.slice(0, 7)}: ${state}: ${check.output.title ?? ''}` +
          (annotations.length ? `\nIts annotations:${annotations.join('')}` : '')
      )
    }
    const reviews = this.reviews(SAMPLE_PULL_REQUEST.number)
    for (const review of reviews) {
      const inline = this.reviewComments(SAMPLE_PULL_REQUEST.number)
        .filter(comment => review.comments.includes(comment.id))
        .map(
          comment =>
            `\n    on ${comment.path}:${comment.start_line ? `${comment.start_line}-` : ''}${comment.line ?? ''}: ${readerText(comment.body).replace(/\s+/g, ' ').trim()}`
        )
      parts.push(
        `Review of #${review.pullNumber} on ${review.commit_id.slice(0, 7)} (${review.state}), as GitHub shows it:\n` +
          indent(readerText(review.body)) +
          (inline.length ? `\nIts comments on the lines of the diff:${inline.join('')}` : '')
      )
    }
    if (!comments.length && !this.checkRuns().length && !reviews.length)
      parts.push('Nothing was written to GitHub.')
    // Told from the records: what npm start prints comes after the fake stopped.
    const downloads = this.logDownloads
    if (downloads.length) {
      const hosts = [...new Set(downloads.map(download => download.host))].join(', ')
      const withToken = downloads.filter(download => download.authorization !== undefined).length
      parts.push(
        `Job logs read from the log storage (${hosts}, not GitHub's host): ${downloads.length}, ` +
          `${withToken || 'none'} with an Authorization header`
      )
    }
    const unanswered = this.unanswered().map(request => `${request.method} ${request.path}`)
    if (unanswered.length) parts.push(`The simulated GitHub had no answer for: ${unanswered.join(', ')}`)
    return parts.join('\n\n')
  }
}
