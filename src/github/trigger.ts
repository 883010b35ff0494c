/**
 * Reads the event (a comment, an opened, labelled or assigned issue, a labelled pull request, a
 * review or a comment on a pull request's code) into a trigger. Pure: the permission check, which
 * needs GitHub's API, comes after.
 */

export interface Author {
  login: string
  type: string
}

/** The issue or pull request the comment belongs to. */
export interface Thread {
  number: number
  title: string
  body: string
  url: string
  isPullRequest: boolean
}

/** What started a run: the `trigger` output ('inputs' for a step run from its inputs). */
export type TriggerName = 'comment' | 'issue' | 'label' | 'assignment' | 'review-comment' | 'review'

/** The pull request's branches; the head may be a fork's. */
export interface PullRequestInfo {
  head: string
  base: string
  /** owner/name of the head's repository ('' when GitHub no longer knows it, a deleted fork). */
  headRepository: string
  /** The head commit, as the event or the pull request gives it ('' when it does not). */
  headSha?: string
}

/** Where a comment on a pull request's code sits. */
export interface CodeLocation {
  path: string
  /** First and last line of the range (equal for one line); undefined on a comment on the whole file. */
  startLine?: number
  line?: number
  /** RIGHT: the pull request's version of the file; LEFT: the base's. */
  startSide: string
  side: string
  diffHunk: string
  /** The review thread's first comment: GitHub takes replies on it alone. */
  threadId: number
}

export type Trigger =
  /** Not a triggering event: the step runs from its inputs (issue #2's behaviour). */
  | { kind: 'inputs' }
  | { kind: 'skip'; reason: string }
  /** An event that asks for a run on an issue or pull request (a comment, the issue itself, a label…). */
  | {
      kind: 'thread'
      trigger: TriggerName
      event: string
      thread: Thread
      /** What the commenter asked, after the phrase ('' asks to work on the thread as written). */
      instruction: string
      /** `/codegen new …`: start a fresh run even when the thread has one. */
      fresh: boolean
      author: Author
      /** The triggering comment (issue_comment only), for the reaction. */
      commentId?: number
      commentUrl: string
      /** A bot that allowed-bots lets in: it has no repository permission to check. */
      allowedBot?: boolean
      /** From the event, when it carries the pull request. */
      pullRequest?: PullRequestInfo
      /** review-comment: the comment's place in the diff; the tracking comment replies in its thread. */
      code?: CodeLocation
      /** review: the review's state (approved, changes_requested, commented). */
      reviewState?: string
      /** label: the label; assignment: the assignee. */
      label?: string
      assignee?: string
    }

/** What the workflow lets trigger a run: the phrase, and the label, assignee and bots inputs. */
export interface TriggerRules {
  phrase: string
  labelTrigger?: string
  assigneeTrigger?: string
  /** Lower-case logins without `[bot]`, or '*' for all bots. */
  allowedBots?: ReadonlySet<string> | '*'
}

/** First line of every comment the action writes; its own comments never trigger it. */
export const OWN_COMMENT_MARK = '<!-- codegen-agent-run-action'

type Json = Record<string, unknown>
const object = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {})
const text = (value: unknown): string => (typeof value === 'string' ? value : '')

/**
 * The instruction when `body` starts with `phrase` (after white space, any case) followed by white
 * space or the end; undefined otherwise.
 */
export function matchPhrase(body: string, phrase: string): string | undefined {
  // Four columns of indentation make an indented code block: shown as code, it asks nothing. (A
  // fenced block starts with its fence, so the phrase inside it is not at the start either.)
  const indent = /^(?:[ \t]*\r?\n)*([ \t]*)/.exec(body)?.[1] ?? ''
  if ([...indent].reduce((column, char) => (char === '\t' ? column + 4 - (column % 4) : column + 1), 0) >= 4)
    return undefined
  const start = body.replace(/^\s+/, '')
  // Only the head is compared: lowering the case of a whole long body would copy it.
  if (start.slice(0, phrase.length).toLowerCase() !== phrase.toLowerCase()) return undefined
  const rest = start.slice(phrase.length)
  if (rest !== '' && !/^\s/.test(rest)) return undefined
  return rest.trim()
}

export function isBot(author: Author): boolean {
  return author.type === 'Bot' || author.login.toLowerCase().endsWith('[bot]')
}

/** Whether allowed-bots lets this bot in (`renovate` and `renovate[bot]` name the same app). */
export function isAllowedBot(author: Author, allowed: TriggerRules['allowedBots']): boolean {
  if (!isBot(author) || allowed === undefined) return false
  return allowed === '*' || allowed.has(author.login.toLowerCase().replace(/\[bot\]$/, ''))
}

/** Why `author` may not trigger as a bot, or undefined: a person, or a bot allowed-bots names. */
function botRefusal(author: Author, rules: TriggerRules): string | undefined {
  if (!isBot(author) || isAllowedBot(author, rules.allowedBots)) return undefined
  return `${author.login} is a bot; bots never trigger a run unless allowed-bots names them.`
}

