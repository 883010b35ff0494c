/** Errors of the service boundary, each able to say what it means to a workflow author. */

// The job's cancellation belongs to the clock (its waits end with it); named here beside the others.
export { CancelledError } from '../clock.js'

export class ServiceError extends Error {
  constructor(
    message: string,
    readonly httpStatus?: number
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

/** The step's own time limit was reached (waiting for the service included: a retry, a rate window). */
export class DeadlineError extends Error {
  constructor() {
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
        .map(item => {
          const { loc, msg } = (item ?? {}) as { loc?: unknown; msg?: unknown }
          const where = Array.isArray(loc) ? loc.filter(part => part !== 'body').join('.') : ''
          return where ? `${where}: ${String(msg)}` : String(msg)
        })
        .join('; ')
    }
  }
  return rawBody.trim().slice(0, 300)
}

/** A body that is not JSON: a gateway's HTML error page reads as its title (or its text), not its markup. */
function plainText(rawBody: string): string {
  if (!/<(?:!doctype|html|body)\b/i.test(rawBody)) return rawBody.trim().slice(0, 300)
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(rawBody)?.[1]?.trim()
  return (title || rawBody.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim().slice(0, 300)
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
