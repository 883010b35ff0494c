import { OWN_COMMENT_MARK } from '../github-shapes.js'
import { CI_FIX_EVENT } from '../settings/workflow-context.js'
import { jsonObject, jsonPositive, jsonText, type JsonObject } from '../json.js'
import type { Author, PullRequestInfo } from '../github/api.js'

/**
 * Reads the event (a comment, an opened, labelled or assigned issue, a labelled pull request, a
 * review or a comment on a pull request's code) into a trigger. Pure: the permission check, which
 * needs GitHub's API, comes after.
 */

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
      /** `/codegen plan …` (or the plan input) asks for a plan only; `/codegen approve [extra]` carries out the one shown. */
      ask?: 'plan' | 'approve'
      /** When the request was written (ISO 8601, as the event gives it): an approval is pinned to the plan shown then. */
      writtenAt?: string
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
      /** review: the review's id (its text is read again for the images in it). */
      reviewId?: number
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
  /** The `plan` input: every request but an approval asks for a plan only. */
  plan?: boolean
}

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

export type ThreadTrigger = Extract<Trigger, { kind: 'thread' }>
type Skip = Extract<Trigger, { kind: 'skip' }>

const skip = (reason: string): Skip => ({ kind: 'skip', reason })

function userOf(value: unknown): Author {
  const user = jsonObject(value)
  return { login: jsonText(user.login), type: jsonText(user.type) }
}

function issueThread(issue: JsonObject): Thread {
  return {
    number: Number(issue.number),
    title: jsonText(issue.title),
    body: jsonText(issue.body),
    url: jsonText(issue.html_url),
    isPullRequest: Boolean(issue.pull_request)
  }
}

function pullRequestOf(pr: JsonObject): { thread: Thread; pullRequest: PullRequestInfo } {
  const head = jsonObject(pr.head)
  return {
    thread: { ...issueThread(pr), isPullRequest: true },
    pullRequest: {
      head: jsonText(head.ref),
      base: jsonText(jsonObject(pr.base).ref),
      headRepository: jsonText(jsonObject(head.repo).full_name),
      headSha: jsonText(head.sha)
    }
  }
}

/** Where the request was written, when it was (a comment, an issue, a review): the phrase must open it. */
interface Written {
  body: string
  /** An issue: its title may hold the phrase instead of its body. */
  title?: string
  /** What it is called in a skip's reason: comment, issue, review comment, review. */
  what: string
  url: string
  /** When it was written, as the event gives it. */
  at?: string
}

/** Everything an event reader found; `threadTrigger` makes it a trigger, or says why not. */
type Request = Pick<ThreadTrigger, 'trigger' | 'event' | 'thread' | 'author' | 'pullRequest'> & {
  /** Absent: the thread as written is the request (a label, an assignment). */
  written?: Written
  /** The reason when the event names no thread. */
  noThread: string
}

/** The one builder of thread triggers: the number, the action's own text, bots, the phrase, `new`. */
function threadTrigger(request: Request, rules: TriggerRules): ThreadTrigger | Skip {
  const { written, thread, author, pullRequest } = request
  if (!Number.isInteger(thread.number) || thread.number <= 0) return skip(request.noThread)
  // An issue the action opened is named a comment here, as it always was.
  if (written?.body.trimStart().startsWith(OWN_COMMENT_MARK))
    return skip(`The ${written.what === 'issue' ? 'comment' : written.what} is one of the action’s own.`)
  const bot = botRefusal(author, rules)
  if (bot) return skip(bot)
  const instruction = written ? instructionOf(written, rules.phrase) : ''
  if (instruction === undefined) return skip(`The ${written?.what} does not start with ${rules.phrase}.`)
  const { ask, rest, fresh } = askOf(instruction, rules.plan === true)
  return {
    kind: 'thread',
    trigger: request.trigger,
    event: request.event,
    thread,
    instruction: rest,
    fresh,
    ...(ask ? { ask } : {}),
    ...(written?.at ? { writtenAt: written.at } : {}),
    author,
    ...(isBot(author) ? { allowedBot: true } : {}),
    commentUrl: written?.url || thread.url,
    ...(pullRequest ? { pullRequest } : {})
  }
}

