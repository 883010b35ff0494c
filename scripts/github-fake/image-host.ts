import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { close, listen, systemServerClock, type ServerClock } from '../../emulator/loopback-server.js'

/**
 * GitHub's image hosts as a thread's images are fetched from them (issue 45), on a loopback address
 * of their own (127.0.0.3 by default), and as hostile as a host can be: each request's headers
 * recorded (an Authorization or Cookie header is something the action must never send), and modes
 * that answer an image, a gigabyte, an endless or a trickling answer, a held connection, an HTML
 * page, an SVG, redirects off the hosts or to file:, or a chain of redirects.
 *
 * The action asks https://private-user-images.githubusercontent.com/… (or another of GitHub's image
 * hosts); `routedToImageHost` is a fetch for the network's `images` side that sends those to this
 * host as http://127.0.0.3:PORT/<the host asked>/<path>?<query>, passes loopback addresses (the
 * server's own origin) as they are, and refuses any other, recording it (no traffic leaves loopback).
 *
 * An address on private-user-images.githubusercontent.com holds a signature (`jwt=`) valid for
 * five minutes, as GitHub's do (`signedUrl`); a request without a valid one is answered 404.
 */

/** The modes, the first segment of an address's path. */
export const IMAGE_HOST_MODES = [
  'png',
  'jpeg',
  'gif',
  'webp',
  /** 1 GB declared in Content-Length, and streamed as fast as it is read. */
  'gigabyte',
  /** An image's first bytes, then more as fast as they are read, never ending, no length. */
  'endless',
  /** An image's first bytes, then 1 KiB every second of the clock, never ending. */
  'trickle',
  /** No answer at all, until the connection closes. */
  'hold',
  /** The head and an image's first bytes, then nothing, until the connection closes. */
  'hold-body',
  /** 200 with an HTML page. */
  'html',
  /** 500 with GitHub's HTML error page. */
  'error',
  'svg',
  /** 302 to another host (https://images.example.com/…). */
  'redirect-other',
  /** 302 to file:///etc/passwd. */
  'redirect-file',
  /** `?hops=N` redirects in all (relative Locations on the same host), the last to a PNG. */
  'chain'
] as const
export type ImageHostMode = (typeof IMAGE_HOST_MODES)[number]

export const PRIVATE_IMAGES_HOST = 'private-user-images.githubusercontent.com'
/** The hosts routedToImageHost sends here: GitHub's image hosts and github.com's attachments. */
const ROUTED_HOSTS = [PRIVATE_IMAGES_HOST, 'user-images.githubusercontent.com', 'github.com']
/** How long a signed address holds (GitHub's jwt: five minutes). */
export const SIGNED_URL_TTL_MS = 5 * 60_000
/** The default size of an image of the png/jpeg/gif/webp modes. */
const IMAGE_BYTES = 2048
const CHUNK_BYTES = 64 * 1024
const GIGABYTE = 1024 ** 3

const FIRST_BYTES: Record<'png' | 'jpeg' | 'gif' | 'webp', Buffer> = {
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]),
  gif: Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00', 'latin1'),
  webp: Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1')
}

/** An image of `type` of `bytes` bytes: its first bytes, then a pattern. */
export function imageBytes(type: keyof typeof FIRST_BYTES, bytes = IMAGE_BYTES): Buffer {
  const image = Buffer.alloc(Math.max(bytes, FIRST_BYTES[type].length), 0x5a)
  FIRST_BYTES[type].copy(image)
  return image
}

const HTML_PAGE =
  '<!DOCTYPE html><html><head><title>Page not found · GitHub</title></head><body>404</body></html>'
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>'

export interface ImageHostOptions {
  /**
   * The one `jwt` every signed address carries (the fake GitHub's imageToken), checked as it is;
   * without it, each address the host signs holds for five minutes.
   */
  token?: string
}

/** One request the host received, in order. */
export interface ImageHostRequest {
  /** On the host's clock. */
  at: number
  method: string
  /** The host the action asked for (routedToImageHost's first segment). */
  host: string
  path: string
  /** Every header as received (the virtual clock's own x-virtual-request among them). */
  headers: Record<string, string | string[] | undefined>
  status: number
  /** Bytes of the body written, as far as the action read (or the sockets took). */
  bytesWritten: number
  /** When the connection closed, on the host's clock (undefined while it is open). */
  closedAt?: number
}

export class FakeImageHost {
  /** Every request, in order of arrival. */
  readonly requests: ImageHostRequest[] = []
  /** Addresses routedToImageHost refused to send anywhere (their query left out). */
  readonly refused: string[] = []
  private readonly key = randomBytes(32)
  private listening: { server: Server; url: string } | undefined

  /** Paths that answer a mode of their own (serveAt): the fake GitHub's signed addresses. */
  private readonly served = new Map<string, { mode: ImageHostMode; size?: number }>()

