/** Errors of the service boundary, each able to say what it means to a workflow author. */

// The job's cancellation belongs to the clock (its waits end with it); named here beside the others.
export { CancelledError } from '../clock.js'

/**
 * What the last try of a call met, kept on the error that ends its retries (out of time or out of
 * tries): so a caller can say what happened (a status, a connection's error, no answer in time).
 */
export interface LastTry {
  /** The transport's words: "service error 500: …", "connection failed (ECONNRESET)". */
  reason: string
  /** The status the service answered, when it answered one (a 5xx, a 429). */
  httpStatus?: number
  /** The service's own words with that status. */
  detail?: string
  /** The connection's error (ECONNRESET), when the request got no answer. */
  connection?: string
  /** No answer within the request's time limit. */
  timedOut?: boolean
}

export class ServiceError extends Error {
  constructor(
    message: string,
    readonly httpStatus?: number,
    /** A call that ran out of tries: what its last one met. */
    readonly lastTry?: LastTry
  ) {
    super(message)
    this.name = 'ServiceError'
  }
}

/**
 * A write whose fate is unknown: the request may have reached the service (reset after sending,
 * time-out, 5xx, unreadable answer). It must not be blindly sent again.
 */
export class AmbiguousWriteError extends ServiceError {
  constructor(message: string, httpStatus?: number) {
    super(message, httpStatus)
    this.name = 'AmbiguousWriteError'
  }
}

/** An answer past the size the action reads (its read was stopped there): the same request would get it again. */
export class OversizedAnswerError extends ServiceError {
  constructor(message: string) {
    super(message)
    this.name = 'OversizedAnswerError'
  }
}

/**
 * The service has no such endpoint (404 or 405 on a path no published document describes, such as
 * the beta stop path): distinct from its refusals, so the caller can say so and go on without it.
 */
export class UnsupportedEndpointError extends ServiceError {
  constructor(what: string, httpStatus: number) {
    super(`The service has no endpoint to ${what} (${httpStatus}).`, httpStatus)
    this.name = 'UnsupportedEndpointError'
  }
}

/** The step's own time limit was reached (waiting for the service included: a retry, a rate window). */
export class DeadlineError extends Error {
  /** `lastTry`: what the call's last try met, when its retries ran out of time. */
  constructor(readonly lastTry?: LastTry) {
    super('timeout-minutes was reached')
    this.name = 'DeadlineError'
  }
}

/** The service's words go into errors, the console and the summary: a flood is cut. */
const MESSAGE_CHARS = 1_000

/** Reads the service's error text: `message`, then `detail` (text or FastAPI's list), then the raw body. */
export function serviceMessage(rawBody: string): string {
  const text = readMessage(rawBody)
  return text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS - 1)}…` : text
}

function readMessage(rawBody: string): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(rawBody)
  } catch {
    return plainText(rawBody)
  }
  if (parsed && typeof parsed === 'object') {
    const body = parsed as { message?: unknown; detail?: unknown }
    if (typeof body.message === 'string' && body.message) return body.message
    if (typeof body.detail === 'string' && body.detail) return body.detail
    if (Array.isArray(body.detail)) {
      return body.detail
        .slice(0, 100)
        .map(item => {
          const { loc, msg } = (item ?? {}) as { loc?: unknown; msg?: unknown }
          const where = Array.isArray(loc)
            ? loc
                .filter(part => part !== 'body')
                .map(scalarText)
                .join('.')
            : ''
          return where ? `${where}: ${scalarText(msg)}` : scalarText(msg)
        })
        .join('; ')
    }
  }
  return rawBody.slice(0, BODY_CHARS).trim().slice(0, 300)
}

/** A value of the service's JSON as text without walking into it (it may be nested thousands deep). */
const scalarText = (value: unknown): string =>
  value !== null && typeof value === 'object' ? (Array.isArray(value) ? '[…]' : '{…}') : String(value)

/** An error page's title is near its top: only this much of a body that is not JSON is read. */
const BODY_CHARS = 64 * 1024

/**
 * A body that is not JSON: a gateway's HTML error page reads as its title (or its text), not its
 * markup. Read with indexOf, each character looked at a bounded number of times: a body of many
 * `<` without `>` costs no more than any other.
 */
function plainText(rawBody: string): string {
  const body = rawBody.slice(0, BODY_CHARS)
  const lower = body.toLowerCase()
  if (!/<(?:!doctype|html|body)\b/.test(lower)) return body.trim().slice(0, 300)
  return (htmlTitle(body, lower) || withoutTags(body)).replace(/\s+/g, ' ').trim().slice(0, 300)
}

/** The text of the first `<title …>text</title>`, or ''. */
function htmlTitle(body: string, lower: string): string {
  const open = lower.indexOf('<title')
  const start = open < 0 ? -1 : lower.indexOf('>', open)
  const end = start < 0 ? -1 : lower.indexOf('<', start + 1)
  return end >= 0 && lower.startsWith('</title>', end) ? body.slice(start + 1, end).trim() : ''
}

/** Every `<…>` replaced by a blank; a `<` with no `>` after it is text. */
function withoutTags(body: string): string {
  let out = ''
  let at = 0
  for (let open = body.indexOf('<'); open >= 0; open = body.indexOf('<', at)) {
    const close = body.indexOf('>', open)
    if (close < 0) break
    out += `${body.slice(at, open)} `
    at = close + 1
  }
  return out + body.slice(at)
}

/** What an HTTP error status means for this action's user, with the service's own words appended. */
export function describeHttpError(status: number, what: string, detail: string): string {
  const said = detail ? ` The service said: ${detail}` : ''
  switch (status) {
    case 401:
      return `Authentication failed (401) while trying to ${what}: check the api-token input (a Codegen API token).${said}`
    case 402:
      return `The organization's agent run allowance is used up (402) while trying to ${what}: upgrade the plan or wait for the allowance to renew.${said}`
    case 403:
      return `Permission denied (403) while trying to ${what}: the token may not act on this organization; check org-id and the token's access.${said}`
    case 404:
      return `Not found (404) while trying to ${what}: check org-id, agent-run-id and repo-id.${said}`
    case 422:
      return `The service rejected the request as invalid (422) while trying to ${what}.${said}`
    case 429:
      return `The service kept answering "rate limit exceeded" (429) while trying to ${what}.${said}`
    default:
      return status >= 500
        ? `The service failed (${status}) while trying to ${what}.${said}`
        : `Unexpected answer (${status}) while trying to ${what}.${said}`
  }
}
