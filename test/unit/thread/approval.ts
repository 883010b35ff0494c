import { pinnedPlan, planRevisers, whoMayApprove } from '../../../src/thread/approval.js'

/** An approval pinned to the plan the tracking comment showed (src/thread/approval.ts). */

describe('pinnedPlan', () => {
  const shown = { id: 11, runId: 40, plan: '0123456789abcdef', updatedAt: '2026-12-07T10:00:00Z' }

  test('the plan shown before the approval was written: its run and digest', () => {
    expect(pinnedPlan(shown, '2026-12-07T10:00:01Z', '/codegen')).toEqual({
      runId: 40,
      digest: '0123456789abcdef'
    })
  })

  test.each<[string, Parameters<typeof pinnedPlan>[0], string | undefined, RegExp]>([
    ['no tracking comment', undefined, '2026-12-07T10:00:01Z', /^No plan awaits approval on this thread/],
    [
      'a tracking comment of no plan',
      { id: 11, runId: 40 },
      '2026-12-07T10:00:01Z',
      /^No plan awaits approval/
    ],
    [
      'a plan still being written',
      { ...shown, plan: 'working' },
      '2026-12-07T10:00:01Z',
      /still being written/
    ],
    [
      'a plan shown after the approval',
      shown,
      '2026-12-07T09:59:59Z',
      /^A newer plan awaits approval: the tracking comment's plan was written after this approval, /
    ],
    [
      'a plan shown in the approval’s own second',
      shown,
      '2026-12-07T10:00:00Z',
      /^A newer plan awaits approval/
    ],
    ['an approval the event does not date', shown, undefined, /\(the event gives no time for it\)/]
  ])('%s: refused', (_case, found, writtenAt, reason) => {
    const pinned = pinnedPlan(found, writtenAt, '/codegen')
    expect('refused' in pinned && pinned.refused).toMatch(reason)
  })
})

describe('whoMayApprove', () => {
  test('anyone who may trigger, unless approvers names who alone may; the asker left out when asked', () => {
    expect(whoMayApprove({ allowSelfApproval: true })).toBe(
      'anyone who may trigger a run (write access to the repository, or a bot allowed-bots names) may approve a plan here.'
    )
    const approvers = { logins: new Set(['alice', 'bob']), teams: [{ org: 'octo-org', slug: 'reviewers' }] }
    expect(whoMayApprove({ approvers, allowSelfApproval: false })).toBe(
      'only @alice, @bob and members of octo-org/reviewers may approve a plan here (the approvers input), other than the person who asked for it.'
    )
    expect(
      whoMayApprove({ approvers: { logins: new Set(['carol']), teams: [] }, allowSelfApproval: true })
    ).toBe('only @carol may approve a plan here (the approvers input).')
  })
})

describe('planRevisers', () => {
  const user = (login: string) => ({ login, type: 'User' })
  const comment = (id: number, login: string, body: string, createdAt: string) => ({
    id,
    body,
    author: user(login),
    createdAt
  })
  const found = { id: 11, runId: 40, plan: '0123456789abcdef', createdAt: '2026-12-07T10:00:00Z' }
  const comments = [
    comment(5, 'dave', '/codegen plan an older plan', '2026-12-07T09:00:00Z'),
    comment(11, 'codegen[bot]', '/codegen plan (the tracking comment itself)', '2026-12-07T10:00:00Z'),
    comment(12, 'Carol', '  /CODEGEN Plan keep the fallback', '2026-12-07T10:05:00Z'),
    comment(13, 'erin', '/codegen looks fine', '2026-12-07T10:06:00Z'),
    comment(14, 'frank', 'please /codegen plan more', '2026-12-07T10:07:00Z'),
    comment(15, 'gina', '/codegen plan after the approval', '2026-12-07T10:20:00Z')
  ]

  test('the authors of plan requests since the plan’s comment was posted and before the approval', () => {
    const rules = { phrase: '/codegen', plan: false }
    expect([...planRevisers(comments, found, '2026-12-07T10:10:00Z', rules)]).toEqual(['carol'])
  })

  test('with the plan input, every request but an approval is a plan request', () => {
    const rules = { phrase: '/codegen', plan: true }
    expect([...planRevisers(comments, found, '2026-12-07T10:10:00Z', rules)]).toEqual(['carol', 'erin'])
  })
})
