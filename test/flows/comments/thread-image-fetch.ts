import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { readerText } from '../../../scripts/render-markdown.js'
import { asRunnerShowsIt, type RunnerResult } from '../../../scripts/runner-process.js'
import {
  FakeImageHost,
  imageBytes,
  routedToImageHost,
  type ImageHostMode
} from '../../../scripts/github-fake/image-host.js'
import { MAX_IMAGES_BYTES } from '../../../src/settings/images.js'
import {
  clock,
  comment,
  creates,
  emulator,
  fast,
  github,
  onEvent,
  resumes,
  trackingComments,
  useEmulator,
  addParserPullRequest
} from '../../support/comment-world.js'
import { issuesOpenedEvent, labeledEvent, reviewCommentEvent, reviewEvent } from '../../support/webhooks.js'

const ALICE = { login: 'alice', type: 'User' as const }

describe('thread-images', () => {
  /**
   * The thread's screenshots reach the run (issue 45): the texts the prompt quotes read again with
   * their HTML (full+json) from the fake GitHub, whose attachments are signed addresses of a hostile
   * image host on 127.0.0.3 of its own (scripts/github-fake/image-host.ts), reached through the
   * network's `images` side on the virtual clock.
   */

  let host: FakeImageHost
  /** How the image host answers each attachment id (default a PNG of 2,048 bytes). */
  let modes: Map<string, { mode: ImageHostMode; size?: number }>

  beforeEach(async () => {
    host = new FakeImageHost(clock())
    await host.start()
    clock().imagesFetch = routedToImageHost(host, clock().imagesFetch)
    modes = new Map()
    github.texts.signWith(id => {
      const { mode, size } = modes.get(id) ?? { mode: 'png' as const }
      return host.signedUrl(mode, id, size === undefined ? {} : { size })
    })
  })

  afterEach(async () => {
    await host.stop()
  })

  const asset = (id: string): string => `https://github.com/user-attachments/assets/${id}`
  const shot = (id: string): string => `![screenshot](${asset(id)})`
  const pngUri = (size = 2048): string =>
    `data:image/png;base64,${imageBytes('png', size).toString('base64')}`
  const created = (index = 0) => creates()[index]!.body as { prompt: string; images?: string[] }
  const shown = (result: RunnerResult): string[] =>
    result.stdout.split('\n').flatMap(line => asRunnerShowsIt(line) ?? [])
  const warnings = (result: RunnerResult): string[] =>
    shown(result).filter(line => line.startsWith('Warning: '))
  const fullJsonReads = () =>
    github.requests.filter(request => request.accept === 'application/vnd.github.full+json')

  /** Each body the step wrote to issue 7's comments, in order, as a reader sees it. */
  const commentWrites = (): string[] =>
    github.requests
      .filter(request => /\/issues\/(7\/)?comments(\/\d+)?$/.test(request.path) && request.method !== 'GET')
      .map(request => readerText((request.body as { body: string }).body).replace(/\u2060/g, ''))

  /** Issue 7 as GitHub has it and as the event carries it, with `body`. */
  function issueWith(body: string, event: ReturnType<typeof comment>): ReturnType<typeof comment> {
    github.texts.setIssue({
      number: 7,
      title: 'The button overlaps',
      body,
      user: { login: 'bob', type: 'User' }
    })
    event.payload.issue.body = body
    return event
  }

  /** Everything the step wrote: console, outputs, summary, comments, and its files under RUNNER_TEMP. */
  function everythingWritten(result: RunnerResult): string {
    const files = readdirSync(result.runnerTemp, { recursive: true, withFileTypes: true })
      .filter(entry => entry.isFile())
      .map(entry => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    return [
      result.stdout,
      result.stderr,
      JSON.stringify(result.outputs),
      result.summary,
      ...github.comments(7).map(c => c.body),
      ...files
    ].join('\n')
  }

  test('a comment with a screenshot on an issue: the run is created with it, the prompt names it, the reports count it; no credential went to the image host and no signed address anywhere', async () => {
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: `/codegen fix this overlap\n\n${shot('overlap-1')}` }))
    expect(result.exitCode).toBe(0)
    expect(created().images).toEqual([pngUri()])
    const prompt = created().prompt
    expect(prompt).toMatch(/fix this overlap\n\n\[Image 1: in @alice's comment of \d{4}-\d\d-\d\d\]/)
    expect(prompt).not.toContain('user-attachments')
    // The comment read again with its HTML; the issue's body (no image in it) not.
    expect(fullJsonReads().map(request => request.path)).toEqual([
      expect.stringMatching(/^\/repos\/octo-org\/octo-repo\/issues\/comments\/\d+$/)
    ])
    expect(host.requests.map(request => [request.host, request.path, request.status])).toEqual([
      ['private-user-images.githubusercontent.com', '/png/overlap-1', 200]
    ])
    for (const request of host.requests) {
      expect(request.headers.authorization).toBeUndefined()
      expect(request.headers.cookie).toBeUndefined()
    }
    const line = /Images from the thread: 1 image sent \(1 from @alice's comment of \d{4}-\d\d-\d\d\)\./
    expect(shown(result)).toContainEqual(expect.stringMatching(line))
    expect(readerText(result.summary).replace(/\u2060/g, '')).toMatch(line)
    expect(readerText(trackingComments()[0]!.body).replace(/\u2060/g, '')).toMatch(line)
    const signed = host.signedUrl('png', 'overlap-1')
    const token = new URL(signed).searchParams.get('jwt')!.split('.')[1]!
    const written = everythingWritten(result)
    expect(written).not.toContain(token)
    expect(written).not.toContain('jwt=')
    expect(written).not.toContain('private-user-images')
  })

  test('the tracking comment says what was sent as soon as the run starts, not before', async () => {
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: `/codegen fix this overlap\n\n${shot('overlap-1')}` }))
    expect(result.exitCode).toBe(0)
    const written = commentWrites()
    const working = written.filter(text => text.includes('is working'))
    const line = /Images from the thread: 1 image sent \(1 from @alice's comment of [\d-]+\)\./
    // Posted before the run exists: nothing sent yet. Once it was created: said, as at the end.
    expect(working[0]).not.toMatch(/Images from the thread/)
    const started = working.filter(text => /run #1000 is working/.test(text))
    expect(started.length).toBeGreaterThan(0)
    for (const text of started) expect(text).toMatch(line)
    expect(written[written.length - 1]).toMatch(line)
  })

  test('the images input first, then the asking comment’s, then the body’s, numbered so in the prompt', async () => {
    emulator.queueScript(fast('success'))
    const event = issueWith(
      `It overlaps on small screens:\n\n${shot('body-1')}`,
      comment({ body: `/codegen fix it, see ${shot('asked-1')}` })
    )
    modes.set('asked-1', { mode: 'gif' })
    const result = await onEvent(event, { images: pngUri(100) })
    expect(result.exitCode).toBe(0)
    const { images, prompt } = created()
    expect(images?.map(uri => uri.slice(0, 15))).toEqual([
      'data:image/png;',
      'data:image/gif;',
      'data:image/png;'
    ])
    expect(images?.[0]).toBe(pngUri(100))
    expect(prompt).toMatch(/fix it, see \[Image 2: in @alice's comment of [\d-]+\]/)
    expect(prompt).toContain("> It overlaps on small screens:\n>\n> [Image 3: in the issue's description]")
    expect(host.requests.map(request => request.path)).toEqual(['/gif/asked-1', '/png/body-1'])
  })

  test('a follow-up with a new screenshot resumes the run with that one alone', async () => {
    emulator.queueScript(fast('success'))
    const event = issueWith(`Broken:\n\n${shot('body-1')}`, comment({ body: '/codegen fix it' }))
    await onEvent(event)
    expect(created().images).toEqual([pngUri()])
    emulator.queueScript(fast('success'))
    const followUp = issueWith(
      `Broken:\n\n${shot('body-1')}`,
      comment({ body: `/codegen now this ${shot('new-1')}` })
    )
    modes.set('new-1', { mode: 'png', size: 4096 })
    const result = await onEvent(followUp)
    expect(result.exitCode).toBe(0)
    expect(resumes()).toHaveLength(1)
    const resumed = resumes()[0]!.body as { prompt: string; images?: string[] }
    expect(resumed.images).toEqual([pngUri(4096)])
    expect(resumed.prompt).toMatch(/now this \[Image 1: in @alice's comment of [\d-]+\]/)
    expect(shown(result)).toContainEqual(
      expect.stringMatching(/^Images from the thread: 1 image sent \(1 from @alice's comment of [\d-]+\)\.$/)
    )
  })

  test('a follow-up whose resume is refused is carried on with the body’s images too, as its prompt quotes it', async () => {
    await useEmulator({ modes: ['resume-paused-only'] })
    emulator.queueScript(fast('success'))
    await onEvent(issueWith(`Broken:\n\n${shot('body-1')}`, comment({ body: '/codegen fix it' })))
    emulator.queueScript(fast('success'))
    const followUp = issueWith(
      `Broken:\n\n${shot('body-1')}`,
      comment({ body: `/codegen and ${shot('new-1')}` })
    )
    modes.set('new-1', { mode: 'jpeg' })
    const result = await onEvent(followUp)
    expect(result.exitCode).toBe(0)
    expect(resumes().map(request => request.status)).toEqual([422])
    expect((resumes()[0]!.body as { images?: string[] }).images?.map(uri => uri.slice(0, 16))).toEqual([
      'data:image/jpeg;'
    ])
    const carried = created(1)
    expect(carried.images?.map(uri => uri.slice(0, 16))).toEqual(['data:image/jpeg;', 'data:image/png;b'])
    expect(carried.prompt).toMatch(/^and \[Image 1: in @alice's comment of [\d-]+\]/)
    expect(carried.prompt).toContain("> [Image 2: in the issue's description]")
    expect(shown(result)).toContainEqual(
      expect.stringMatching(
        /^Images from the thread: 2 images sent \(1 from @alice's comment of [\d-]+, 1 from the issue's description\)\.$/
      )
    )
    // While the carried-on run works, its comment tells its images, not the refused resume's.
    const carriedOn = commentWrites().filter(
      text => /could not be resumed/.test(text) && /is working/.test(text)
    )
    expect(carriedOn.length).toBeGreaterThan(0)
    for (const text of carriedOn) expect(text).toMatch(/Images from the thread: 2 images sent/)
  })

  test('cancelled while an image downloads: nothing starts', async () => {
    modes.set('held-1', { mode: 'hold' })
    const result = await onEvent(
      comment({ body: `/codegen fix ${shot('held-1')}` }),
      {},
      { terminateAfterMs: 5_000 }
    )
    expect(result.outputs.outcome).toBe('cancelled')
    expect(creates()).toEqual([])
    expect(trackingComments()).toEqual([])
    // The download ends with the cancellation, at once.
    expect(host.requests.map(request => [request.path, request.closedAt! - result.startedAt])).toEqual([
      ['/hold/held-1', 5_000]
    ])
  })

  test('timeout-minutes reached while an image downloads: the download ends then, nothing starts', async () => {
    modes.set('held-1', { mode: 'hold' })
    const result = await onEvent(comment({ body: `/codegen fix ${shot('held-1')}` }), {
      'timeout-minutes': '0.25'
    })
    expect(result.outputs.outcome).toBe('timeout')
    expect(creates()).toEqual([])
    expect(host.requests.map(request => [request.path, request.closedAt! - result.startedAt])).toEqual([
      ['/hold/held-1', 15_000]
    ])
  })

  test('a comment on the code and a review: their own text is read again with its HTML', async () => {
    addParserPullRequest()
    emulator.queueScript(fast('success'))
    const onCode = github.addReviewComment(7, { body: `/codegen align it ${shot('code-1')}`, user: ALICE })
    const result = await onEvent(reviewCommentEvent(onCode))
    expect(result.exitCode).toBe(0)
    expect(created().images).toEqual([pngUri()])
    expect(created().prompt).toMatch(/align it \[Image 1: in @alice's comment on the code of [\d-]+\]/)
    expect(fullJsonReads().map(request => request.path)).toEqual([
      `/repos/octo-org/octo-repo/pulls/comments/${onCode.id}`
    ])

    emulator.queueScript(fast('success'))
    const review = github.texts.addReview(7, { body: `/codegen new see ${shot('review-1')}`, user: ALICE })
    const event = reviewEvent({ body: review.body })
    event.payload.review.id = review.id
    const reviewed = await onEvent(event)
    expect(reviewed.exitCode).toBe(0)
    expect(created(1).images).toEqual([pngUri()])
    expect(created(1).prompt).toMatch(/see \[Image 1: in @alice's review of [\d-]+\]/)
    expect(fullJsonReads().at(-1)!.path).toBe(`/repos/octo-org/octo-repo/pulls/7/reviews/${review.id}`)
  })

  test('an issue opened with the phrase and a screenshot: its HTML read once, the image sent once', async () => {
    emulator.queueScript(fast('success'))
    const body = `/codegen fix this ${shot('opened-1')}`
    github.texts.setIssue({ number: 9, title: 'Overlap', body, user: ALICE })
    const result = await onEvent(issuesOpenedEvent({ title: 'Overlap', body }))
    expect(result.exitCode).toBe(0)
    expect(fullJsonReads().map(request => request.path)).toEqual(['/repos/octo-org/octo-repo/issues/9'])
    expect(created().images).toEqual([pngUri()])
    expect(created().prompt).toMatch(/^fix this \[Image 1: in the issue's description\]/)
  })

  test('a label asks in no words: the description’s screenshot goes with the run', async () => {
    emulator.queueScript(fast('success'))
    const body = `Overlaps on small screens: ${shot('label-1')}`
    github.texts.setIssue({
      number: 9,
      title: 'Add a CSV export',
      body,
      user: { login: 'bob', type: 'User' }
    })
    github.addLabel(9, 'codegen')
    const event = labeledEvent({ label: 'codegen', number: 9 })
    event.payload.issue.body = body
    const result = await onEvent(event, { 'label-trigger': 'codegen' })
    expect(result.exitCode).toBe(0)
    expect(fullJsonReads().map(request => request.path)).toEqual(['/repos/octo-org/octo-repo/issues/9'])
    expect(created().images).toEqual([pngUri()])
    expect(created().prompt).toContain("[Image 1: in the issue's description]")
    expect(created().prompt).not.toContain('user-attachments')
  })

  test('a follow-up without a screenshot of its own resumes with none, and says nothing of images', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(issueWith(`Broken:\n\n${shot('body-1')}`, comment({ body: '/codegen fix it' })))
    emulator.queueScript(fast('success'))
    const result = await onEvent(
      issueWith(`Broken:\n\n${shot('body-1')}`, comment({ body: '/codegen also the docs' }))
    )
    expect(result.exitCode).toBe(0)
    expect((resumes()[0]!.body as { images?: string[] }).images).toBeUndefined()
    expect(shown(result).some(line => line.startsWith('Images from the thread'))).toBe(false)
  })

  test('thread-images: false reads no HTML and fetches nothing; the link stays in the prompt', async () => {
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: `/codegen fix ${shot('overlap-1')}` }), {
      'thread-images': 'false'
    })
    expect(result.exitCode).toBe(0)
    expect(fullJsonReads()).toEqual([])
    expect(host.requests).toEqual([])
    expect(created().images).toBeUndefined()
    expect(created().prompt).toContain(`![](${asset('overlap-1')})`)
    expect(shown(result).some(line => line.startsWith('Images from the thread'))).toBe(false)
  })

  test('11 screenshots: 10 are sent, the 11th left out for the cap and said so', async () => {
    emulator.queueScript(fast('success'))
    const shots = Array.from({ length: 11 }, (_, i) => shot(`s-${i}`)).join('\n')
    const result = await onEvent(comment({ body: `/codegen compare these\n\n${shots}` }))
    expect(result.exitCode).toBe(0)
    expect(created().images).toHaveLength(10)
    expect(host.requests).toHaveLength(10)
    expect(warnings(result)).toEqual([])
    expect(created().prompt).toContain(`[Image 10: in @alice's comment of`)
    expect(created().prompt).toContain(`![](${asset('s-10')})`)
    expect(shown(result)).toContainEqual(
      expect.stringMatching(/10 images sent .*; 1 left out \(1 over the cap of 10 images and 10 MiB\)\.$/)
    )
  })

  test('5,000 screenshots in a comment: 10 are sent, the rest counted as left out; the step ends at once', async () => {
    emulator.queueScript(fast('success'))
    const shots = Array.from({ length: 5_000 }, (_, i) => shot(`h-${i}`)).join(' ')
    const result = await onEvent(comment({ body: `/codegen compare these ${shots}` }))
    expect(result.exitCode).toBe(0)
    expect(created().images).toHaveLength(10)
    expect(host.requests.map(request => request.path)).toEqual(
      Array.from({ length: 10 }, (_, i) => `/png/h-${i}`)
    )
    // The scripted run's own 3 s: reading 5,000 references took no time of the step's.
    expect(result.durationMs).toBe(3_000)
    expect(created().prompt).toContain(`[Image 10: in @alice's comment of`)
    expect(created().prompt).toContain(`![](${asset('h-4999')})`)
    expect(shown(result)).toContainEqual(
      expect.stringMatching(
        /10 images sent .*; 4990 left out \(4990 over the cap of 10 images and 10 MiB\)\.$/
      )
    )
  })

  test('the images input and the thread share 10 MiB: a screenshot past it is left out', async () => {
    emulator.queueScript(fast('success'))
    // The input's image leaves about 1 MiB of room; the screenshot is 2 MiB.
    const input = pngUri(Math.floor(((MAX_IMAGES_BYTES - 1024 * 1024) * 3) / 4))
    modes.set('big-1', { mode: 'png', size: 2 * 1024 * 1024 })
    const result = await onEvent(comment({ body: `/codegen fix ${shot('small-1')} ${shot('big-1')}` }), {
      images: input
    })
    expect(result.exitCode).toBe(0)
    expect(created().images).toEqual([input, pngUri()])
    // Over the cap is no failure: the reports count it, no warning.
    expect(warnings(result)).toEqual([])
    expect(host.requests.map(request => request.path)).toEqual(['/png/small-1', '/png/big-1'])
    expect(shown(result)).toContainEqual(
      expect.stringMatching(/1 image sent .*; 1 left out \(1 over the cap of 10 images and 10 MiB\)\.$/)
    )
  })

  test('a failed download is one warning; the run starts with the others', async () => {
    emulator.queueScript(fast('success'))
    modes.set('broken-1', { mode: 'error' })
    const result = await onEvent(comment({ body: `/codegen fix ${shot('broken-1')} ${shot('fine-1')}` }))
    expect(result.exitCode).toBe(0)
    expect(created().images).toEqual([pngUri()])
    expect(created().prompt).toContain(`![](${asset('broken-1')})`)
    expect(created().prompt).toMatch(/\[Image 1: in @alice's comment of [\d-]+\]$/m)
    expect(warnings(result)).toEqual([
      expect.stringMatching(
        /^Warning: An image in @alice's comment of [\d-]+ is not sent with the run: .+\.$/
      )
    ])
    expect(warnings(result)[0]).not.toMatch(/https?:|jwt/)
  })

  test('a text GitHub will not show with its HTML (403, a token without the permission) is one clear warning: its attachments are fetched by their own links, the run starts', async () => {
    emulator.queueScript(fast('success'))
    github.injectClientError(1, /\/issues\/comments\/\d+$/, 403, 'Resource not accessible by integration')
    const result = await onEvent(comment({ body: `/codegen fix ${shot('shot-1')}` }))
    expect(result.exitCode).toBe(0)
    expect(result.outputs['outcome']).toBe('success')
    // Fetched by its own link, as a public repository's attachment is: GitHub redirects to its signed address.
    expect(host.requests.map(request => request.host)).toEqual([
      'github.com',
      'private-user-images.githubusercontent.com'
    ])
    expect(created().images).toEqual([pngUri()])
    expect(warnings(result)).toEqual([
      expect.stringMatching(
        /^Warning: Could not read the comment with its HTML from GitHub \(Resource not accessible by integration.*\): its images are fetched by their own links, which a private repository's do not answer\.$/
      )
    ])
    expect(warnings(result)[0]).not.toMatch(/jwt|private-user-images/)
  })

  test('an image on another host stays a link and is not fetched', async () => {
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen fix ![](https://images.example.com/a.png)' }))
    expect(result.exitCode).toBe(0)
    expect(host.requests).toEqual([])
    expect(host.refused).toEqual([])
    expect(created().images).toBeUndefined()
    expect(created().prompt).toContain('![](https://images.example.com/a.png)')
    // A link kept is no image sent nor left out: the reports say nothing of images.
    expect(shown(result).some(line => line.startsWith('Images from the thread'))).toBe(false)
  })
})
