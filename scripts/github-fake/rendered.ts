import { renderMarkdown } from '../render-markdown.js'
import { json, nodeId, notFound, positiveInteger, timestamp, userAddresses, type Answer } from './answers.js'
import type { Comments } from './comments.js'
import type { Repository } from './repository.js'
import type { Reviews } from './reviews.js'
import type { Call } from './routes.js'
import type { FakeIssue, FakeReview, NewReview } from './types.js'

/**
 * A text read alone (an issue, an issue comment, a review comment, a review), as GitHub answers it:
 * with `Accept: application/vnd.github.full+json` also `body_text` and `body_html`, the HTML whose
 * attachments (github.com/user-attachments/assets/…, user-images.githubusercontent.com/…) are signed
 * addresses on the image host, each carrying a `jwt` that is a credential for a short while.
 */

export const FULL_JSON = 'application/vnd.github.full+json'

/** An attachment's address as people paste it, its id (or older file name) captured. */
const ATTACHMENT =
  /^https:\/\/(?:github\.com\/user-attachments\/assets\/([0-9A-Za-z-]+)|user-images\.githubusercontent\.com\/\d+\/([^/?#]+))$/

/** An attachment's signed address, from its id (or older file name). */
export type ImageSigner = (id: string) => string

/** Where the fake serves attachments itself when its imageOrigin is 'self' (no token, the jwt checked). */
export const OWN_IMAGES_PATH = '/private-user-images'

/** GitHub's image host, where the signed addresses point unless the fake is told otherwise. */
export const GITHUB_IMAGE_ORIGIN = 'https://private-user-images.githubusercontent.com'

/** The signed address GitHub's HTML gives an attachment: `<origin>/<user>/<n>-<id>.png?jwt=…`. */
export function signedImageUrl(origin: string, token: string, id: string): string {
  const file = /\.\w{2,5}$/.test(id) ? id : `398000001-${id}.png`
  return `${origin}/4242/${file}?jwt=${token}`
}

/** GitHub's HTML of a text: rendered, each attachment's image (and its link) at its signed address. */
export function bodyHtml(markdown: string, signer: ImageSigner): string {
  const escaped = (url: string): string => url.replace(/&/g, '&amp;')
  return renderMarkdown(markdown).replace(/<img\b[^>]*>/g, tag =>
    tag.replace(/(\ssrc=")([^"]*)"/, (whole, head: string, src: string) => {
      const found = ATTACHMENT.exec(src.replace(/&amp;/g, '&'))
      const id = found?.[1] ?? found?.[2]
      if (id === undefined) return whole
      const signed = escaped(signer(id))
      return `${head}${signed}" data-canonical-src="${src}"`
    })
  )
}

export class RenderedTexts {
  private readonly issues = new Map<number, FakeIssue & { createdAt: number }>()
  /** The `jwt` every signed image address carries (a credential for a short while, on GitHub). */
  readonly imageToken = 'eyJhbGciOiJIUzI1NiJ9.eyJwYXRoIjoiZmFrZSJ9.c2lnbmVkLWZha2UtaW1hZ2U'
  private signer: ImageSigner

  constructor(
    private readonly repository: Repository,
    private readonly comments: Comments,
    private readonly reviews: Reviews,
    imageOrigin: () => string = () => GITHUB_IMAGE_ORIGIN
  ) {
    this.signer = id => signedImageUrl(imageOrigin(), this.imageToken, id)
  }

  private readonly images = new Map<string, Buffer>()

  /** An attachment's bytes, served at the fake's own origin (imageOrigin 'self'). */
  addImage(id: string, bytes: Buffer): void {
    this.images.set(id.toLowerCase(), bytes)
  }

  /** GET of an attachment at the fake's own origin: its bytes when the jwt is the fake's, else 404. */
  image(path: string, query: Record<string, string>): Answer {
    const id = /\/\d+-([^/]+)\.png$/.exec(path)?.[1]?.toLowerCase()
    const bytes = id === undefined ? undefined : this.images.get(id)
    if (!bytes || query.jwt !== this.imageToken) return notFound()
    return { status: 200, value: undefined, raw: { body: bytes, type: 'image/png' } }
  }

  /** Signs the attachments of the HTML from now on as `signer` does (a test's image host's own). */
  signWith(signer: ImageSigner): void {
    this.signer = signer
  }

  /** A review someone submitted on a pull request (now), as if through the web interface. */
  addReview(pullNumber: number, review: NewReview): FakeReview {
    return this.reviews.addReview(pullNumber, review)
  }

  /** An issue as someone opened it: GET answers it (a pull request's issue needs no seeding). */
  setIssue(issue: FakeIssue): void {
    this.repository.knownUser(issue.user)
    this.issues.set(issue.number, { ...issue, createdAt: this.repository.now() })
  }

  handle(call: Call): Answer {
    const text = this.wire(call)
    if (!text) return notFound(call.route.documentationUrl)
    if (!call.accept.split(',').some(type => type.trim().startsWith(FULL_JSON))) return json(text)
    const body = typeof text.body === 'string' ? text.body : ''
    const html = bodyHtml(body, this.signer)
    return json({ ...text, body_text: body, body_html: html })
  }

  private wire(call: Call): Record<string, unknown> | undefined {
    const id = positiveInteger(call.params.comment_id ?? call.params.review_id)
    switch (call.route.name) {
      case 'comment':
        return id === undefined ? undefined : this.asRecord(this.comments.wireCommentById(id, call.api))
      case 'review-comment':
        return id === undefined
          ? undefined
          : this.withLinks(this.comments.wireReviewCommentById(id, call.api))
      case 'review': {
        const pull = positiveInteger(call.params.pull_number)
        return id === undefined || pull === undefined ? undefined : this.reviews.wireById(pull, id, call.api)
      }
      default:
        return this.wireIssue(call)
    }
  }

  /** A review comment read alone carries its links too. */
  private withLinks(
    value: { url: string; html_url: string; pull_request_url: string; user: { url: string } } | undefined
  ): Record<string, unknown> | undefined {
    const links = value && {
      self: { href: value.url },
      html: { href: value.html_url },
      pull_request: { href: value.pull_request_url }
    }
    return value && { ...this.asRecord(value), _links: links }
  }

  /** A comment read alone: its author a simple-user, with every address (the list's carries fewer). */
  private asRecord(value: { user: { url: string } } | undefined): Record<string, unknown> | undefined {
    return value && { ...value, user: { ...value.user, ...userAddresses(value.user.url) } }
  }

  /** An issue, or a pull request as its issue, as GET answers it (the issue schema). */
  private wireIssue(call: Call): Record<string, unknown> | undefined {
    const number = positiveInteger(call.params.issue_number)
    if (number === undefined) return undefined
    const pull = this.repository.pullRequestText(number)
    const issue = this.issues.get(number) ?? (pull && { number, ...pull })
    if (!issue) return undefined
    const repository = `${call.api}/repos/${this.repository.fullName}`
    const url = `${repository}/issues/${number}`
    const web = `${this.repository.webBase()}/${this.repository.fullName}`
    const at = timestamp(issue.createdAt)
    return {
      id: 1_800_000_000 + number,
      node_id: nodeId('Issue', 1_800_000_000 + number),
      url,
      repository_url: repository,
      labels_url: `${url}/labels{/name}`,
      comments_url: `${url}/comments`,
      events_url: `${url}/events`,
      html_url: `${web}/${pull ? 'pull' : 'issues'}/${number}`,
      number,
      state: 'open',
      title: issue.title,
      body: issue.body,
      user: this.repository.simpleUser(issue.user, call.api),
      labels: [],
      assignee: null,
      assignees: [],
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: this.comments.comments(number).length,
      closed_at: null,
      created_at: at,
      updated_at: at,
      author_association: this.repository.association(issue.user.login),
      ...(pull
        ? {
            pull_request: {
              url: `${repository}/pulls/${number}`,
              html_url: `${web}/pull/${number}`,
              diff_url: `${web}/pull/${number}.diff`,
              patch_url: `${web}/pull/${number}.patch`
            }
          }
        : {})
    }
  }
}
