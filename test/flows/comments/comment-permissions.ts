import { emulator, github, fast, onEvent, comment } from '../../support/comment-world.js'

/** Who may ask with a `/codegen` comment, end to end: refused green, or accepted (the world: test/support/comment-world.ts). */

describe('a /codegen comment', () => {
  test.each<[string, () => ReturnType<typeof comment>, RegExp]>([
    [
      'a read-only commenter',
      () => comment({ body: '/codegen fix', login: 'reader' }),
      /@reader has read permission/
    ],
    ['a triager', () => comment({ body: '/codegen fix', login: 'tri' }), /@tri has triage permission/],
    [
      'a custom role based on read',
      () => comment({ body: '/codegen fix', login: 'erin' }),
      /@erin has auditor permission/
    ],
    [
      'a stranger',
      () => comment({ body: '/codegen fix', login: 'stranger' }),
      /@stranger has none permission/
    ],
    ['a bot', () => comment({ body: '/codegen fix', login: 'helper[bot]', userType: 'Bot' }), /is a bot/],
    [
      'a comment without the phrase',
      () => comment({ body: 'thanks! /codegen' }),
      /does not start with \/codegen/
    ],
    [
      'an edited comment',
      () => comment({ body: '/codegen fix', action: 'edited' }),
      /action "edited" never trigger/
    ]
  ])('is refused from %s: skipped, nothing sent to the service', async (_who, event, reason) => {
    const result = await onEvent(event())
    expect(result.exitCode).toBe(0)
    expect(result.outputs['outcome']).toBe('skipped')
    expect(result.stdout).toMatch(new RegExp(`::notice::No agent run: .*${reason.source}`))
    expect(emulator.requests).toHaveLength(0)
    expect(github.requests.filter(request => request.method !== 'GET')).toHaveLength(0)
  })

  test.each([
    ['admin', 'bob'],
    ['maintain', 'carol'],
    ['a custom role based on write', 'dave']
  ])('is accepted from %s', async (_permission, login) => {
    emulator.queueScript(fast('success'))
    expect((await onEvent(comment({ body: '/codegen go', login }))).outputs['outcome']).toBe('success')
  })
})