/** The request's word after the phrase (`new`, `plan`, `approve`) and what follows it. */
export function askOf(text: string, plan: boolean): Pick<ThreadTrigger, 'ask' | 'fresh'> & { rest: string } {
  const word = /^(new|plan|approve)(?:\s+|$)/i.exec(text)
  const named = word?.[1]?.toLowerCase() as 'new' | ThreadTrigger['ask']
  const rest = word ? text.slice(word[0].length).trim() : text
  if (named === 'approve' || named === 'plan') return { ask: named, rest, fresh: false }
  return { ...(plan ? { ask: 'plan' as const } : {}), rest, fresh: named === 'new' }
}

function instructionOf(written: Written, phrase: string): string | undefined {
  const inTitle = written.title === undefined ? undefined : matchPhrase(written.title, phrase)
  return inTitle ?? matchPhrase(written.body, phrase)
}

/** A comment, a review or a comment on the code as written: a review is dated when submitted, a comment when created. */
function writtenIn(source: JsonObject, what: string): Written {
  const at = jsonText(source.submitted_at) || jsonText(source.created_at)
  return { body: jsonText(source.body), what, url: jsonText(source.html_url), at }
}

/** Reads one action of one event into a trigger. */
type Reader = (event: JsonObject, rules: TriggerRules, eventName: string) => Trigger

const readComment: Reader = (event, rules) => {
  const comment = jsonObject(event.comment)
  const trigger = threadTrigger(
    {
      trigger: 'comment',
      event: 'issue_comment',
      thread: issueThread(jsonObject(event.issue)),
      author: userOf(comment.user),
      written: writtenIn(comment, 'comment'),
      noThread: 'The event names no issue or pull request.'
    },
    rules
  )
  if (trigger.kind === 'skip' || !Number.isInteger(comment.id)) return trigger
  return { ...trigger, commentId: comment.id as number }
}

const readIssue: Reader = (event, rules) => {
  const issue = jsonObject(event.issue)
  const thread = issueThread(issue)
  return threadTrigger(
    {
      trigger: 'issue',
      event: 'issues',
      thread,
      author: userOf(issue.user),
      written: {
        body: thread.body,
        title: thread.title,
        what: 'issue',
        url: thread.url,
        at: jsonText(issue.created_at)
      },
      noThread: 'The event names no issue or pull request.'
    },
    rules
  )
}

/** A label or an assignment: the thread as written is the request; `sender` asked. */
function threadEvent(
  eventName: string,
  event: JsonObject,
  rules: TriggerRules,
  fields: Pick<ThreadTrigger, 'trigger' | 'label' | 'assignee'>
): Trigger {
  const found =
    eventName === 'issues'
      ? { thread: issueThread(jsonObject(event.issue)) }
      : pullRequestOf(jsonObject(event.pull_request))
  const request = { ...found, trigger: fields.trigger, event: eventName, author: userOf(event.sender) }
  const trigger = threadTrigger({ ...request, noThread: 'The event names no issue or pull request.' }, rules)
  return trigger.kind === 'skip' ? trigger : { ...trigger, ...fields }
}

const readLabel: Reader = (event, rules, eventName) => {
  const label = jsonText(jsonObject(event.label).name)
  if (!rules.labelTrigger) return skip(`The label "${label}" was added, and label-trigger is not set.`)
  // GitHub's label names ignore case: "Codegen" and "codegen" cannot both exist.
  if (label.toLowerCase() !== rules.labelTrigger.toLowerCase())
    return skip(`The label "${label}" is not label-trigger ("${rules.labelTrigger}").`)
  return threadEvent(eventName, event, rules, { trigger: 'label', label })
}

const readAssignment: Reader = (event, rules) => {
  const assignee = jsonText(jsonObject(event.assignee).login)
  if (!rules.assigneeTrigger)
    return skip(`The issue was assigned to @${assignee}, and assignee-trigger is not set.`)
  if (assignee.toLowerCase() !== rules.assigneeTrigger.toLowerCase())
    return skip(
      `The issue was assigned to @${assignee}, not to assignee-trigger (@${rules.assigneeTrigger}).`
    )
  return threadEvent('issues', event, rules, { trigger: 'assignment', assignee })
}

/** A request written on a pull request (a review, a comment on its code): `source` holds the text. */
function pullRequestRequest(
  eventName: string,
  event: JsonObject,
  source: JsonObject,
  rules: TriggerRules,
  what: string
): ThreadTrigger | Skip {
  return threadTrigger(
    {
      ...pullRequestOf(jsonObject(event.pull_request)),
      trigger: 'review',
      event: eventName,
      author: userOf(source.user),
      written: writtenIn(source, what),
      noThread: 'The event names no pull request.'
    },
    rules
  )
}