/**
 * The trigger of the event. `rules` may be the phrase alone (no label or assignee trigger, no bots).
 * Events other than comments, issues, reviews and (with label-trigger set) pull requests run from
 * the inputs.
 */
export function readTrigger(eventName: string, payload: unknown, given: TriggerRules | string): Trigger {
  const rules: TriggerRules = typeof given === 'string' ? { phrase: given } : given
  const phrase = rules.phrase
  const other = readOtherTrigger(eventName, object(payload), rules)
  if (other) return other
  if (eventName !== 'issue_comment' && eventName !== 'issues') return { kind: 'inputs' }
  const event = object(payload)
  const action = text(event.action)
  const wanted = eventName === 'issue_comment' ? 'created' : 'opened'
  if (action !== wanted)
    return { kind: 'skip', reason: `${eventName} events with action "${action}" never trigger a run.` }

  const issue = object(event.issue)
  const thread: Thread = {
    number: Number(issue.number),
    title: text(issue.title),
    body: text(issue.body),
    url: text(issue.html_url),
    isPullRequest: Boolean(issue.pull_request)
  }
  const comment = object(event.comment)
  const source = eventName === 'issue_comment' ? comment : issue
  const user = object(source.user)
  const author: Author = { login: text(user.login), type: text(user.type) }
  const body = text(source.body)

  if (!Number.isInteger(thread.number) || thread.number <= 0) {
    return { kind: 'skip', reason: 'The event names no issue or pull request.' }
  }
  if (body.trimStart().startsWith(OWN_COMMENT_MARK)) {
    return { kind: 'skip', reason: 'The comment is one of the action’s own.' }
  }
  const bot = botRefusal(author, rules)
  if (bot) return { kind: 'skip', reason: bot }

  const instruction =
    eventName === 'issue_comment'
      ? matchPhrase(body, phrase)
      : (matchPhrase(thread.title, phrase) ?? matchPhrase(body, phrase))
  if (instruction === undefined) {
    return {
      kind: 'skip',
      reason: `The ${eventName === 'issue_comment' ? 'comment' : 'issue'} does not start with ${phrase}.`
    }
  }
  const fresh = /^new(\s|$)/i.test(instruction)
  return {
    kind: 'thread',
    trigger: eventName === 'issue_comment' ? 'comment' : 'issue',
    event: eventName,
    thread,
    instruction: fresh ? instruction.slice(3).trim() : instruction,
    fresh,
    author,
    ...(isBot(author) ? { allowedBot: true } : {}),
    ...(eventName === 'issue_comment' && Number.isInteger(comment.id)
      ? { commentId: comment.id as number }
      : {}),
    commentUrl: text(source.html_url) || thread.url
  }
}

// ---------------------------------------------------------------------------------------------
// Labels, assignment, reviews and review comments

export type ThreadTrigger = Extract<Trigger, { kind: 'thread' }>

const skip = (reason: string): Trigger => ({ kind: 'skip', reason })

function userOf(value: unknown): Author {
  const user = object(value)
  return { login: text(user.login), type: text(user.type) }
}

const validNumber = (thread: Thread): boolean => Number.isInteger(thread.number) && thread.number > 0

function issueThread(issue: Json): Thread {
  return {
    number: Number(issue.number),
    title: text(issue.title),
    body: text(issue.body),
    url: text(issue.html_url),
    isPullRequest: Boolean(issue.pull_request)
  }
}

function pullRequestOf(pr: Json): { thread: Thread; pullRequest: PullRequestInfo } {
  const head = object(pr.head)
  return {
    thread: { ...issueThread(pr), isPullRequest: true },
    pullRequest: {
      head: text(head.ref),
      base: text(object(pr.base).ref),
      headRepository: text(object(head.repo).full_name),
      headSha: text(head.sha)
    }
  }
}

const positive = (value: unknown): number | undefined =>
  Number.isInteger(value) && (value as number) > 0 ? (value as number) : undefined

/**
 * The events issue #12 added. Undefined for issue_comment and issues opened (read above) and for
 * events that run from the inputs.
 */
function readOtherTrigger(eventName: string, event: Json, rules: TriggerRules): Trigger | undefined {
  const action = text(event.action)
  if (eventName === 'issues' && action === 'labeled') return readLabel(eventName, event, rules)
  if (eventName === 'issues' && action === 'assigned') return readAssignment(event, rules)
  if (eventName === 'pull_request' || eventName === 'pull_request_target') {
    // Without label-trigger a pull request event runs from the inputs, as it always did.
    if (!rules.labelTrigger) return { kind: 'inputs' }
    if (action !== 'labeled')
      return skip(`${eventName} events with action "${action}" never trigger a run; only "labeled" does.`)
    return readLabel(eventName, event, rules)
  }
  if (eventName === 'pull_request_review_comment') return readReviewComment(event, rules)
  if (eventName === 'pull_request_review') return readReview(event, rules)
  return undefined
}

