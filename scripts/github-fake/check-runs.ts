import { requestBodyProblems } from '../github-openapi.js'
import {
  gitHubError,
  isObject,
  json,
  nodeId,
  notFound,
  positiveInteger,
  timestamp,
  userAddresses,
  type Answer
} from './answers.js'
import type { CheckConclusion, FakeAnnotation, FakeCheckRun, InvalidCheckRunRequest } from './types.js'

/**
 * The Checks API's check runs, as a workflow's GITHUB_TOKEN meets them: created and updated by the
 * token's app (GitHub Actions), each request body held to GitHub's published REST description
 * (@octokit/openapi) before GitHub's own rules (a known commit, a conclusion for a completed run).
 */

/** The templates of the operations in GitHub's REST description. */
export const CHECK_RUNS = '/repos/{owner}/{repo}/check-runs'
export const CHECK_RUN = '/repos/{owner}/{repo}/check-runs/{check_run_id}'
export const CHECK_RUNS_FOR_REF = '/repos/{owner}/{repo}/commits/{ref}/check-runs'

/** One check-run request, as the fake's router hands it over. */
export interface CheckRunCall {
  method: 'GET' | 'POST' | 'PATCH'
  path: string
  /** The check_run_id path parameter, for GET and PATCH. */
  id?: string
  body: unknown
  /** The API's base URL as the client reached it. */
  api: string
  /** Where GitHub's web pages are. */
  web: string
  repository: string
  documentationUrl: string
  now: number
}

interface StoredCheckRun {
  id: number
  name: string
  headSha: string
  status: FakeCheckRun['status']
  conclusion: CheckConclusion | null
  detailsUrl: string | null
  externalId: string | null
  startedAt: number
  completedAt: number | null
  output: FakeCheckRun['output']
  annotations: FakeAnnotation[]
  writes: number
}

/** A pull request as a check run lists it (GitHub's pull-request-minimal). */
export type MinimalPullRequest = Record<string, unknown>

export interface CheckRunWorld {
  /** The token's `checks` permission, as it is now. */
  permission: () => 'write' | 'read' | 'none'
  /** Whether the repository has this commit. */
  hasCommit: (sha: string) => boolean
  /** The repository's own pull requests whose head is this commit. */
  pullRequestsAt: (sha: string, api: string) => MinimalPullRequest[]
}

const FIRST_CHECK_RUN_ID = 40_000_000_001
/** GitHub's answer to a longer summary or text: "summary exceeds a maximum bytesize of 65535" (github/docs#35252). */
const OUTPUT_LIMIT_BYTES = 65_535
/** An annotation's message and raw_details: "The maximum size is 64 KB"; its title: "255 characters". */
const ANNOTATION_TEXT_LIMIT_BYTES = 65_535
const ANNOTATION_TITLE_LIMIT_CHARS = 255
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i

/** GitHub Actions, the app a GITHUB_TOKEN's check runs belong to. */
function actionsApp(): Record<string, unknown> {
  const owner = 'https://api.github.com/users/github'
  return {
    id: 15368,
    slug: 'github-actions',
    node_id: 'MDM6QXBwMTUzNjg=',
    owner: {
      login: 'github',
      id: 9919,
      node_id: 'MDEyOk9yZ2FuaXphdGlvbjk5MTk=',
      avatar_url: 'https://avatars.githubusercontent.com/u/9919?v=4',
      gravatar_id: '',
      url: owner,
      html_url: 'https://github.com/github',
      ...userAddresses(owner),
      type: 'Organization',
      site_admin: false
    },
    name: 'GitHub Actions',
    description: 'Automate your workflow from idea to production',
    external_url: 'https://help.github.com/en/actions',
    html_url: 'https://github.com/apps/github-actions',
    created_at: '2018-07-30T09:30:17Z',
    updated_at: '2019-12-10T19:04:12Z',
    permissions: { checks: 'write', contents: 'write', issues: 'write', metadata: 'read' },
    events: ['check_run', 'check_suite', 'pull_request', 'push']
  }
}

/** GitHub's rules for one annotation past the schema: its lines in order, its texts within their sizes. */
function annotationProblem(annotation: FakeAnnotation): string | undefined {
  if (annotation.end_line < annotation.start_line)
    return 'end_line must be greater than or equal to start_line'
  if (annotation.start_line < 1) return 'start_line must be greater than 0'
  if (
    (annotation.start_column !== undefined || annotation.end_column !== undefined) &&
    annotation.start_line !== annotation.end_line
  )
    return 'start_column and end_column may only be given for annotations on one line'
  for (const field of ['message', 'raw_details'] as const) {
    const text = annotation[field]
    if (typeof text === 'string' && Buffer.byteLength(text) > ANNOTATION_TEXT_LIMIT_BYTES)
      return `${field} exceeds a maximum bytesize of ${ANNOTATION_TEXT_LIMIT_BYTES}`
  }
  if (typeof annotation.title === 'string' && [...annotation.title].length > ANNOTATION_TITLE_LIMIT_CHARS)
    return `title is too long (maximum is ${ANNOTATION_TITLE_LIMIT_CHARS} characters)`
  return undefined
}

