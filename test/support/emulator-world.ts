import { AgentRunEmulator, systemServerClock, type EmulatorOptions } from '../../emulator/index.js'
import { conformanceCheck } from './openapi.js'

/**
 * The world of the emulator's own tests (test/fakes/emulator/): one emulator at a time over real HTTP on
 * loopback, on a clock moved by hand (or a test's virtual clock, `startEmulator({ clock })`), every
 * answer checked against the OpenAPI document. Importing it registers the hooks.
 */

export const TOKEN = 'emulator-token'
export const ORG = '/v1/organizations/1'
export const START = Date.parse('2025-06-21T11:20:04.338Z')

export let emulator: AgentRunEmulator
/** The emulator's clock, moved by hand (`clock.time += 1_000`); back at START with each emulator. */
export const clock = { time: START }
/** Every answer of every emulator of the test, checked against the OpenAPI document. */
export let conformance = conformanceCheck()

/** A fresh emulator (the previous one, if any, stopped). */
export async function startEmulator(options: EmulatorOptions = {}): Promise<void> {
  await emulator?.stop()
  clock.time = START
  emulator = new AgentRunEmulator({
    clock: systemServerClock(() => clock.time),
    onAnswer: conformance.onAnswer,
    ...options
  })
  await emulator.start()
}

beforeEach(() => {
  conformance = conformanceCheck()
})

afterEach(async () => {
  await emulator?.stop()
  expect(conformance.problems).toEqual([])
})

export interface Reply {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
  text: string
  headers: Headers
}

export interface RequestOptions {
  body?: unknown
  /** A body sent as it is, not as JSON. */
  raw?: string
  /** The bearer token; null sends none. */
  token?: string | null
  contentType?: string
}

/** One request to the emulator; its answer's body parsed as JSON (undefined when not JSON: see text). */
export async function request(
  method: 'GET' | 'POST',
  path: string,
  options: RequestOptions = {}
): Promise<Reply> {
  const headers: Record<string, string> = {}
  const token = options.token === undefined ? TOKEN : options.token
  if (token !== null) headers.authorization = `Bearer ${token}`
  let body: string | undefined
  if (options.raw !== undefined || options.body !== undefined) {
    body = options.raw ?? JSON.stringify(options.body)
    headers['content-type'] = options.contentType ?? 'application/json'
  }
  const response = await fetch(emulator.baseUrl + path, { method, headers, body })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return { status: response.status, body: parsed, text, headers: response.headers }
}
