import { markerLine } from '../../../src/github-shapes.js'
import { readMarker } from '../../../src/thread/tracking.js'
import { issuesOpenedEvent } from '../../support/webhooks.js'
import {
  emulator,
  github,
  fast,
  signedMarker,
  addMarkedComment,
  onEvent,
  comment,
  creates,
  resumes,
  trackingComments
} from '../../support/comment-world.js'

/**
 * The comment workflow end to end: a `/codegen` comment starts a run, the next resumes it, `new` starts
 * afresh, and only the action's own signed markers are followed (the world, its hooks and helpers:
 * test/support/comment-world.ts). Who may ask: comment-permissions.ts.
 */

describe('a /codegen comment', () => {
  test('starts a run with the thread as context, reacts, and keeps one tracking comment', async () => {
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen fix the typo in the README' }), {
      prompt: 'Keep changes minimal.'
    })
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    expect(creates()).toHaveLength(1)
    const prompt = (creates()[0]!.body as { prompt: string }).prompt
    expect(prompt.indexOf('Keep changes minimal.')).toBeLessThan(prompt.indexOf('fix the typo in the README'))
    expect(prompt).toContain('@alice asked for this on issue #7 in octo-org/octo-repo')
    expect(prompt).toContain('Quoted text from the issue')
    expect(prompt).toContain('> The parser drops the last field')
    expect(prompt).not.toMatch(/ignore all previous instructions|\u200b/)

    const triggering = github.comments(7)[0]!
    expect(github.reactions).toEqual([
      expect.objectContaining({ target: { commentId: triggering.id }, content: 'eyes' })
    ])
    const tracking = trackingComments()
    expect(tracking).toHaveLength(1)
    const run = emulator.runs()[0]!
    expect(readMarker(tracking[0]!.body)?.runId).toBe(run.id)
    expect(tracking[0]!.body).toContain('✅ **succeeded**')
    expect(tracking[0]!.body).toContain(
      '[octo-org/octo-repo#42](https://github.com/octo-org/octo-repo/pull/42) Fix quoted field parsing at end of line'
    )
    expect(tracking[0]!.body).toContain('<summary>Result</summary>')
    expect(result.outputs).toMatchObject({ outcome: 'success', 'agent-run-id': String(run.id) })
  })

  test('the next comment resumes the same run and edits the same tracking comment', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen fix the typo' }))
    const runId = emulator.runs()[0]!.id
    const [tracking] = trackingComments()

    emulator.queueScript({
      steps: [
        { at: 0, status: 'ACTIVE' },
        { at: 200, log: { message_type: 'FINAL_ANSWER', observation: 'Changelog updated' } },
        { at: 300, status: 'COMPLETE', result: 'Changelog updated.' }
      ]
    })
    const result = await onEvent(comment({ body: '/codegen also update the changelog' }))
    expect(result.exitCode).toBe(0)
    expect(creates()).toHaveLength(1)
    expect(resumes()).toHaveLength(1)
    expect(resumes()[0]!.body).toMatchObject({ agent_run_id: runId })
    expect((resumes()[0]!.body as { prompt: string }).prompt).toContain('also update the changelog')
    expect(trackingComments()).toHaveLength(1)
    expect(trackingComments()[0]!.id).toBe(tracking!.id)
    expect(trackingComments()[0]!.body).toContain('Changelog updated.')
    expect(result.outputs).toMatchObject({ 'agent-run-id': String(runId), result: 'Changelog updated.' })
  })

  test('`/codegen new …` starts a fresh run with a tracking comment of its own', async () => {
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen fix the typo' }))
    emulator.queueScript(fast('success'))
    await onEvent(comment({ body: '/codegen new try a different approach' }))
    expect(creates()).toHaveLength(2)
    expect(resumes()).toHaveLength(0)
    expect((creates()[1]!.body as { prompt: string }).prompt).toMatch(/^try a different approach/)
    expect(trackingComments().map(c => readMarker(c.body)?.runId)).toEqual(
      emulator
        .runs()
        .map(run => run.id)
        .sort((a, b) => a - b)
    )
  })

  test('on a pull request, the prompt names it and its branches', async () => {
    github.addPullRequest({ number: 7, title: 'Parser', body: '', head: 'feature/parser', base: 'main' })
    emulator.queueScript(fast('success'))
    const result = await onEvent(comment({ body: '/codegen rebase and fix CI', pullRequest: true }))
    expect(result.exitCode).toBe(0)
    const prompt = (creates()[0]!.body as { prompt: string }).prompt
    expect(prompt).toContain('on pull request #7')
    expect(prompt).toContain('merges branch feature/parser into main')
    expect(trackingComments()).toHaveLength(1)
  })

  test('an issue opened with the phrase in its title starts a run', async () => {
    emulator.queueScript(fast('success'))
    const result = await onEvent(
      issuesOpenedEvent({ title: '/codegen Add a CSV export', body: 'For the reports page.' })
    )
    expect(result.exitCode).toBe(0)
    expect((creates()[0]!.body as { prompt: string }).prompt).toMatch(/^Add a CSV export/)
    expect(github.reactions).toEqual([
      expect.objectContaining({ target: { issueNumber: 9 }, content: 'eyes' })
    ])
    expect(trackingComments(9)).toHaveLength(1)
  })

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
