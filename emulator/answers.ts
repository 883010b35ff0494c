import { STATUS_CODES } from 'node:http'
import type { Fault, Page, ServiceErrorBody } from './types.js'

/** What the emulator answers with: JSON bodies, the service's error bodies, faults' bodies, pages. */

/** What a handler produces; `value` is sent as JSON, `text` as is. */
export interface Answer {
  status: number
  value?: unknown
  text?: string
  contentType?: string
  headers?: Record<string, string>
}

export const json = (value: unknown, status = 200, headers?: Record<string, string>): Answer => ({
  status,
  value,
  headers
})

/** The live service's own errors: `{"message": ..., "status_code": ...}` (OpenAPI's defaults). */
export const MESSAGES: Record<number, string> = {
  401: 'Invalid or missing API token.',
  402: 'Alloted agent runs for the current billing plan have been reached. Please upgrade your plan to continue.',
  403: 'You do not have access to this organization.',
  404: 'Agent run not found.',
  429: 'Rate limit exceeded. Please try again later.'
}

export const serviceError = (
  status: number,
  message = MESSAGES[status] ?? STATUS_CODES[status] ?? 'Error'
): Answer => json({ message, status_code: status } satisfies ServiceErrorBody, status)

export const NO_REPOS_FOUND = 'No repos found in the organization. Please add some repos and try again.'

/** Default bodies of injected status faults: what each status looks like when it comes from where it would. */
export function faultAnswer(fault: Extract<Fault, { kind: 'status' }>): Answer {
  const headers = fault.retryAfter === undefined ? undefined : { 'retry-after': String(fault.retryAfter) }
  const { status } = fault
  if (fault.body !== undefined) {
    return typeof fault.body === 'string'
      ? { status, text: fault.body, contentType: 'text/plain; charset=utf-8', headers }
      : json(fault.body, status, headers)
  }
  if (MESSAGES[status]) return { ...serviceError(status), headers }
  // Starlette's answer to an unhandled exception.
  if (status === 500)
    return { status, text: 'Internal Server Error', contentType: 'text/plain; charset=utf-8', headers }
  // Gateway errors come from the load balancer in front of the service, as HTML.
  if (status >= 502 && status <= 504) {
    const title = `${status} ${STATUS_CODES[status]}`
    const text = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n</body>\r\n</html>\r\n`
    return { status, text, contentType: 'text/html', headers }
  }
  return json({ detail: STATUS_CODES[status] ?? 'Error' }, status, headers)
}

export function encode(answer: Answer): { body: string; contentType: string } {
  if (answer.text !== undefined) return { body: answer.text, contentType: answer.contentType ?? 'text/plain' }
  return { body: JSON.stringify(answer.value), contentType: 'application/json' }
}

export function pageOf<T>(all: T[], skip: number, limit: number): Page<T> {
  return {
    items: all.slice(skip, skip + limit),
    total: all.length,
    page: Math.floor(skip / limit) + 1,
    size: limit,
    pages: Math.ceil(all.length / limit)
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The refusal of a create in an organization whose GitHub integration is inactive (an assumption: not documented). */
export const GITHUB_INACTIVE = 'The GitHub integration of this organization is not active.'
