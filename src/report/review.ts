import { createHmac, timingSafeEqual } from 'node:crypto'
import { bySeverity, type Finding } from '../answer/findings.js'
import type { RunReport } from '../model.js'
import type { Settings } from '../settings/settings.js'
import { workflowRunUrl } from '../settings/workflow-context.js'
import { oneLine } from './entry-text.js'
import { inlineCommentBody, reviewBody } from './findings-text.js'
import { link } from './markdown.js'
import type { Reporter } from './reporters.js'
import type { Author, GitHubApi, NewReviewComment, ReviewSummary } from '../github/api.js'
import { inDiff, rightSideHunks, type HunkLines } from './diff.js'
import { isRateLimit, NotSentError } from '../github/request-policy.js'
import { OWN_COMMENT_MARK } from '../github-shapes.js'
import { isBot } from '../thread/trigger.js'

/**
 * `review-comments: true`: the findings of the step's run as one review of its pull request, on the
 * head commit the run was asked about (event COMMENT: a bot never approves). Findings whose lines
 * the diff shows are inline comments there (50 at most, the most severe first); the others are
 * listed in the review's body. The body's first line marks the review as ours for that commit, signed
 * with the API token: a second step on the same commit (a re-run) finds it and posts none.
 */

/** GitHub shows at most this many comments of a review at once; the rest go in its body. */
export const MAX_INLINE_COMMENTS = 50

/** Hex characters of the marker's HMAC-SHA256 (128 bits), as the tracking comment's. */
const SIGNATURE_HEX_CHARS = 32

export interface ReviewPlace {
  pullNumber: number
  /** The head commit the run was asked about (the review's commit_id). */
  sha: string
}

export interface FindingsReviewOptions {
  github: () => Promise<GitHubApi>
  place: ReviewPlace
  /** Signs the marker: the API token, and the repository it is for. */
  key: { secret: string; repository: string }
  workflowRunUrl: string
  /** Something failed (GitHub refused, could not be read): a warning. */
  warn: (message: string) => void
  /** What the step did, on the console. */
  info: (line: string) => void
}

/** The hidden first line of our review of `sha`. */
export function reviewMarker(key: FindingsReviewOptions['key'], place: ReviewPlace): string {
  return `${OWN_COMMENT_MARK} review sha=${place.sha} sig=${reviewSignature(key, place)} -->`
}

function reviewSignature(key: FindingsReviewOptions['key'], place: ReviewPlace): string {
  return createHmac('sha256', key.secret)
    .update(`${key.repository}#${place.pullNumber}#review#${place.sha}`)
    .digest('hex')
    .slice(0, SIGNATURE_HEX_CHARS)
}

