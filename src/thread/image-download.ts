import { CancelledError, timeLimit, type Clock } from '../clock.js'
import { IMAGE_SIGNATURE_BYTES, imageType } from '../image-type.js'
import { MAX_IMAGES_BYTES } from '../settings/images.js'

/**
 * A thread's image downloaded (issue 45): from GitHub's own image hosts alone, over HTTPS, never
 * with a credential, within its bytes and its time, its type told by its first bytes. A signed
 * image URL is a credential for a while: no text made here holds a URL or its query.
 */

/** Where a thread's images may be fetched from (imageHosts): exact origins and exact path prefixes. */
export interface ImageHosts {
  /** Origins (scheme://host[:port], as `URL.origin` writes them) any of whose paths may be fetched. */
  readonly origins: readonly string[]
  /** Prefixes (origin and the start of a path) under which an address may be fetched. */
  readonly prefixes: readonly string[]
}

export type DownloadedImage =
  | { ok: true; dataUri: string; bytes: number }
  | { ok: false; why: 'too-big' | 'not-an-image' | 'failed'; detail: string }

type NotDownloaded = Extract<DownloadedImage, { ok: false }>

/** GitHub's hosts of attachments: the signed private one body_html links to, and the older public one. */
const GITHUB_IMAGE_ORIGINS = [
  'https://private-user-images.githubusercontent.com',
  'https://user-images.githubusercontent.com'
]
/**
 * An attachment's link as the text writes it; without a credential GitHub answers it, for a public
 * repository, with a redirect to its signed address (a private one's answers 404). Not the rest of
 * github.com, and never camo.githubusercontent.com, which proxies any host of the internet.
 */
const GITHUB_ATTACHMENT_PREFIX = 'https://github.com/user-attachments/assets/'
const GITHUB_ORIGIN = 'https://github.com'

/** At most this long an address is looked at (a signed one is about 1,000 characters). */
const MAX_URL_CHARS = 16 * 1024
/** At most these redirects an image follows (an attachment's link to its signed address is one). */
export const MAX_IMAGE_REDIRECTS = 3
/** Each image's time, from its request to its last byte. */
export const IMAGE_TIME_LIMIT_MS = 30_000

/**
 * GitHub's image hosts, over HTTPS; and for another server than github.com (GitHub Enterprise
 * Server, or the sample GitHub of the local run on loopback) its own origin exactly, with its
 * `media.` host where subdomain isolation serves uploads, same scheme and port.
 */
export function imageHosts(serverUrl: string): ImageHosts {
  const origins = [...GITHUB_IMAGE_ORIGINS]
  const server = parsed(serverUrl)
  if (server && server.origin !== 'null' && server.origin !== GITHUB_ORIGIN) {
    origins.push(server.origin)
    if (!isIpAddress(server.hostname)) {
      const media = new URL(server.origin)
      media.hostname = `media.${server.hostname}`
      origins.push(media.origin)
    }
  }
  return { origins, prefixes: [GITHUB_ATTACHMENT_PREFIX] }
}

/**
 * Whether `url` may be fetched: absolute, no userinfo (a credential in the address is refused, even
 * an empty one), and its origin one of `hosts`' exactly (scheme, host and port), or under one of
 * its prefixes. data:, file:, relative paths and every other host are not.
 */
export function isFetchable(url: string, hosts: ImageHosts): boolean {
  if (url.length > MAX_URL_CHARS) return false
  const address = parsed(url)
  if (!address || address.username !== '' || address.password !== '') return false
  if (hasUserinfo(url)) return false
  if (hosts.origins.includes(address.origin)) return true
  const path = `${address.origin}${address.pathname}`
  return hosts.prefixes.some(prefix => path.startsWith(prefix) && path.length > prefix.length)
}

