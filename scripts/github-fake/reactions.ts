import { json, nodeId, notFound, positiveInteger, timestamp, type Answer } from './answers.js'
import type { Comments } from './comments.js'
import type { Repository } from './repository.js'
import { schemaError, type Call } from './routes.js'
import type { FakeReaction, FakeUser } from './types.js'
import type { GitHubReaction } from './shapes.js'

/** Reactions on issues, issue comments and review comments, made through the API. */

const REACTION_CONTENTS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'] as const

const FIRST_REACTION_ID = 250_000_001

interface StoredReaction {
  id: number
  target: FakeReaction['target']
  content: string
  user: FakeUser
  createdAt: number
}

export class Reactions {
  private readonly stored: StoredReaction[] = []
  private nextReactionId = FIRST_REACTION_ID

  constructor(
    private readonly repository: Repository,
    private readonly comments: Comments
  ) {}

  /** Every reaction made through the API, in order. */
  list(): FakeReaction[] {
    return this.stored.map(reaction => ({
      target: { ...reaction.target },
      content: reaction.content,
      user: { ...reaction.user }
    }))
  }

  create(call: Call): Answer {
    const members = REACTION_CONTENTS.map(content => `"${content}"`).join(', ')
    const invalid = schemaError(call, 'content', value =>
      REACTION_CONTENTS.some(content => content === value) ? undefined : `is not a member of [${members}]`
    )
    if (invalid) return invalid
    const target = targetOf(call)
    if (!this.exists(target)) return notFound(call.route.documentationUrl)
    const content = (call.body as { content: string }).content
    const actor = this.repository.actor
    const sameTarget = (other: FakeReaction['target']): boolean =>
      JSON.stringify(other) === JSON.stringify(target)
    // The same person reacting the same way again gets the existing reaction back, with 200.
    const existing = this.stored.find(
      reaction =>
        reaction.content === content &&
        reaction.user.login.toLowerCase() === actor.login.toLowerCase() &&
        sameTarget(reaction.target)
    )
    if (existing) return json(this.wire(existing, call.api))
    const reaction: StoredReaction = {
      id: this.nextReactionId++,
      target,
      content,
      user: { ...actor },
      createdAt: call.now
    }
    this.stored.push(reaction)
    return json(this.wire(reaction, call.api), 201)
  }

  /** Any positive issue number is an issue: the fake keeps no list of issues. */
  private exists(target: FakeReaction['target']): boolean {
    if ('commentId' in target) return this.comments.hasComment(target.commentId)
    if ('reviewCommentId' in target) return this.comments.hasReviewComment(target.reviewCommentId)
    return target.issueNumber !== 0
  }

  private wire(reaction: StoredReaction, api: string): GitHubReaction {
    return {
      id: reaction.id,
      node_id: nodeId('Reaction', reaction.id),
      user: this.repository.wireUser(reaction.user, api),
      content: reaction.content,
      created_at: timestamp(reaction.createdAt)
    }
  }
}

/** What the route reacts to: an issue comment, a review comment, or an issue. */
function targetOf(call: Call): FakeReaction['target'] {
  if (call.route.name === 'comment-reaction')
    return { commentId: positiveInteger(call.params.comment_id) ?? 0 }
  if (call.route.name === 'review-comment-reaction')
    return { reviewCommentId: positiveInteger(call.params.comment_id) ?? 0 }
  return { issueNumber: positiveInteger(call.params.issue_number) ?? 0 }
}