/** Whether `review` is ours on this commit: its first line our marker for it, signed, by a trusted author. */
export function isOurReview(
  review: ReviewSummary,
  key: FindingsReviewOptions['key'],
  place: ReviewPlace,
  trusted: (author: Author) => boolean
): boolean {
  const first = review.body.slice(0, 300).split('\n', 1)[0]?.trim() ?? ''
  const ours = first.startsWith(`${OWN_COMMENT_MARK} review `)
  const match =
    ours && /^ review sha=([0-9a-f]{7,64}) sig=([0-9a-f]+) -->$/i.exec(first.slice(OWN_COMMENT_MARK.length))
  if (!match || match[1]?.toLowerCase() !== place.sha.toLowerCase() || !trusted(review.author)) return false
  const expected = Buffer.from(reviewSignature(key, place))
  const given = Buffer.from(match[2] ?? '')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The findings split as the review shows them: inline on the diff's lines, and the rest for the body. */
export function placeFindings(
  findings: readonly Finding[],
  hunks: ReadonlyMap<string, readonly HunkLines[]>
): { inline: Finding[]; listed: Finding[] } {
  const inline: Finding[] = []
  const listed: Finding[] = []
  for (const finding of bySeverity(findings)) {
    const fits = inDiff(hunks.get(finding.path), finding.line, finding.endLine)
    if (fits && inline.length < MAX_INLINE_COMMENTS) inline.push(finding)
    else listed.push(finding)
  }
  return { inline, listed }
}

/** A finding as a comment of the review: on its last line, a range from its first, on the new side. */
export function reviewComment(finding: Finding): NewReviewComment {
  return {
    path: finding.path,
    body: inlineCommentBody(finding),
    line: finding.endLine,
    side: 'RIGHT',
    ...(finding.endLine > finding.line ? { start_line: finding.line, start_side: 'RIGHT' as const } : {})
  }
}

export class FindingsReview implements Reporter {
  readonly remote = true

  constructor(private readonly options: FindingsReviewOptions) {}

  /** Posts the review once the run ended with findings; GitHub's failures are warnings, never the step's. */
  async finish(report: RunReport): Promise<void> {
    const answer = report.answer?.answer
    // No findings, nothing to review: no empty review on the pull request.
    if (!answer?.valid || !answer.findings?.length) return
    try {
      await this.post(report, answer.findings)
    } catch (error) {
      if (error instanceof NotSentError) return
      this.options.warn(`Could not post the review of the findings: ${reason(error)}`)
    }
  }

  private async post(report: RunReport, findings: Finding[]): Promise<void> {
    const { place, info } = this.options
    const github = await this.options.github()
    const trusted = await this.trust(github)
    let reviews: ReviewSummary[]
    try {
      reviews = await github.listReviews(place.pullNumber)
    } catch (error) {
      // Unknown whether a re-run's review is there: none is posted rather than a second one.
      this.options.warn(
        `Could not read the reviews of pull request #${place.pullNumber} (${reason(error)}): no review of the findings is posted, so that none is posted twice.`
      )
      return
    }
    const earlier = reviews.find(review => isOurReview(review, this.options.key, place, trusted))
    if (earlier) {
      info(
        `The findings were reviewed on commit ${place.sha.slice(0, 7)} by an earlier step (review ${earlier.id}): no second review.`
      )
      return
    }
    const { inline, listed } = placeFindings(findings, await this.diffLines(github, findings))
    const id = await this.create(github, report, findings, inline, listed, trusted)
    if (id !== undefined)
      info(
        `Posted review ${id} of pull request #${place.pullNumber}: ${inline.length} inline, ${listed.length} in its body.`
      )
  }

  /** Who may have written our marker: the token's own login, or a bot when a GITHUB_TOKEN cannot tell it. */
  private async trust(github: GitHubApi): Promise<(author: Author) => boolean> {
    const identity = await github.identity()
    return author => (identity ? author.login === identity : isBot(author))
  }

  /** The new side's lines of each file a finding is about, read from the diff; none when it cannot be read. */
  private async diffLines(github: GitHubApi, findings: Finding[]): Promise<Map<string, HunkLines[]>> {
    const wanted = new Set(findings.map(finding => finding.path))
    const hunks = new Map<string, HunkLines[]>()
    try {
      await github.pullRequestFiles(this.options.place.pullNumber, file => {
        if (wanted.has(file.filename)) hunks.set(file.filename, rightSideHunks(file.patch ?? ''))
        return hunks.size === wanted.size
      })
    } catch (error) {
      if (error instanceof NotSentError) throw error
      this.options.warn(
        `Could not read the files of pull request #${this.options.place.pullNumber} (${reason(error)}): the review lists every finding in its body.`
      )
      return new Map()
    }
    return hunks
  }

  /**
   * Sends the review once. Refused for its inline comments (422: a line GitHub does not count in
   * the diff, the head moved on), it is sent again with every finding in its body. Failed otherwise
   * with an unknown effect, it is looked for before it is sent again, once.
   */
  private async create(
    github: GitHubApi,
    report: RunReport,
    findings: Finding[],
    inline: Finding[],
    listed: Finding[],
    trusted: (author: Author) => boolean
  ): Promise<number | undefined> {
    const { place } = this.options
    // Ours, whatever its text: a review of this step's key on this commit, by a trusted author.
    const find = async (): Promise<number | undefined> =>
      (await github.listReviews(place.pullNumber)).find(review =>
        isOurReview(review, this.options.key, place, trusted)
      )?.id
    const send = (inlined: Finding[], rest: Finding[]): Promise<number> =>
      github.createReview(
        place.pullNumber,
        {
          commitId: place.sha,
          body: this.body(report, findings, inlined.length, rest),
          comments: inlined.map(reviewComment)
        },
        find
      )
    try {
      return await send(inline, listed)
    } catch (error) {
      const status = statusOf(error)
      if (status === 422 && inline.length > 0) {
        this.options.warn(
          `GitHub refused the review's inline comments (${reason(error)}): the review lists every finding in its body.`
        )
        return send([], bySeverity(findings))
      }
      if (status === 403 && !isRateLimit(error))
        throw new Error(
          `GitHub answered 403 (${reason(error)}). The token needs the \`pull-requests: write\` permission: add it under the job's \`permissions:\` (or set \`review-comments: false\`).`,
          { cause: error }
        )
      // Anything else stands: a lost answer was looked for already (createReview's `find`).
      throw error
    }
  }

  private body(report: RunReport, findings: Finding[], inline: number, listed: Finding[]): string {
    const { key, place, workflowRunUrl } = this.options
    const run = report.run
    const webUrl = typeof run?.web_url === 'string' && run.web_url.length <= 500 ? run.web_url : undefined
    const runText = run ? `Codegen agent run ${link(`#${run.id}`, webUrl)}` : 'Codegen agent run'
    const followed = workflowRunUrl ? `Posted by the ${link('workflow run', workflowRunUrl)} · ` : ''
    return reviewBody({
      marker: reviewMarker(key, place),
      run: runText,
      findings,
      inline,
      listed,
      footer: `<sub>${followed}commit ${place.sha.slice(0, 7)}</sub>`
    })
  }
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown }).status
  return typeof status === 'number' ? status : undefined
}

function reason(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error), 300)
}

/**
 * review-comments: the review of the findings on the step's pull request. A step about no pull
 * request (a workflow may serve both kinds of event) has nothing to review, and goes on.
 */
export function findingsReview(
  settings: Settings,
  decision: { oneRun: boolean; pullRequest?: { number: number; sha: string } },
  github: () => Promise<GitHubApi>,
  say: { warning: (message: string) => void },
  info: (line: string) => void
): FindingsReview | undefined {
  if (!settings.reviewComments || !settings.answer?.findings || !decision.oneRun) return undefined
  const place = decision.pullRequest
  if (!place) {
    info('review-comments: this step is about no pull request, so its findings get no review.')
    return undefined
  }
  if (!settings.githubToken) {
    say.warning(
      'review-comments: no github-token, so the findings get no review; leave github-token unset for the job’s GITHUB_TOKEN.'
    )
    return undefined
  }
  return new FindingsReview({
    github,
    place: { pullNumber: place.number, sha: place.sha },
    key: { secret: settings.apiToken, repository: settings.context.repository },
    workflowRunUrl: workflowRunUrl(settings.context),
    warn: say.warning,
    info
  })
}