  constructor(
    private readonly clock: ServerClock = systemServerClock(),
    private readonly options: ImageHostOptions = {}
  ) {}

  /**
   * An address's path (on any of the hosts) answers `mode`: for the signed addresses another fake
   * makes (the fake GitHub's body_html, `/4242/398000001-<id>.png`), whose paths name no mode.
   */
  serveAt(path: string, mode: ImageHostMode, options: { size?: number } = {}): void {
    this.served.set(path, { mode, ...options })
  }

  async start(host = '127.0.0.3'): Promise<string> {
    this.listening = await listen((request, response) => this.serve(request, response), 0, host)
    return this.listening.url
  }

  async stop(): Promise<void> {
    const listening = this.listening
    this.listening = undefined
    if (listening) await close(listening.server)
  }

  /** Where it listens, e.g. http://127.0.0.3:PORT. */
  get url(): string {
    if (!this.listening) throw new Error('The image host is not started')
    return this.listening.url
  }

  /**
   * A signed address on private-user-images.githubusercontent.com answering `mode`, as body_html
   * holds it; `size` is an image's bytes, `hops` a chain's redirects.
   */
  signedUrl(mode: ImageHostMode, name: string, options: { size?: number; hops?: number } = {}): string {
    const query = new URLSearchParams()
    if (options.size !== undefined) query.set('size', String(options.size))
    if (options.hops !== undefined) query.set('hops', String(options.hops))
    return this.sign(`/${mode}/${name}`, query)
  }

  private sign(path: string, query: URLSearchParams): string {
    const expires = this.clock.now() + SIGNED_URL_TTL_MS
    query.delete('jwt')
    const unsigned = `${path}?${query}`
    query.set('jwt', this.options.token ?? `${expires}.${this.signature(unsigned, expires)}`)
    return `https://${PRIVATE_IMAGES_HOST}${path}?${query}`
  }

