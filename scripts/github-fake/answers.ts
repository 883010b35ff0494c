import type { GitHubErrorBody } from './shapes.js'

/** What the fake's handlers answer with, and the small helpers of GitHub's wire format. */

export const DOCS = 'https://docs.github.com/rest'

/** What a handler produces: a JSON value with a status and extra headers. */
export interface Answer {
  status: number
  value: unknown
  headers?: Record<string, string>
  /** Bytes answered as they are, in place of `value`'s JSON (an image of the server's own origin). */
  raw?: { body: Buffer; type: string }
}

export const json = (value: unknown, status = 200, headers?: Record<string, string>): Answer => ({
  status,
  value,
  headers
})

export const gitHubError = (
  status: number,
  message: string,
  documentationUrl = DOCS,
  errors?: GitHubErrorBody['errors']
): Answer =>
  json(
    errors
      ? ({ message, errors, documentation_url: documentationUrl } satisfies GitHubErrorBody)
      : ({ message, documentation_url: documentationUrl } satisfies GitHubErrorBody),
    status
  )

export const notFound = (documentationUrl = DOCS): Answer => gitHubError(404, 'Not Found', documentationUrl)

/** How GitHub's request-schema errors show a value (Ruby's inspect, near enough). */
export const shown = (value: unknown): string =>
  value === undefined || value === null ? 'nil' : JSON.stringify(value)

/** GitHub's ISO 8601 timestamps have no fraction of a second. */
export const timestamp = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/** The legacy (base64 of "type length:Type id") global node id. */
export const nodeId = (type: string, id: number): string =>
  Buffer.from(`${String(type.length).padStart(2, '0')}:${type}${id}`).toString('base64')

/** The addresses GitHub's simple-user gives beside its `url` (an account's lists and feeds). */
export const userAddresses = (url: string): Record<string, string> => ({
  followers_url: `${url}/followers`,
  following_url: `${url}/following{/other_user}`,
  gists_url: `${url}/gists{/gist_id}`,
  starred_url: `${url}/starred{/owner}{/repo}`,
  subscriptions_url: `${url}/subscriptions`,
  organizations_url: `${url}/orgs`,
  repos_url: `${url}/repos`,
  events_url: `${url}/events{/privacy}`,
  received_events_url: `${url}/received_events`
})

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A positive integer path parameter; GitHub answers 404 to anything else. */
export function positiveInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined
  const value = Number(text)
  return value > 0 ? value : undefined
}
