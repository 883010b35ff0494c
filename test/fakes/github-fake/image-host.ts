import { systemServerClock } from '../../../emulator/loopback-server.js'
import {
  FakeImageHost,
  imageBytes,
  PRIVATE_IMAGES_HOST,
  routedToImageHost,
  SIGNED_URL_TTL_MS
} from '../../../scripts/github-fake/image-host.js'

describe('image-host', () => {
  /**
   * The hostile image host of the tests (scripts/github-fake/image-host.ts) on its own loopback
   * address: GitHub's image hosts reached through routedToImageHost, signed addresses as GitHub's
   * are, each mode answering as it says, every request recorded with its headers.
   */

  const START = Date.parse('2026-03-02T09:00:00Z')
  const time = { now: START }
  let host: FakeImageHost
  let fetchImage: typeof fetch

  beforeEach(async () => {
    time.now = START
    host = new FakeImageHost(systemServerClock(() => time.now))
    await host.start()
    fetchImage = routedToImageHost(host)
  })

  afterEach(async () => {
    await host.stop()
  })

  const get = (url: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetchImage(url, { redirect: 'manual', headers })

  test('listens on 127.0.0.3, apart from GitHub and its log storage', () => {
    expect(new URL(host.url).hostname).toBe('127.0.0.3')
  })

  test('a signed address answers its image, and records the request and its headers', async () => {
    const url = host.signedUrl('webp', 'shot', { size: 3000 })
    expect(new URL(url).host).toBe(PRIVATE_IMAGES_HOST)
    expect(new URL(url).searchParams.get('jwt')).toMatch(/^\d+\.[0-9a-f]{64}$/)
    const response = await get(url, { authorization: 'token leaked' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/webp')
    expect(Buffer.from(await response.arrayBuffer())).toEqual(imageBytes('webp', 3000))
    expect(host.requests).toMatchObject([
      {
        at: START,
        method: 'GET',
        host: PRIVATE_IMAGES_HOST,
        path: '/webp/shot',
        status: 200,
        bytesWritten: 3000
      }
    ])
    expect(host.requests[0]?.headers.authorization).toBe('token leaked')
  })

  test('an address whose signature is altered, missing or past its five minutes is 404', async () => {
    const url = host.signedUrl('png', 'shot')
    expect((await get(url.replace('/png/', '/gif/'))).status).toBe(404)
    expect((await get(url.replace(/jwt=\d+/, 'jwt=99999999999999'))).status).toBe(404)
    expect((await get(url.split('?')[0] ?? '')).status).toBe(404)
    time.now += SIGNED_URL_TTL_MS + 1
    expect((await get(url)).status).toBe(404)
  })

  test('HTML, an error page and an SVG answer as GitHub might instead of an image', async () => {
    const html = await get(host.signedUrl('html', 'page'))
    expect([html.status, html.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8'])
    expect(await html.text()).toContain('<html>')
    expect((await get(host.signedUrl('error', 'page'))).status).toBe(500)
    const svg = await get(host.signedUrl('svg', 'drawing'))
    expect([svg.status, svg.headers.get('content-type')]).toEqual([200, 'image/svg+xml'])
  })

  test('redirects: off the hosts, to file:, a chain on the host, an attachment to its signed address', async () => {
    expect((await get(host.signedUrl('redirect-other', 'x'))).headers.get('location')).toBe(
      'https://images.example.com/png/elsewhere.png'
    )
    expect((await get(host.signedUrl('redirect-file', 'x'))).headers.get('location')).toBe(
      'file:///etc/passwd'
    )
    const hop = (await get(host.signedUrl('chain', 'c', { hops: 2 }))).headers.get('location') ?? ''
    expect(hop).toMatch(/^\/chain\/c\?hops=1&jwt=/)
    const last = (await get(`https://${PRIVATE_IMAGES_HOST}${hop}`)).headers.get('location') ?? ''
    expect(new URL(last).pathname).toBe('/png/c')
    expect((await get(last)).status).toBe(200)
    const attachment = await get('https://github.com/user-attachments/assets/abc-123')
    expect(attachment.status).toBe(302)
    expect(new URL(attachment.headers.get('location') ?? '').pathname).toBe('/png/abc-123')
    expect((await get('https://github.com/login')).status).toBe(404)
  })

  test('a gigabyte declares its length and starts as a PNG; an endless answer declares none', async () => {
    const gigabyte = await get(host.signedUrl('gigabyte', 'g'))
    expect(gigabyte.headers.get('content-length')).toBe(String(1024 ** 3))
    const reader = gigabyte.body!.getReader()
    const { value } = await reader.read()
    expect(Buffer.from(value!.subarray(0, 8))).toEqual(imageBytes('png').subarray(0, 8))
    await reader.cancel()
    const endless = await get(host.signedUrl('endless', 'e'))
    expect(endless.headers.get('content-length')).toBeNull()
    await endless.body?.cancel()
  })

  test('routes only GitHub’s image hosts over https; loopback passes as it is; anything else is refused', async () => {
    await expect(get('https://images.example.com/a.png?token=secret')).rejects.toThrow('fetch failed')
    await expect(get(`http://${PRIVATE_IMAGES_HOST}/png/a`)).rejects.toThrow('fetch failed')
    await expect(get('file:///etc/passwd')).rejects.toThrow('fetch failed')
    expect(host.refused).toEqual([
      'https://images.example.com/a.png',
      `http://${PRIVATE_IMAGES_HOST}/png/a`,
      'file:///etc/passwd'
    ])
    const direct = await get(`${host.url}/${PRIVATE_IMAGES_HOST}/png/a`)
    expect(direct.status).toBe(404)
    expect(host.requests).toHaveLength(1)
  })

  test("the fake GitHub's signed addresses: a path served as a mode, its one token checked as it is", async () => {
    await host.stop()
    host = new FakeImageHost(
      systemServerClock(() => time.now),
      { token: 'eyJ.fake.token' }
    )
    await host.start()
    fetchImage = routedToImageHost(host)
    host.serveAt('/4242/398000001-abc.png', 'jpeg', { size: 500 })
    const address = `https://${PRIVATE_IMAGES_HOST}/4242/398000001-abc.png`
    const image = await get(`${address}?jwt=eyJ.fake.token`)
    expect(Buffer.from(await image.arrayBuffer())).toEqual(imageBytes('jpeg', 500))
    expect((await get(`${address}?jwt=eyJ.other`)).status).toBe(404)
    expect((await get(`https://${PRIVATE_IMAGES_HOST}/4242/unknown.png?jwt=eyJ.fake.token`)).status).toBe(404)
    expect(new URL(host.signedUrl('gif', 'g')).searchParams.get('jwt')).toBe('eyJ.fake.token')
    time.now += 24 * 60 * 60_000
    expect((await get(host.signedUrl('gif', 'g'))).status).toBe(200)
  })
})
