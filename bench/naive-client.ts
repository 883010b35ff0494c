/**
 * The naive client the action is compared with: what a loop around an SDK does. It creates the run,
 * then every `intervalMs` reads the run and re-reads the whole log from the start, page by page,
 * until the status is terminal. A refused or failed request is counted and tried again at the next
 * round. Plain node fetch, no budget, no backoff beyond the fixed interval.
 */

import { setTimeout as sleep } from 'node:timers/promises'

export interface NaiveOptions {
  baseUrl: string
  token: string
  orgId: number
  intervalMs: number
  prompt: string
  /** Epoch ms with sub-millisecond resolution (the benchmark's clock). */
  now: () => number
}

export interface NaiveResult {
  runId: number
  /** When the loop saw the terminal status (it has no process to exit). */
  sawEndAt: number
  requests: number
  rateLimited: number
  entries: number
}

const TERMINAL = new Set([
  'COMPLETE',
  'COMPLETED',
  'ERROR',
  'FAILED',
  'CANCELLED',
  'STOPPED',
  'TIMEOUT',
  'MAX_ITERATIONS_REACHED',
  'OUT_OF_TOKENS',
  'PAUSED'
])

export async function naiveFollow(options: NaiveOptions): Promise<NaiveResult> {
  const headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' }
  const org = `${options.baseUrl}/v1/organizations/${options.orgId}`
  let requests = 0
  let rateLimited = 0
  const call = async (url: string, init: RequestInit = {}): Promise<Record<string, unknown> | undefined> => {
    requests++
    try {
      const response = await fetch(url, { ...init, headers })
      const body = await response.text()
      if (response.status === 429) rateLimited++
      return response.ok ? (JSON.parse(body) as Record<string, unknown>) : undefined
    } catch {
      // A keep-alive connection the server closed as it was reused: this round is lost.
      return undefined
    }
  }

  let created: Record<string, unknown> | undefined
  while (!created) {
    created = await call(`${org}/agent/run`, {
      method: 'POST',
      body: JSON.stringify({ prompt: options.prompt })
    })
    if (!created) await sleep(options.intervalMs)
  }
  const runId = created.id as number
  for (;;) {
    const run = await call(`${org}/agent/run/${runId}`)
    let entries = 0
    for (let skip = 0; run; skip += 100) {
      const page = await call(`${org}/agent/run/${runId}/logs?skip=${skip}&limit=100`)
      const logs = (page?.logs as unknown[] | undefined) ?? []
      entries += logs.length
      if (!page || logs.length < 100) break
    }
    const status = typeof run?.status === 'string' ? run.status.toUpperCase() : ''
    if (TERMINAL.has(status)) return { runId, sawEndAt: options.now(), requests, rateLimited, entries }
    await sleep(options.intervalMs)
  }
}