  private signature(unsigned: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${unsigned}:${expires}`).digest('hex')
  }

  private verified(path: string, query: URLSearchParams): boolean {
    if (this.options.token !== undefined) return query.get('jwt') === this.options.token
    const [expires, given] = (query.get('jwt') ?? '').split('.')
    const rest = new URLSearchParams(query)
    rest.delete('jwt')
    const expected = Buffer.from(this.signature(`${path}?${rest}`, Number(expires)))
    const received = Buffer.from(given ?? '')
    return (
      received.length === expected.length &&
      timingSafeEqual(received, expected) &&
      Number(expires) >= this.clock.now()
    )
  }

  private serve(request: IncomingMessage, response: ServerResponse): void {
    const address = new URL(request.url ?? '/', 'http://image-host.fake')
    const [, host = '', ...rest] = address.pathname.split('/')
    const path = `/${rest.join('/')}`
    const record: ImageHostRequest = {
      at: this.clock.now(),
      method: request.method ?? 'GET',
      host,
      path,
      headers: { ...request.headers },
      status: 0,
      bytesWritten: 0
    }
    this.requests.push(record)
    request.resume()
    const closed = new Promise<void>(resolve =>
      response.once('close', () => {
        record.closedAt = this.clock.now()
        resolve()
      })
    )
    if (request.method !== 'GET') return this.text(response, record, 405, 'text/plain', 'Method Not Allowed')
    if (host === 'github.com') return this.attachment(response, record, path)
    if (host === PRIVATE_IMAGES_HOST && !this.verified(path, address.searchParams))
      return this.text(response, record, 404, 'text/plain', 'Not Found')
    const served = this.served.get(path)
    const mode = served?.mode ?? ((rest[0] ?? '') as ImageHostMode)
    if (!IMAGE_HOST_MODES.includes(mode)) return this.text(response, record, 404, 'text/plain', 'Not Found')
    const query = new URLSearchParams(address.searchParams)
    if (served?.size !== undefined) query.set('size', String(served.size))
    void this.answer(mode, { request, response, record, closed, query })
  }

  /** github.com/user-attachments/assets/<name>: a redirect to the PNG's signed address. */
  private attachment(response: ServerResponse, record: ImageHostRequest, path: string): void {
    const name = /^\/user-attachments\/assets\/([\w-]+)$/.exec(path)?.[1]
    if (!name) return this.text(response, record, 404, 'text/html', HTML_PAGE)
    this.redirect(response, record, this.signedUrl('png', name))
  }

  private async answer(mode: ImageHostMode, call: Call): Promise<void> {
    const { response, record, query } = call
    switch (mode) {
      case 'png':
      case 'jpeg':
      case 'gif':
      case 'webp': {
        const body = imageBytes(mode, Number(query.get('size') ?? IMAGE_BYTES))
        record.status = 200
        response.writeHead(200, { 'content-type': `image/${mode}`, 'content-length': String(body.length) })
        return this.stream(call, body.length, at => body.subarray(at, at + CHUNK_BYTES))
      }
      case 'gigabyte':
      case 'endless':
        record.status = 200
        response.writeHead(200, {
          'content-type': 'image/png',
          ...(mode === 'gigabyte' ? { 'content-length': String(GIGABYTE) } : {})
        })
        return this.stream(call, mode === 'gigabyte' ? GIGABYTE : Infinity, () =>
          imageBytes('png', CHUNK_BYTES)
        )
      case 'trickle':
        return this.trickle(call)
      case 'hold':
        await this.clock.hold(call.request, call.closed)
        return
      case 'hold-body':
        record.status = 200
        response.writeHead(200, { 'content-type': 'image/png' })
        this.write(call, FIRST_BYTES.png)
        await this.clock.hold(call.request, call.closed)
        return
      case 'html':
        return this.text(response, record, 200, 'text/html; charset=utf-8', HTML_PAGE)
      case 'error':
        return this.text(response, record, 500, 'text/html; charset=utf-8', HTML_PAGE)
      case 'svg':
        return this.text(response, record, 200, 'image/svg+xml', SVG)
      case 'redirect-other':
        return this.redirect(response, record, 'https://images.example.com/png/elsewhere.png')
      case 'redirect-file':
        return this.redirect(response, record, 'file:///etc/passwd')
      case 'chain': {
        const hops = Number(query.get('hops') ?? 0)
        const name = record.path.split('/')[2] ?? 'chain'
        if (hops <= 1) return this.redirect(response, record, this.signedUrl('png', name))
        const next = new URL(this.signedUrl('chain', name, { hops: hops - 1 }))
        return this.redirect(response, record, `${next.pathname}${next.search}`)
      }
    }
  }

  /** `total` bytes (Infinity: forever) written as the action reads them, until it goes. */
  private async stream(call: Call, total: number, piece: (at: number) => Buffer): Promise<void> {
    const { response } = call
    let gone = false
    void call.closed.then(() => (gone = true))
    let at = 0
    while (!gone && at < total) {
      const chunk = piece(at).subarray(0, Math.min(CHUNK_BYTES, total - at))
      at += chunk.length
      if (!this.write(call, chunk))
        await new Promise<void>(resolve => {
          response.once('drain', resolve)
          void call.closed.then(() => resolve())
        })
    }
    if (!gone) response.end()
  }

  /** An image's first bytes, then 1 KiB every second of the clock, the connection held between. */
  private async trickle(call: Call): Promise<void> {
    call.record.status = 200
    call.response.writeHead(200, { 'content-type': 'image/png' })
    this.write(call, FIRST_BYTES.png)
    const gone = new AbortController()
    void call.closed.then(() => gone.abort())
    while (!gone.signal.aborted) {
      try {
        await this.clock.hold(call.request, this.clock.sleep(1000, gone.signal))
      } catch {
        return
      }
      this.write(call, Buffer.alloc(1024, 0x5a))
    }
  }

  private write(call: Call, chunk: Buffer): boolean {
    call.record.bytesWritten += chunk.length
    return call.response.write(chunk)
  }

  private text(
    response: ServerResponse,
    record: ImageHostRequest,
    status: number,
    type: string,
    body: string
  ): void {
    record.status = status
    record.bytesWritten += Buffer.byteLength(body)
    response.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) })
    response.end(body)
  }

  private redirect(response: ServerResponse, record: ImageHostRequest, location: string): void {
    record.status = 302
    response.writeHead(302, { location, 'content-length': '0' }).end()
  }
}

interface Call {
  request: IncomingMessage
  response: ServerResponse
  record: ImageHostRequest
  closed: Promise<void>
  query: URLSearchParams
}

/** Loopback hosts, passed as they are: the server's own origin (the fake or sample GitHub). */
function isLoopback(hostname: string): boolean {
  return /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname === '[::1]' || hostname === 'localhost'
}

/**
 * A fetch for the network's `images` side: GitHub's image hosts (over https) sent to `host`,
 * loopback addresses as they are, anything else refused (recorded in `host.refused`, without its
 * query) as an unreachable host would be. `fetch` is the side it wraps (the virtual clock's).
 */
export function routedToImageHost(
  host: FakeImageHost,
  fetch: typeof globalThis.fetch = globalThis.fetch
): typeof globalThis.fetch {
  return async (input, init) => {
    const asked = new URL(input instanceof Request ? input.url : String(input))
    if (isLoopback(asked.hostname)) return fetch(input, init)
    if (asked.protocol !== 'https:' || !ROUTED_HOSTS.includes(asked.hostname) || asked.port !== '') {
      host.refused.push(`${asked.protocol}//${asked.host}${asked.pathname}`)
      throw new TypeError('fetch failed')
    }
    return fetch(`${host.url}/${asked.hostname}${asked.pathname}${asked.search}`, init)
  }
}
