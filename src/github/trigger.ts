/**
 * Reads an issue_comment or issues event into a trigger. Pure: the permission check, which needs
 * GitHub's API, comes after.
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

export type Trigger =
  /** Not a comment event: the step runs from its inputs (issue #2's behaviour). */
  | { kind: 'inputs' }
  | { kind: 'skip'; reason: string }
  | {
      kind: 'comment'
      event: 'issue_comment' | 'issues'
      thread: Thread
      /** What the commenter asked, after the phrase ('' asks to work on the thread as written). */
      instruction: string
      /** `/codegen new …`: start a fresh run even when the thread has one. */
      fresh: boolean
      author: Author
      /** The triggering comment (issue_comment only), for the reaction. */
      commentId?: number
      commentUrl: string
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
  if (!start.toLowerCase().startsWith(phrase.toLowerCase())) return undefined
  const rest = start.slice(phrase.length)
  if (rest !== '' && !/^\s/.test(rest)) return undefined
  return rest.trim()
}

export function isBot(author: Author): boolean {
  return author.type === 'Bot' || author.login.toLowerCase().endsWith('[bot]')
}

export function readTrigger(eventName: string, payload: unknown, phrase: string): Trigger {
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
  if (isBot(author)) return { kind: 'skip', reason: `${author.login} is a bot; bots never trigger a run.` }
  if (body.trimStart().startsWith(OWN_COMMENT_MARK)) {
    return { kind: 'skip', reason: 'The comment is one of the action’s own.' }
  }

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
    kind: 'comment',
    event: eventName,
    thread,
    instruction: fresh ? instruction.slice(3).trim() : instruction,
    fresh,
    author,
    ...(eventName === 'issue_comment' && Number.isInteger(comment.id)
      ? { commentId: comment.id as number }
      : {}),
    commentUrl: text(source.html_url) || thread.url
  }
}
