import { getOctokit } from '@actions/github'
import { FakeGitHub, type FakeGitHubOptions } from '../../scripts/github-fake/index.js'

/**
 * The world of the fake GitHub's own tests (test/fakes/github-fake/): one fake at a time over real HTTP on
 * loopback, asked by plain Octokit as the action's client is made (@actions/github's getOctokit, no
 * retries nor waits of its own) and by plain requests for what Octokit hides. Importing it registers
 * the hook that stops the fake after each test.
 */

export const TOKEN = 'github-token'
export const REPO = { owner: 'octo-org', repo: 'octo-repo' }
export const ISSUE = `/repos/${REPO.owner}/${REPO.repo}/issues`
export const ACTOR = { login: 'github-actions[bot]', type: 'Bot' as const }
export const ALICE = { login: 'alice', type: 'User' as const }
export const DOCS = 'https://docs.github.com/rest'
/** Octokit logs every failed request; here failures are expected. */
const QUIET = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined }

export let fake: FakeGitHub
export let octokit: ReturnType<typeof getOctokit>

/** A plain Octokit on the fake with `token`. */
export function octokitWith(token: string): ReturnType<typeof getOctokit> {
  return getOctokit(token, { baseUrl: fake.baseUrl, log: QUIET })
}

/** A fresh fake (the previous one, if any, stopped), and an Octokit on it with its token. */
export async function startFake(options: FakeGitHubOptions = {}): Promise<void> {
  await fake?.stop()
  fake = new FakeGitHub(options)
  await fake.start()
  octokit = octokitWith(TOKEN)
}

afterEach(async () => {
  await fake?.stop()
})

export interface Reply {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
  headers: Headers
}

/** A plain request, for what Octokit hides: raw statuses, headers and bodies. */
export async function call(
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; authorization?: string | null } = {}
): Promise<Reply> {
  const headers: Record<string, string> = {}
  const authorization = options.authorization === undefined ? `token ${TOKEN}` : options.authorization
  if (authorization !== null) headers.authorization = authorization
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(fake.baseUrl + path, { method, headers, body })
  const text = await response.text()
  return { status: response.status, body: JSON.parse(text), headers: response.headers }
}

/** The status of Octokit's RequestError, or of the answer when there was none. */
export async function statusOf(request: Promise<{ status: number }>): Promise<number> {
  try {
    return (await request).status
  } catch (error) {
    return (error as { status: number }).status
  }
}
