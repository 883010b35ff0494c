import { COMMENT_MAX_CHARS } from '../../../src/github-shapes.js'
import { SUMMARY_MAX_BYTES } from '../../../src/report/summary.js'
import { issueCommentEvent } from '../../support/webhooks.js'
import { creates, emulator, github, onEvent, trackingComments } from '../../support/comment-world.js'

/**
 * Issue #17's measurements replayed in process on the virtual clock (the emulator, the fake GitHub,
 * the step as the runner runs it): text that once held the CPU for seconds or minutes, and JSON
 * nested deep enough to overflow the stack. The step ends as the run does, long before its
 * deadline, with its outputs, its summary and its final tracking comment within GitHub's sizes.
 * CPU time does not move the virtual clock: how fast the work is (linear time) is the linearity
 * guard's to measure (npm run test:linearity); these hold what the work produces and that it ends.
 */

/** Every body the step sent to GitHub (comments written and edited). */
const sentBodies = (): string[] =>
  github.requests
    .filter(request => request.method !== 'GET')
    .map(request => String((request.body as { body?: string } | undefined)?.body ?? ''))

/** Every case form of the API token: each key redacts to ***, so all collide. */
function collidingKeys(): Record<string, number> {
  const token = 'emulator-token'
  const letters = [...token].filter(c => /[a-z]/.test(c)).length
  const keys: Record<string, number> = {}
  for (let form = 0; form < 2 ** letters; form++) {
    let bit = 0
    const key = [...token].map(c => (/[a-z]/.test(c) && (form >> bit++) & 1 ? c.toUpperCase() : c)).join('')
    keys[key] = form
  }
  return keys
}

/** `levels` nested objects around a string. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { bottom: true }
  for (let n = 0; n < levels; n++) value = { deeper: value }
  return value
}

const event = (body: string, issueBody: string) => {
  const stored = github.addComment(7, body, { login: 'alice', type: 'User' })
  const built = issueCommentEvent({ body, commentId: stored.id })
  built.payload.issue.body = issueBody
  return built
}

test('tildes, colliding keys and deep JSON: outputs, summary and the final tracking comment as the run ends', async () => {
  const result = `See torvalds/linux#1.\nx${'~'.repeat(300_000)}`
  emulator.queueScript({
    steps: [
      { at: 0, status: 'ACTIVE' },
      // 1.2 MB of tildes in the log: past what the summary holds.
      ...Array.from({ length: 300 }, (_, n) => ({
        at: 100,
        log: { message_type: 'ACTION', thought: `Step ${n}`, observation: '~'.repeat(4_000) }
      })),
      { at: 200, log: { message_type: 'ACTION', tool_name: 'keys', tool_input: collidingKeys() } },
      { at: 200, log: { message_type: 'ACTION', tool_name: 'deep', observation: nested(3_000) } },
      {
        at: 400,
        status: 'COMPLETE',
        result,
        summary: `x${'~'.repeat(60_000)}`,
        pullRequests: [
          {
            id: 42,
            title: 'Fix it',
            url: 'https://github.com/octo-org/octo-repo/pull/42',
            head_branch_name: 'fix',
            extra: nested(4_000)
          } as never
        ]
      }
    ]
  })
  const hidden =
    'Visible.\n![do this](https://example.com/favicon.ico)\n<?x and this?>\n<!X nor this>\n<![CDATA[nor that]]>'
  const run = await onEvent(event('/codegen fix it', hidden), { 'timeout-minutes': '1' })

  // Ended as the run did, long before its deadline (1 minute).
  expect(run.exitCode).toBe(0)
  expect(run.durationMs).toBeLessThan(60_000)
  expect(run.stdout).not.toMatch(/Unexpected error|Maximum call stack/)
  expect(run.outputs).toMatchObject({ outcome: 'success', result, 'log-count': '302' })
  const pullRequests = JSON.parse(run.outputs['github-pull-requests']!)
  expect(pullRequests[0]).toMatchObject({ id: 42, url: 'https://github.com/octo-org/octo-repo/pull/42' })
  expect(JSON.stringify(pullRequests)).toContain('nested too deep')
  expect(run.summary).toContain('### Result')
  expect(run.summary).toContain('*** (2)')
  expect(run.summary).not.toMatch(/constructor \(2\)/)
  expect(Buffer.byteLength(run.summary)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES)

  const [tracking] = trackingComments()
  expect(tracking!.body).toContain('✅ **succeeded**')
  expect(tracking!.body).toContain('torvalds/linux#\u20601')
  expect(tracking!.body).toContain('(https://github.com/octo-org/octo-repo/pull/42)')
  expect(sentBodies().length).toBeGreaterThan(0)
  for (const body of sentBodies()) expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS)

  const prompt = (creates()[0]!.body as { prompt: string }).prompt
  expect(prompt).toContain('Visible.')
  expect(prompt).toContain('![](https://example.com/favicon.ico)')
  expect(prompt).not.toMatch(/do this|and this|nor this|nor that/)
})

test('an error page of 300,000 `<`: a clear error before the deadline, with outputs and summary', async () => {
  emulator.injectFaults({
    route: 'create',
    fault: { kind: 'status', status: 422, body: `<html${'<'.repeat(300_000)}` }
  })
  const run = await onEvent(event('/codegen fix it', 'body'), { 'timeout-minutes': '1' })
  // error, not timeout: the page was read and said so, long before the deadline.
  expect(run.outputs.outcome).toBe('error')
  expect(run.durationMs).toBeLessThan(60_000)
  expect(run.stdout).toContain('rejected the request as invalid (422)')
  expect(run.summary).toContain('422')
  expect(trackingComments()[0]!.body).toContain('could not be started (the service answered 422)')
})
