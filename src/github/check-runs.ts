import { randomBytes } from 'node:crypto'
import {
  CHECK_SUMMARY_MAX_BYTES,
  CHECK_TITLE_MAX_BYTES,
  cutUtf8,
  type CheckAnnotation,
  type CheckRunText
} from '../github-shapes.js'
import type { CheckRunWrite, GitHubApi } from './api.js'
import { createdOnce, type Octokit, type OctokitConfig, type RepoParams } from './octokit.js'
import { answerLost, isRateLimit, NotSentError } from './request-policy.js'

/** Pages of a commit's check runs read at most when one is looked for: 1,000 check runs. */
const MAX_CHECK_RUN_PAGES = 10

/**
 * The check run's writes (octokit-api.ts hands them here): a create sent once, updates and
 * annotations, each failure a warning, and none sent once GitHub refused the token's permission.
 */
export class CheckRunWrites implements Pick<
  GitHubApi,
  'createCheckRun' | 'updateCheckRun' | 'annotateCheckRun' | 'findLostCheckRun'
> {
  /** Set once GitHub refused a check run for the token's permissions: no more are sent. */
  private checksRefused = false
  private checkWriteErrors = 0
  /** The creates whose answer was lost and that no look found: the external_id of each, by name and commit. */
  private readonly lostCreates = new Map<string, string>()

  constructor(
    private readonly octokit: Octokit,
    private readonly repoParams: RepoParams,
    private readonly config: OctokitConfig
  ) {}

  async createCheckRun(name: string, headSha: string, check: CheckRunWrite): Promise<number | undefined> {
    if (this.checksRefused) return undefined
    // Ours alone, whoever else writes check runs of that name on that commit (a re-run, another step).
    const externalId = `codegen-${randomBytes(16).toString('hex')}`
    const send = async (): Promise<number> =>
      (
        await this.octokit.rest.checks.create({
          ...this.repoParams,
          name,
          head_sha: headSha,
          ...checkFields({ ...check, externalId })
        })
      ).data.id
    try {
      return await createdOnce(send, () => this.findCheckRun(name, headSha, externalId), this.config)
    } catch (error) {
      if (answerLost(error)) this.lostCreates.set(`${name}\n${headSha}`, externalId)
      this.checkWriteError('create', name, error)
      return undefined
    }
  }

  async findLostCheckRun(name: string, headSha: string): Promise<number | undefined> {
    const key = `${name}\n${headSha}`
    const externalId = this.lostCreates.get(key)
    if (externalId === undefined) return undefined
    const found = await this.findCheckRun(name, headSha, externalId).catch(() => undefined)
    if (found !== undefined) this.lostCreates.delete(key)
    return found
  }

  /** The id of the check run `name` on `headSha` whose external_id is `externalId`, if there is one. */
  private async findCheckRun(name: string, headSha: string, externalId: string): Promise<number | undefined> {
    const pages = this.octokit.paginate.iterator(this.octokit.rest.checks.listForRef, {
      ...this.repoParams,
      ref: headSha,
      check_name: name,
      filter: 'all',
      per_page: 100
    })
    let read = 0
    for await (const { data } of pages) {
      const found = data.find(run => run.external_id === externalId)
      if (found) return found.id
      if (++read >= MAX_CHECK_RUN_PAGES) throw new Error('too many check runs to look through')
    }
    return undefined
  }

  async updateCheckRun(id: number, check: CheckRunWrite): Promise<boolean> {
    if (this.checksRefused) return false
    try {
      await this.octokit.rest.checks.update({ ...this.repoParams, check_run_id: id, ...checkFields(check) })
      return true
    } catch (error) {
      this.checkWriteError('update', `${id}`, error)
      return false
    }
  }

  async annotateCheckRun(
    id: number,
    text: Pick<CheckRunText, 'title' | 'summary'>,
    annotations: CheckAnnotation[]
  ): Promise<boolean> {
    if (this.checksRefused) return false
    try {
      await this.octokit.rest.checks.update({
        ...this.repoParams,
        check_run_id: id,
        output: {
          title: cutUtf8(text.title, CHECK_TITLE_MAX_BYTES),
          summary: cutUtf8(text.summary, CHECK_SUMMARY_MAX_BYTES),
          annotations
        }
      })
      return true
    } catch (error) {
      this.checkWriteError('annotate', `${id}`, error)
      return false
    }
  }

  /** One warning for a missing permission (and no more writes), a few for other failures. */
  private checkWriteError(verb: 'create' | 'update' | 'annotate', which: string, error: unknown): void {
    // Not created because the step stopped first: nothing failed.
    if (error instanceof NotSentError) return
    const { status, message } = error as { status?: number; message?: string }
    const text = message ?? String(error)
    // A rate limit left after its retries is no missing permission.
    if (status === 403 && !isRateLimit(error)) {
      this.checksRefused = true
      this.config.warn(
        `Could not ${verb} the check run ${which}: GitHub answered 403 (${text}). The token needs the \`checks: write\` permission: add the line \`checks: write\` under the job's \`permissions:\` (or set \`check-run: false\`). The run goes on without a check.`
      )
    } else if (this.checkWriteErrors++ < 3) {
      this.config.warn(`Could not ${verb} the check run ${which}: ${text}`)
    }
  }
}

/** A check run's fields as the Checks API names them, within GitHub's bytes (the rendering keeps to them). */
function checkFields(check: CheckRunWrite): {
  status: CheckRunWrite['status']
  conclusion?: NonNullable<CheckRunWrite['conclusion']>
  details_url?: string
  external_id?: string
  output: { title: string; summary: string }
} {
  return {
    status: check.status,
    ...(check.conclusion ? { conclusion: check.conclusion } : {}),
    ...(check.detailsUrl ? { details_url: check.detailsUrl } : {}),
    ...(check.externalId ? { external_id: check.externalId } : {}),
    output: {
      title: cutUtf8(check.title, CHECK_TITLE_MAX_BYTES),
      summary: cutUtf8(check.summary, CHECK_SUMMARY_MAX_BYTES)
    }
  }
}
