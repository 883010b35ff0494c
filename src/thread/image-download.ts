import type { Clock } from '../clock.js'

/**
 * PLACEHOLDER of b45's downloader (SPLIT.md's signature), until branch b45 is merged: the hosts and
 * the fetchable rule only; its download reads the answer whole, without b45's checks.
 */

export interface ImageHosts {
  hosts: ReadonlySet<string>
  serverOrigin: string
}

const GITHUB_IMAGE_HOSTS = [
  'github.com',
  'user-images.githubusercontent.com',
  'private-user-images.githubusercontent.com'
]

export function imageHosts(serverUrl: string): ImageHosts {
  let serverOrigin = ''
  try {
    serverOrigin = new URL(serverUrl).origin
  } catch {
    serverOrigin = ''
  }
  return { hosts: new Set(GITHUB_IMAGE_HOSTS), serverOrigin }
}

export function isFetchable(url: string, hosts: ImageHosts): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.username || parsed.password) return false
  if (parsed.origin === hosts.serverOrigin) return true
  return parsed.protocol === 'https:' && hosts.hosts.has(parsed.hostname)
}

export type DownloadedImage =
  | { ok: true; dataUri: string; bytes: number }
  | { ok: false; why: 'too-big' | 'not-an-image' | 'failed'; detail: string }

export async function downloadImage(
  url: string,
  deps: { fetch: typeof fetch; clock: Clock; signal: AbortSignal; hosts: ImageHosts },
  maxBytes: number
): Promise<DownloadedImage> {
  try {
    const response = await deps.fetch(url, { signal: deps.signal, redirect: 'manual' })
    if (!response.ok) return { ok: false, why: 'failed', detail: `HTTP ${response.status}` }
    const bytes = Buffer.from(await response.arrayBuffer())
    if (bytes.length > maxBytes) return { ok: false, why: 'too-big', detail: `over ${maxBytes} bytes` }
    const type = bytes.subarray(1, 4).toString('latin1') === 'PNG' ? 'png' : undefined
    if (!type) return { ok: false, why: 'not-an-image', detail: 'not a PNG' }
    return { ok: true, dataUri: `data:image/${type};base64,${bytes.toString('base64')}`, bytes: bytes.length }
  } catch (error) {
    return { ok: false, why: 'failed', detail: (error as Error).name }
  }
}
