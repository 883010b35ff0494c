import {
  emulator,
  github,
  fast,
  onEvent,
  comment,
  edits,
  trackingComments
} from '../../support/comment-world.js'

/** The comment workflow end to end (the world, its hooks and helpers: test/support/comment-world.ts). */

describe("a /codegen comment: GitHub's limits and errors", () => {
  test('a flood of service text keeps the tracking comment under GitHub’s limit, working and ended', async () => {
    // 200,000 characters a field: each alone three times GitHub’s 65,536, and more once escaped.
    const flood = (unit: string): string => unit.repeat(Math.ceil(200_000 / unit.length))
    emulator.queueScript({
      steps: [
        { at: 0, status: 'ACTIVE' },
        { at: 100, log: { message_type: 'ACTION', tool_name: flood('&<'), thought: flood('<\n') } },
        {
          at: 6_000,
          status: 'COMPLETE',
          result: flood('&'),
          summary: flood('<\n'),
          pullRequests: [
            { id: 1, title: flood('&<\n'), url: `https://github.com/${flood('&')}`, head_branch_name: null }
          ]
        }
      ]
    })
    const result = await onEvent(comment({ body: `/codegen ${flood('&<').slice(0, 30_000)}` }), {
      'poll-interval': '0.2'
    })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).not.toMatch(/Could not write the tracking comment/)
    expect(github.requests.filter(request => request.status >= 400 && request.path !== '/user')).toEqual([])
    const written = github.requests.filter(
      request => /\/issues\/(7\/)?comments(\/\d+)?$/.test(request.path) && request.method !== 'GET'
    )
    // Posted, the run id, the latest step (throttled to 5 s), the ending.
    expect(written.length).toBeGreaterThanOrEqual(4)
    expect(written.some(request => (request.body as { body: string }).body.includes('Latest step:'))).toBe(
      true
    )
    for (const request of written) {
      expect([...(request.body as { body: string }).body].length).toBeLessThanOrEqual(65_536)
    }
    const body = trackingComments()[0]!.body
    expect(body).toContain('✅ **succeeded**')
    expect(body).toContain('… trimmed to fit GitHub’s comment size limit')
  })

  test('edits of the tracking comment are throttled', async () => {
    // A 12.5 s run with a log entry every half second: something new for the comment all along.
    const entries = Array.from({ length: 24 }, (_, i) => ({
      at: 500 * (i + 1),
      log: { message_type: 'ACTION', tool_name: 'shell', thought: `step ${i + 1}` }
    }))
    emulator.queueScript({
      steps: [{ at: 0, status: 'ACTIVE' }, ...entries, { at: 12_500, status: 'COMPLETE', result: 'Done.' }]
    })
    const result = await onEvent(comment({ body: '/codegen go' }), { 'poll-interval': '0.5' })
    expect(result.exitCode).toBe(0)
    // One edit when the run id is known, one at most every 5 s after, one at the end.
    const times = edits().map(request => request.at)
    expect(times.length).toBeGreaterThanOrEqual(4)
    expect(times.length).toBeLessThanOrEqual(2 + Math.ceil(result.durationMs / 5_000))
    // Every gap but the last (the ending is written at once) is at least the interval.
    const gaps = times.slice(1, -1).map((at, i) => at - times[i]!)
    expect(gaps.length).toBeGreaterThanOrEqual(2)
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(4_900)
  })

  test('an empty github-token is refused as an input, before any request', async () => {
    const result = await onEvent(comment({ body: '/codegen fix' }), { 'github-token': '' })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/::error::Invalid input: github-token: required on issue_comment events/)
    expect(result.stdout + result.stderr).not.toMatch(/Unexpected error|\s+at /)
    expect(emulator.requests).toHaveLength(0)
    expect(github.requests).toHaveLength(0)
  })

  test('a permission check GitHub refuses fails the step with one clear error, and posts nothing', async () => {
    // (A 404 is an answer: no such collaborator, so no permission; a 403 is a refusal.)
    github.injectClientError(1, /\/permission$/, 403, 'Resource not accessible by integration')
    const result = await onEvent(comment({ body: '/codegen fix' }))
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(
      /::error::Could not read @alice's permission on octo-org\/octo-repo \(Resource not accessible by integration.*\); the run is not started/
    )
    expect(result.stdout + result.stderr).not.toMatch(/Unexpected error|\s+at /)
    expect(emulator.requests).toHaveLength(0)
    expect(github.requests.filter(request => request.method !== 'GET')).toHaveLength(0)
  })

  test('comments GitHub will not list fail the step, and the tracking comment says why', async () => {
    github.injectClientError(1, /\/issues\/7\/comments$/)
    const result = await onEvent(comment({ body: '/codegen fix' }))
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(
      /::error::Could not read the comments of #7 to find its tracking comment \(Not Found.*\); the run is not started/
    )
    expect(result.stdout + result.stderr).not.toMatch(/Unexpected error|\s+at /)
    expect(emulator.requests).toHaveLength(0)
    const body = trackingComments()[0]!.body
    expect(body).toContain('⚠️ could not be started')
    expect(body).toContain('Could not read the comments of #7')
  })

  test("GitHub's secondary rate limits are waited out", async () => {
    github.injectSecondaryRateLimit(1, /\/issues\/7\/comments$/)
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen go' }))
    expect(result.exitCode).toBe(0)
    expect(trackingComments()).toHaveLength(1)
    expect(result.stdout).toContain('secondary rate limit')
  })
})