export class CheckRuns {
  /** Every check-run request whose body GitHub's REST description refused, in order. */
  readonly invalid: InvalidCheckRunRequest[] = []
  private readonly runs = new Map<number, StoredCheckRun>()
  private nextId = FIRST_CHECK_RUN_ID

  constructor(private readonly world: CheckRunWorld) {}

  /** The check runs, in creation order. */
  list(): FakeCheckRun[] {
    return [...this.runs.values()].map(run => ({
      id: run.id,
      name: run.name,
      head_sha: run.headSha,
      status: run.status,
      conclusion: run.conclusion,
      details_url: run.detailsUrl,
      external_id: run.externalId,
      started_at: timestamp(run.startedAt),
      completed_at: run.completedAt === null ? null : timestamp(run.completedAt),
      output: { ...run.output },
      annotations: run.annotations.map(annotation => ({ ...annotation })),
      writes: run.writes
    }))
  }

  handle(call: CheckRunCall): Answer {
    const write = call.method !== 'GET'
    const permission = this.world.permission()
    if (permission === 'none' || (write && permission !== 'write')) {
      // GitHub names the permission the endpoint wanted in a header of its 403.
      return {
        ...json(
          {
            message: 'Resource not accessible by integration',
            documentation_url: call.documentationUrl,
            status: '403'
          },
          403
        ),
        headers: { 'x-accepted-github-permissions': `checks=${write ? 'write' : 'read'}` }
      }
    }
    if (call.method === 'GET') {
      const run = this.find(call.id)
      return run ? json(this.wire(run, call)) : notFound(call.documentationUrl)
    }
    const problems = requestBodyProblems(
      call.method,
      call.method === 'POST' ? CHECK_RUNS : CHECK_RUN,
      call.body
    )
    if (problems.length > 0) {
      this.invalid.push({ method: call.method, path: call.path, body: call.body, problems })
      return gitHubError(422, `Invalid request.\n\n${problems.join('\n')}`, call.documentationUrl)
    }
    return call.method === 'POST' ? this.create(call) : this.update(call)
  }

  /**
   * The check runs of a commit (`ref` a sha: the action asks no other), newest first, those named
   * `check_name` when given; `filter` latest (the default) keeps the newest of each name.
   * `page` makes the answer's page of them (routes.ts's pageOf).
   */
  listForRef(
    call: Omit<CheckRunCall, 'method' | 'id' | 'body'> & { ref: string; query: Record<string, string> },
    page: (runs: StoredCheckRun[], wire: (run: StoredCheckRun) => unknown) => Answer
  ): Answer {
    const permission = this.world.permission()
    if (permission === 'none')
      return gitHubError(403, 'Resource not accessible by integration', call.documentationUrl)
    const { check_name: name, filter = 'latest' } = call.query
    const runs = [...this.runs.values()]
      .filter(run => run.headSha === call.ref.toLowerCase() && (name === undefined || run.name === name))
      .reverse()
    const kept =
      filter === 'all'
        ? runs
        : runs.filter((run, at) => runs.findIndex(other => other.name === run.name) === at)
    return page(kept, run => this.wire(run, { ...call, method: 'GET', body: undefined }))
  }

  private find(id: string | undefined): StoredCheckRun | undefined {
    const number = positiveInteger(id)
    return number === undefined ? undefined : this.runs.get(number)
  }

  private create(call: CheckRunCall): Answer {
    const body = call.body as Record<string, unknown>
    const sha = body.head_sha as string
    if (!/^[0-9a-f]{40}$/i.test(sha) || !this.world.hasCommit(sha.toLowerCase())) {
      return gitHubError(422, `No commit found for SHA: ${sha}`, call.documentationUrl)
    }
    const run: StoredCheckRun = {
      id: this.nextId++,
      name: '',
      headSha: sha.toLowerCase(),
      status: 'queued',
      conclusion: null,
      detailsUrl: null,
      externalId: '',
      startedAt: call.now,
      completedAt: null,
      output: { title: null, summary: null, text: null },
      annotations: [],
      writes: 0
    }
    const refused = this.apply(run, body, call)
    if (refused) return refused
    this.runs.set(run.id, run)
    return json(this.wire(run, call), 201)
  }

