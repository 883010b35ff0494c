import { CancelledError } from '../../../src/clock.js'
import { MAX_IMAGES_BYTES } from '../../../src/settings/images.js'
import {
  downloadImage,
  imageHosts,
  type DownloadedImage,
  type ImageHosts
} from '../../../src/thread/image-download.js'
import {
  FakeImageHost,
  imageBytes,
  PRIVATE_IMAGES_HOST,
  routedToImageHost,
  SIGNED_URL_TTL_MS
} from '../../../scripts/github-fake/image-host.js'
import { VirtualClock } from '../../support/virtual-clock.js'

describe('image-download', () => {
  /**
   * downloadImage against a hostile image host on its own loopback address (127.0.0.3), reached
   * through the network's `images` side as the action reaches GitHub's image hosts, on the virtual
   * clock: each time limit and cancellation to the millisecond, the bytes the host wrote bounded.
   */

  let clock: VirtualClock
  let host: FakeImageHost
  let hosts: ImageHosts

  beforeEach(async () => {
    clock = new VirtualClock()
    host = new FakeImageHost(clock)
    await host.start()
    clock.imagesFetch = routedToImageHost(host)
    hosts = imageHosts('https://github.com')
  })

  afterEach(async () => {
    await host.stop()
  })

  /** Headers the platform's fetch sends on its own, and the virtual clock's mark: nothing else. */
  const OWN_HEADERS = [
    'accept',
    'accept-encoding',
    'accept-language',
    'cache-control',
    'connection',
    'host',
    'pragma',
    'sec-fetch-mode',
    'user-agent',
    'x-virtual-request'
  ]

  /** One download on the clock: its result (or its rejection) and the virtual ms it took. */
  async function download(
    url: string,
    options: { maxBytes?: number; cancelAtMs?: number; cancelOnAnswer?: true } = {}
  ): Promise<{ result?: DownloadedImage; error?: unknown; ms: number }> {
    const start = clock.now()
    const cancel = new AbortController()
    const deps = { fetch: clock.network.images, clock, signal: cancel.signal, hosts }
    // The job cancelled while the host's answer is held on its way: it is lost, as on the wire.
    if (options.cancelOnAnswer)
      clock.onAnswered = request => {
        if (request.side !== 'images') return undefined
        return Promise.resolve().then(() => cancel.abort())
      }
    const outcome = await clock.run(async () => {
      if (options.cancelAtMs !== undefined) void clock.sleep(options.cancelAtMs).then(() => cancel.abort())
      return downloadImage(url, deps, options.maxBytes ?? MAX_IMAGES_BYTES).then(
        result => ({ result }),
        (error: unknown) => ({ error })
      )
    })
    // Whatever the download left open ends before the test looks (a closed connection's event).
    await clock.run(() => clock.advance(0))
    return { ...outcome, ms: clock.now() - start }
  }

  /** No result's words hold an address, a host or a signature. */
  function expectNoAddress(result: DownloadedImage | undefined): void {
    const text = JSON.stringify(result ?? {})
    for (const secret of ['jwt', 'githubusercontent', '127.0.0.3', 'http', 'example.com', '/'])
      if (!result?.ok) expect(text).not.toContain(secret)
  }

  test.each(['png', 'jpeg', 'gif', 'webp'] as const)(
    'a %s is read whole into its data URI, in no virtual time, with no header but the fetch’s own',
    async type => {
      const { result, ms } = await download(host.signedUrl(type, 'shot', { size: 70_000 }))
      const bytes = imageBytes(type, 70_000)
      expect(result).toEqual({
        ok: true,
        dataUri: `data:image/${type};base64,${bytes.toString('base64')}`,
        bytes: 70_000
      })
      expect(ms).toBe(0)
      expect(host.requests).toHaveLength(1)
      const [request] = host.requests
      expect(request?.host).toBe(PRIVATE_IMAGES_HOST)
      expect(request?.headers.authorization).toBeUndefined()
      expect(request?.headers.cookie).toBeUndefined()
      expect(Object.keys(request?.headers ?? {}).filter(name => !OWN_HEADERS.includes(name))).toEqual([])
    }
  )

  test('an answer declaring 1 GB is refused unread: too-big, and the host wrote a few MiB at most', async () => {
    const { result, ms } = await download(host.signedUrl('gigabyte', 'huge'))
    expect(result).toEqual({ ok: false, why: 'too-big', detail: 'it is larger than 10 MiB' })
    expect(ms).toBe(0)
    expect(host.requests[0]?.bytesWritten).toBeLessThan(MAX_IMAGES_BYTES)
    expect(host.requests[0]?.closedAt).toBeDefined()
  })

  test('an endless answer is read to 10 MiB and no further: too-big, the connection closed', async () => {
    const { result, ms } = await download(host.signedUrl('endless', 'forever'))
    expect(result).toEqual({ ok: false, why: 'too-big', detail: 'it is larger than 10 MiB' })
    expect(ms).toBe(0)
    const written = host.requests[0]?.bytesWritten ?? 0
    expect(written).toBeGreaterThan(MAX_IMAGES_BYTES)
    // What the sockets' buffers took past the cap, never the gigabytes the host would send.
    expect(written).toBeLessThan(MAX_IMAGES_BYTES + 8 * 1024 * 1024)
    expect(host.requests[0]?.closedAt).toBeDefined()
  })

  test('the bytes the caller leaves are the cap: a 5,000-byte image is too big for 4 KiB', async () => {
    const { result } = await download(host.signedUrl('png', 'shot', { size: 5_000 }), { maxBytes: 4096 })
    expect(result).toEqual({ ok: false, why: 'too-big', detail: 'it is larger than 4 KiB' })
    const fits = await download(host.signedUrl('png', 'shot', { size: 4096 }), { maxBytes: 4096 })
    expect(fits.result).toMatchObject({ ok: true, bytes: 4096 })
  })

  test.each(['trickle', 'hold', 'hold-body'] as const)(
    'a %s answer ends at the image’s 30 s exactly, its connection closed then',
    async mode => {
      const { result, ms } = await download(host.signedUrl(mode, 'slow'))
      expect(result).toEqual({ ok: false, why: 'failed', detail: 'no whole answer within 30 s' })
      expect(ms).toBe(30_000)
      const [request] = host.requests
      expect(request?.at).toBe(clock.now() - 30_000)
      expect(request?.closedAt).toBe(clock.now())
      if (mode === 'trickle') expect(request?.bytesWritten).toBe(12 + 29 * 1024)
    }
  )

  test('a cancellation ends a held download at once: it rejects with CancelledError, no result', async () => {
    const { result, error, ms } = await download(host.signedUrl('hold', 'slow'), { cancelAtMs: 12_345 })
    expect(result).toBeUndefined()
    expect(error).toBeInstanceOf(CancelledError)
    expect(ms).toBe(12_345)
    expect(host.requests[0]?.closedAt).toBe(clock.now())
  })

  test('a cancellation as the host answers loses the answer: CancelledError, nothing read', async () => {
    const { result, error, ms } = await download(host.signedUrl('png', 'shot'), { cancelOnAnswer: true })
    expect(result).toBeUndefined()
    expect(error).toBeInstanceOf(CancelledError)
    expect(ms).toBe(0)
    expect(host.requests).toHaveLength(1)
  })

  test('a cancellation while the body trickles ends it at once too', async () => {
    const { error, ms } = await download(host.signedUrl('trickle', 'slow'), { cancelAtMs: 4_500 })
    expect(error).toBeInstanceOf(CancelledError)
    expect(ms).toBe(4_500)
    expect(host.requests[0]?.bytesWritten).toBe(12 + 4 * 1024)
  })

  test('a download asked after the cancellation sends nothing', async () => {
    const cancel = new AbortController()
    cancel.abort()
    const deps = { fetch: clock.network.images, clock, signal: cancel.signal, hosts }
    await expect(
      clock.run(() => downloadImage(host.signedUrl('png', 'late'), deps, MAX_IMAGES_BYTES))
    ).rejects.toBeInstanceOf(CancelledError)
    expect(host.requests).toEqual([])
  })

  test.each([
    ['html', 'not-an-image', 'it is not a PNG, JPEG, GIF or WebP image'],
    ['svg', 'not-an-image', 'it is not a PNG, JPEG, GIF or WebP image'],
    ['error', 'failed', 'its host answered HTTP 500']
  ] as const)('an %s answer is %s: %s', async (mode, why, detail) => {
    const { result } = await download(host.signedUrl(mode, 'page'))
    expect(result).toEqual({ ok: false, why, detail })
    expectNoAddress(result)
  })

  test.each(['redirect-other', 'redirect-file'] as const)(
    'a %s is refused before it is followed: one request, nothing sent elsewhere',
    async mode => {
      const { result } = await download(host.signedUrl(mode, 'away'))
      expect(result).toEqual({
        ok: false,
        why: 'failed',
        detail: "its host redirected it off GitHub's image hosts"
      })
      expect(host.requests).toHaveLength(1)
      expect(host.refused).toEqual([])
      expectNoAddress(result)
    }
  )

  test('a chain of 3 redirects on the hosts is followed; a fourth is not', async () => {
    const { result } = await download(host.signedUrl('chain', 'hop', { hops: 3 }))
    expect(result).toMatchObject({ ok: true, bytes: 2048 })
    expect(host.requests.map(request => request.path)).toEqual([
      '/chain/hop',
      '/chain/hop',
      '/chain/hop',
      '/png/hop'
    ])
    host.requests.length = 0
    const longer = await download(host.signedUrl('chain', 'hop', { hops: 4 }))
    expect(longer.result).toEqual({ ok: false, why: 'failed', detail: 'more than 3 redirects' })
    expect(host.requests).toHaveLength(4)
  })

  test("an attachment's link on github.com is followed to its signed address", async () => {
    const { result } = await download('https://github.com/user-attachments/assets/0bec7adc-52c5')
    expect(result).toMatchObject({ ok: true, bytes: 2048 })
    expect(host.requests.map(request => [request.host, request.path])).toEqual([
      ['github.com', '/user-attachments/assets/0bec7adc-52c5'],
      [PRIVATE_IMAGES_HOST, '/png/0bec7adc-52c5']
    ])
    expect(host.requests.every(request => request.headers.authorization === undefined)).toBe(true)
  })

  test.each([
    ['credentials in it', (url: string) => url.replace('https://', 'https://user:token@')],
    ['an empty userinfo', (url: string) => url.replace('https://', 'https://@')],
    ['plain http', (url: string) => url.replace('https://', 'http://')],
    ['another port', (url: string) => url.replace('.com/', '.com:8443/')],
    ['a look-alike host', (url: string) => url.replace('.com/', '.com.example.com/')],
    ['the rest of github.com', () => 'https://github.com/octo/repo/raw/main/shot.png'],
    ['a data URI', () => `data:image/png;base64,${imageBytes('png').toString('base64')}`],
    ['a relative path', () => '/png/shot'],
    ['file:', () => 'file:///etc/passwd']
  ])('an address with %s is never fetched', async (_name, address) => {
    const { result, ms } = await download(address(host.signedUrl('png', 'shot')))
    expect(result).toEqual({
      ok: false,
      why: 'failed',
      detail: "its address is not on GitHub's image hosts over HTTPS, or holds a credential"
    })
    expect(ms).toBe(0)
    expect(host.requests).toEqual([])
    expect(host.refused).toEqual([])
  })

  test('a signed address past its five minutes is answered 404, said without the address', async () => {
    const url = host.signedUrl('png', 'old')
    await clock.run(() => clock.advance(SIGNED_URL_TTL_MS + 1))
    const { result } = await download(url)
    expect(result).toEqual({ ok: false, why: 'failed', detail: 'its host answered HTTP 404' })
    expectNoAddress(result)
  })

  test("the server's own origin is fetched as it is (GitHub Enterprise Server, the local run)", async () => {
    hosts = imageHosts(host.url)
    const { result } = await download(
      `${host.url}/${PRIVATE_IMAGES_HOST}${new URL(host.signedUrl('gif', 'own')).pathname}${new URL(host.signedUrl('gif', 'own')).search}`
    )
    expect(result).toMatchObject({ ok: true, bytes: 2048 })
    expect(host.requests).toHaveLength(1)
  })

  test('a host that refuses the connection fails with its code, not its address', async () => {
    const port = new URL(host.url).port
    await host.stop()
    hosts = imageHosts(`http://127.0.0.3:${port}`)
    const { result } = await download(`http://127.0.0.3:${port}/png/gone`)
    expect(result).toEqual({ ok: false, why: 'failed', detail: 'no answer from its host (ECONNREFUSED)' })
  })
})