/** A thread event (label, assignment): the thread as written is the request; `sender` asked. */
function threadRequest(
  eventName: string,
  event: Json,
  rules: TriggerRules,
  fields: Pick<ThreadTrigger, 'trigger' | 'label' | 'assignee'>
): Trigger {
  const isIssue = eventName === 'issues'
  const { thread, pullRequest } = isIssue
    ? { thread: issueThread(object(event.issue)), pullRequest: undefined }
    : pullRequestOf(object(event.pull_request))
  if (!validNumber(thread)) return skip('The event names no issue or pull request.')
  const author = userOf(event.sender)
  const bot = botRefusal(author, rules)
  if (bot) return skip(bot)
  return {
    kind: 'thread',
    event: eventName,
    thread,
    instruction: '',
    fresh: false,
    author,
    ...(isBot(author) ? { allowedBot: true } : {}),
    commentUrl: thread.url,
    ...(pullRequest ? { pullRequest } : {}),
    ...fields
  }
}

function readLabel(eventName: string, event: Json, rules: TriggerRules): Trigger {
  const label = text(object(event.label).name)
  if (!rules.labelTrigger) return skip(`The label "${label}" was added, and label-trigger is not set.`)
  // GitHub's label names ignore case: "Codegen" and "codegen" cannot both exist.
  if (label.toLowerCase() !== rules.labelTrigger.toLowerCase())
    return skip(`The label "${label}" is not label-trigger ("${rules.labelTrigger}").`)
  return threadRequest(eventName, event, rules, { trigger: 'label', label })
}

function readAssignment(event: Json, rules: TriggerRules): Trigger {
  const assignee = text(object(event.assignee).login)
  if (!rules.assigneeTrigger)
    return skip(`The issue was assigned to @${assignee}, and assignee-trigger is not set.`)
  if (assignee.toLowerCase() !== rules.assigneeTrigger.toLowerCase())
    return skip(
      `The issue was assigned to @${assignee}, not to assignee-trigger (@${rules.assigneeTrigger}).`
    )
  return threadRequest('issues', event, rules, { trigger: 'assignment', assignee })
}

/** A request written on the pull request (a review, a comment on its code): `source` holds the text. */
function pullRequestRequest(
  eventName: string,
  event: Json,
  source: Json,
  rules: TriggerRules,
  what: string
): ThreadTrigger | Extract<Trigger, { kind: 'skip' }> {
  const { thread, pullRequest } = pullRequestOf(object(event.pull_request))
  if (!validNumber(thread)) return { kind: 'skip', reason: 'The event names no pull request.' }
  const author = userOf(source.user)
  const body = text(source.body)
  if (body.trimStart().startsWith(OWN_COMMENT_MARK))
    return { kind: 'skip', reason: `The ${what} is one of the action’s own.` }
  const bot = botRefusal(author, rules)
  if (bot) return { kind: 'skip', reason: bot }
  const instruction = matchPhrase(body, rules.phrase)
  if (instruction === undefined)
    return { kind: 'skip', reason: `The ${what} does not start with ${rules.phrase}.` }
  const fresh = /^new(\s|$)/i.test(instruction)
  return {
    kind: 'thread',
    trigger: 'review',
    event: eventName,
    thread,
    instruction: fresh ? instruction.slice(3).trim() : instruction,
    fresh,
    author,
    ...(isBot(author) ? { allowedBot: true } : {}),
    commentUrl: text(source.html_url) || thread.url,
    pullRequest
  }
}

function readReviewComment(event: Json, rules: TriggerRules): Trigger {
  const action = text(event.action)
  if (action !== 'created')
    return skip(`pull_request_review_comment events with action "${action}" never trigger a run.`)
  const comment = object(event.comment)
  const request = pullRequestRequest('pull_request_review_comment', event, comment, rules, 'review comment')
  if (request.kind === 'skip') return request
  const id = positive(comment.id)
  if (id === undefined) return skip('The event names no review comment.')
  // An outdated comment has no line on the current diff: its original line is where it was written.
  const line = positive(comment.line) ?? positive(comment.original_line)
  const startLine = positive(comment.start_line) ?? positive(comment.original_start_line) ?? line
  return {
    ...request,
    trigger: 'review-comment',
    commentId: id,
    code: {
      path: text(comment.path),
      ...(line !== undefined ? { line, startLine } : {}),
      side: text(comment.side) || 'RIGHT',
      startSide: text(comment.start_side) || text(comment.side) || 'RIGHT',
      diffHunk: text(comment.diff_hunk),
      threadId: positive(comment.in_reply_to_id) ?? id
    }
  }
}

function readReview(event: Json, rules: TriggerRules): Trigger {
  const action = text(event.action)
  if (action !== 'submitted')
    return skip(`pull_request_review events with action "${action}" never trigger a run.`)
  const review = object(event.review)
  const request = pullRequestRequest('pull_request_review', event, review, rules, 'review')
  if (request.kind === 'skip') return request
  return { ...request, trigger: 'review', reviewState: text(review.state).toLowerCase() }
}