  private update(call: CheckRunCall): Answer {
    const run = this.find(call.id)
    if (!run) return notFound(call.documentationUrl)
    const copy = { ...run, output: { ...run.output }, annotations: [...run.annotations] }
    const refused = this.apply(copy, call.body as Record<string, unknown>, call)
    if (refused) return refused
    this.runs.set(run.id, copy)
    return json(this.wire(copy, call))
  }

  /** GitHub's rules past the schema, then the fields written into `run`; an answer when refused. */
  private apply(run: StoredCheckRun, body: Record<string, unknown>, call: CheckRunCall): Answer | undefined {
    const invalid = (detail: string): Answer =>
      gitHubError(422, `Invalid request.\n\n${detail}`, call.documentationUrl)
    const conclusion = body.conclusion as CheckConclusion | undefined
    if (conclusion === 'stale') return invalid('Only GitHub can set the conclusion stale.')
    if ((body.status === 'completed' || body.completed_at !== undefined) && conclusion === undefined)
      return invalid('"conclusion" wasn\'t supplied.')
    // GitHub counts the output's texts in bytes of UTF-8, whatever its documentation says of characters.
    const output = isObject(body.output) ? body.output : {}
    for (const field of ['summary', 'text'])
      if (typeof output[field] === 'string' && Buffer.byteLength(output[field]) > OUTPUT_LIMIT_BYTES)
        return gitHubError(422, 'Validation Failed', call.documentationUrl, [
          {
            resource: 'CheckRun',
            code: 'custom',
            field,
            message: `${field} exceeds a maximum bytesize of ${OUTPUT_LIMIT_BYTES}`
          }
        ])
    const annotations = Array.isArray(output.annotations) ? (output.annotations as FakeAnnotation[]) : []
    const badAnnotation = annotations.map(annotationProblem).find(problem => problem !== undefined)
    if (badAnnotation)
      return gitHubError(422, 'Validation Failed', call.documentationUrl, [
        { resource: 'CheckRun', code: 'custom', field: 'annotations', message: badAnnotation }
      ])
    for (const field of ['started_at', 'completed_at'])
      if (body[field] !== undefined && !DATE_TIME.test(body[field] as string))
        return invalid(`For 'properties/${field}', ${JSON.stringify(body[field])} is not a date-time.`)
    if (typeof body.name === 'string') run.name = body.name
    if (typeof body.details_url === 'string') run.detailsUrl = body.details_url
    if (typeof body.external_id === 'string') run.externalId = body.external_id
    if (typeof body.started_at === 'string') run.startedAt = Date.parse(body.started_at)
    if (typeof body.status === 'string') run.status = body.status as FakeCheckRun['status']
    if (conclusion !== undefined) {
      // A conclusion completes the run, whatever `status` said.
      run.conclusion = conclusion
      run.status = 'completed'
      run.completedAt = typeof body.completed_at === 'string' ? Date.parse(body.completed_at) : call.now
    } else if (run.status !== 'completed') {
      run.conclusion = null
      run.completedAt = null
    }
    if (isObject(body.output)) {
      const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
      run.output = {
        title: text(body.output.title),
        summary: text(body.output.summary),
        text: text(body.output.text)
      }
      // GitHub appends every write's annotations to those the check run has.
      run.annotations.push(...annotations.map(annotation => ({ ...annotation })))
    }
    run.writes++
    return undefined
  }

  /** The check run as GitHub answers it (the check-run schema). */
  private wire(run: StoredCheckRun, call: CheckRunCall): Record<string, unknown> {
    const url = `${call.api}/repos/${call.repository}/check-runs/${run.id}`
    return {
      id: run.id,
      name: run.name,
      node_id: nodeId('CheckRun', run.id),
      head_sha: run.headSha,
      external_id: run.externalId,
      url,
      html_url: `${call.web}/${call.repository}/runs/${run.id}`,
      details_url: run.detailsUrl ?? 'https://github.com/apps/github-actions',
      status: run.status,
      conclusion: run.conclusion,
      started_at: timestamp(run.startedAt),
      completed_at: run.completedAt === null ? null : timestamp(run.completedAt),
      output: {
        ...run.output,
        annotations_count: run.annotations.length,
        annotations_url: `${url}/annotations`
      },
      // One suite per commit for the app.
      check_suite: { id: 20_000_000_000 + (parseInt(run.headSha.slice(0, 7), 16) % 1_000_000_000) },
      app: actionsApp(),
      pull_requests: this.world.pullRequestsAt(run.headSha, call.api)
    }
  }
}
