import { markerLine, readMarker } from '../../src/github/tracking.js'
import {
  emulator,
  fast,
  signedMarker,
  addMarkedComment,
  onEvent,
  comment,
  creates,
  resumes,
  trackingComments
} from '../support/comment-world.js'

/** Which tracking comment markers a `/codegen` comment follows, end to end (the world: test/support/comment-world.ts). */

describe('a /codegen comment', () => {
  test('a marker written by a person is not followed, even one copied with its signature', async () => {
    addMarkedComment(id => signedMarker(4242, id), 'I can write markers too', {
      login: 'mallory',
      type: 'User'
    })
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen fix it' }))
    expect(resumes()).toHaveLength(0)
    expect(creates()).toHaveLength(1)
  })

  test.each([
    ['unsigned', () => markerLine(4242)],
    ['with a made-up signature', () => markerLine(4242, 'ab'.repeat(16))],
    ['signed for another thread', (id: number) => signedMarker(4242, id, 8)],
    ['reposted from another comment of this thread', (id: number) => signedMarker(4242, id - 1)]
  ])('a marker from another bot, %s, is not followed: a fresh run, with a notice', async (_how, marker) => {
    addMarkedComment(marker, 'Tracking run 4242', { login: 'some-app[bot]', type: 'Bot' })
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen fix it' }))
    expect(result.exitCode).toBe(0)
    expect(resumes()).toHaveLength(0)
    expect(creates()).toHaveLength(1)
    expect(result.stdout).toMatch(
      /::notice::Not following the run marker of comment \d+ \(run 4242\).*Starting a fresh run/
    )
    const tracking = trackingComments().filter(c => c.user.login === 'github-actions[bot]')
    expect(tracking.map(c => readMarker(c.body)?.runId)).toEqual([emulator.runs()[0]!.id])
  })
})