const readReviewComment: Reader = (event, rules, eventName) => {
  const comment = jsonObject(event.comment)
  const request = pullRequestRequest(eventName, event, comment, rules, 'review comment')
  if (request.kind === 'skip') return request
  const id = jsonPositive(comment.id)
  if (id === undefined) return skip('The event names no review comment.')
  // An outdated comment has no line on the current diff: its original line is where it was written.
  const line = jsonPositive(comment.line) ?? jsonPositive(comment.original_line)
  const startLine = jsonPositive(comment.start_line) ?? jsonPositive(comment.original_start_line) ?? line
  return {
    ...request,
    trigger: 'review-comment',
    commentId: id,
    code: {
      path: jsonText(comment.path),
      ...(line !== undefined ? { line, startLine } : {}),
      side: jsonText(comment.side) || 'RIGHT',
      startSide: jsonText(comment.start_side) || jsonText(comment.side) || 'RIGHT',
      diffHunk: jsonText(comment.diff_hunk),
      threadId: jsonPositive(comment.in_reply_to_id) ?? id
    }
  }
}

const readReview: Reader = (event, rules, eventName) => {
  const review = jsonObject(event.review)
  const request = pullRequestRequest(eventName, event, review, rules, 'review')
  if (request.kind === 'skip') return request
  const [id, state] = [jsonPositive(review.id), jsonText(review.state).toLowerCase()]
  return { ...request, trigger: 'review', reviewState: state, ...(id !== undefined ? { reviewId: id } : {}) }
}

interface EventReaders {
  /** The actions that may trigger a run, each with its reader; any other action is skipped. */
  actions: Record<string, Reader>
  /** Read only with label-trigger set: else the step runs from its inputs, as it always did. */
  withLabelTrigger?: boolean
}

const PULL_REQUEST_LABEL: EventReaders = { actions: { labeled: readLabel }, withLabelTrigger: true }

/** Every event the action reads as a request for a run; every other event runs from the inputs. */
const EVENTS: Record<string, EventReaders> = {
  issue_comment: { actions: { created: readComment } },
  issues: { actions: { opened: readIssue, labeled: readLabel, assigned: readAssignment } },
  pull_request: PULL_REQUEST_LABEL,
  pull_request_target: PULL_REQUEST_LABEL,
  pull_request_review_comment: { actions: { created: readReviewComment } },
  pull_request_review: { actions: { submitted: readReview } }
}

/** Whether the event asks for a run on a thread (a comment, issue, label, assignment or review). */
function isThreadEvent(eventName: string, labelTrigger: string): boolean {
  const readers = Object.hasOwn(EVENTS, eventName) ? EVENTS[eventName] : undefined
  return readers !== undefined && (!readers.withLabelTrigger || labelTrigger !== '')
}

/**
 * Whether the event is read as a request for a run: a thread's (a comment, issue, label, assignment
 * or review), or a completed workflow run's, whose failure a CI fix is asked for (workflow-run.ts).
 */
export function isTriggerEvent(eventName: string, labelTrigger: string): boolean {
  return eventName === CI_FIX_EVENT || isThreadEvent(eventName, labelTrigger)
}

/**
 * The thread trigger of the event. `rules` may be the phrase alone (no label or assignee trigger, no
 * bots). Events other than comments, issues, reviews and (with label-trigger set) pull requests run
 * from the inputs; a workflow_run is read by workflow-run.ts, not here.
 */
export function readTrigger(eventName: string, payload: unknown, rules: TriggerRules): Trigger {
  if (!isThreadEvent(eventName, rules.labelTrigger ?? '')) return { kind: 'inputs' }
  const { actions, withLabelTrigger } = EVENTS[eventName] as EventReaders
  const event = jsonObject(payload)
  const action = jsonText(event.action)
  const read = Object.hasOwn(actions, action) ? actions[action] : undefined
  if (read) return read(event, rules, eventName)
  const only = withLabelTrigger ? `; only "${Object.keys(actions).join('", "')}" does` : ''
  return skip(`${eventName} events with action "${action}" never trigger a run${only}.`)
}