function parsed(url: string): URL | undefined {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

/** An `@` in the authority as written: `https://@host/` parses to an empty user, but asks for one. */
function hasUserinfo(url: string): boolean {
  const start = url.indexOf('//')
  if (start < 0) return false
  const rest = url.slice(start + 2)
  const end = rest.search(/[/\\?#]/)
  return (end < 0 ? rest : rest.slice(0, end)).includes('@')
}

function isIpAddress(hostname: string): boolean {
  return hostname.startsWith('[') || /^[\d.]+$/.test(hostname)
}

export interface ImageDownloadDeps {
  /** The images' own fetch (Network.images): nothing of the action's credentials rides on it. */
  fetch: typeof fetch
  clock: Clock
  /** The step's deadline and the job's cancellation: when it aborts, the download rejects. */
  signal: AbortSignal
  hosts: ImageHosts
}

/** The reason the image's own time limit aborts its request with. */
class ImageTimeout extends Error {
  constructor() {
    super(`no whole answer within ${IMAGE_TIME_LIMIT_MS / 1000} s`)
  }
}

const NOT_AN_IMAGE = 'it is not a PNG, JPEG, GIF or WebP image'

/** The body was read past the bytes allowed: the reading stops there. */
class TooBig extends Error {}

/** The first bytes are not of an image: the reading stops there. */
class NotAnImage extends Error {}

/**
 * Downloads one image: GET without a credential (`credentials: 'omit'`, no header but its own),
 * each redirect's Location checked by isFetchable (at most MAX_IMAGE_REDIRECTS), at most `maxBytes`
 * of the image read (itself at most the service's 10 MiB; the body cancelled past it; its data URI
 * takes 4 characters for every 3 of them, and its head), at most 30 s on the clock.
 * Resolves for anything about the image, never with its URL in `detail`; rejects with
 * CancelledError only when `deps.signal` aborted (the caller's deadline or cancellation: the caller
 * then downloads no more), so a failure is always a resolved `{ ok: false }`.
 */
export async function downloadImage(
  url: string,
  deps: ImageDownloadDeps,
  maxBytes: number
): Promise<DownloadedImage> {
  if (!isFetchable(url, deps.hosts))
    return failed('failed', "its address is not on GitHub's image hosts over HTTPS, or holds a credential")
  if (deps.signal.aborted) throw new CancelledError()
  const cap = Math.max(0, Math.min(maxBytes, MAX_IMAGES_BYTES))
  const limit = timeLimit(deps.clock, IMAGE_TIME_LIMIT_MS, new ImageTimeout())
  const signal = AbortSignal.any([deps.signal, limit.signal])
  try {
    const response = await follow(new URL(url).href, deps, signal)
    if ('why' in response) return response
    const bytes = await readCapped(response, cap, signal)
    const type = imageType(bytes)
    if (!type) return failed('not-an-image', NOT_AN_IMAGE)
    return { ok: true, dataUri: `data:image/${type};base64,${bytes.toString('base64')}`, bytes: bytes.length }
  } catch (error) {
    if (deps.signal.aborted) throw new CancelledError()
    return failure(error, limit.signal.aborted, cap)
  } finally {
    limit.clear()
  }
}

function failed(why: NotDownloaded['why'], detail: string): NotDownloaded {
  return { ok: false, why, detail }
}

/** What a throw on the way means, in words of our own: an error's message may hold the address. */
function failure(error: unknown, timedOut: boolean, cap: number): NotDownloaded {
  if (error instanceof TooBig) return failed('too-big', `it is larger than ${size(cap)}`)
  if (error instanceof NotAnImage) return failed('not-an-image', NOT_AN_IMAGE)
  if (timedOut) return failed('failed', new ImageTimeout().message)
  const code = errorCode(error)
  return failed('failed', code ? `no answer from its host (${code})` : 'no whole answer from its host')
}

/** 10 MiB, 512 KiB, 900 bytes. */
function size(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`
  return bytes >= 1024 ? `${Math.round((bytes / 1024) * 10) / 10} KiB` : `${bytes} bytes`
}

/** A system error's code (ECONNREFUSED, UND_ERR_SOCKET): a word, never an address. */
function errorCode(error: unknown): string | undefined {
  // Not `instanceof Error`: Node's own errors may come from another realm (a worker, a test's VM).
  let cause = error
  for (let depth = 0; typeof cause === 'object' && cause !== null && depth < 4; depth++) {
    const { code, cause: next } = cause as { code?: unknown; cause?: unknown }
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code
    cause = next
  }
  return undefined
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** The request and its redirects, each checked before it is sent: the final 2xx answer, or why not. */
async function follow(
  url: string,
  deps: ImageDownloadDeps,
  signal: AbortSignal
): Promise<Response | NotDownloaded> {
  let current = url
  for (let redirects = 0; ; redirects++) {
    const response = await deps.fetch(current, {
      method: 'GET',
      redirect: 'manual',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      cache: 'no-store',
      headers: { accept: 'image/png, image/jpeg, image/gif, image/webp', 'accept-encoding': 'identity' },
      signal
    })
    if (response.ok) return response
    await response.body?.cancel().catch(() => undefined)
    if (!REDIRECTS.has(response.status)) return failed('failed', `its host answered HTTP ${response.status}`)
    if (redirects >= MAX_IMAGE_REDIRECTS)
      return failed('failed', `more than ${MAX_IMAGE_REDIRECTS} redirects`)
    const location = response.headers.get('location')
    const next = location === null ? undefined : parsed(resolveLocation(location, current))
    if (!next || !isFetchable(next.href, deps.hosts) || hasUserinfo(location ?? ''))
      return failed('failed', "its host redirected it off GitHub's image hosts")
    current = next.href
  }
}

function resolveLocation(location: string, base: string): string {
  try {
    return new URL(location, base).href
  } catch {
    return ''
  }
}

/**
 * The body, read as it streams: no more than `cap` bytes kept (a Content-Length above it refused
 * unread), the first bytes checked as soon as they arrive, the rest cancelled on any refusal.
 */
async function readCapped(response: Response, cap: number, signal: AbortSignal): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? NaN)
  const body = response.body
  if (Number.isFinite(declared) && declared > cap) {
    await body?.cancel().catch(() => undefined)
    throw new TooBig()
  }
  if (!body) return Buffer.alloc(0)
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let length = 0
  let typed = false
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason
      const { done, value } = await reader.read()
      if (done) break
      length += value.byteLength
      if (length > cap) throw new TooBig()
      chunks.push(value)
      if (!typed && length >= IMAGE_SIGNATURE_BYTES) {
        if (!imageType(Buffer.concat(chunks))) throw new NotAnImage()
        typed = true
      }
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined)
    throw error
  }
  return Buffer.concat(chunks, length)
}
