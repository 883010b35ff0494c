import {
  MalformedAnswerError,
  parseIntegrations,
  parseLogPage,
  parseOrganization,
  parsePage,
  parseRepo,
  parseRun,
  parseSetupCommandsAnswer,
  parseUser
} from '../../../src/api/parse.js'

/** The service's answers as they may come: the documented shapes, and bodies that are JSON but not them. */

const malformed = (read: () => unknown, what: string) => {
  let error: unknown
  try {
    read()
  } catch (thrown) {
    error = thrown
  }
  expect(error).toBeInstanceOf(MalformedAnswerError)
  expect((error as Error).message).toBe(`The service's answer was not ${what}.`)
  // The answer came (200): the client reads it again rather than fail the step at once.
  expect((error as MalformedAnswerError).httpStatus).toBe(200)
}

describe('organizations', () => {
  test('a page of organizations keeps the readable ones and skips the rest', () => {
    const page = parsePage(
      {
        items: [
          { id: 1, name: 'Octo Org' },
          { id: '2', name: 'a string id' },
          null,
          ['not', 'an', 'object'],
          { id: 3 },
          { id: 4, name: null },
          { id: 5, name: 42 }
        ],
        total: 7,
        page: 1,
        size: 100,
        pages: 1
      },
      parseOrganization
    )
    expect(page.items).toEqual([
      { id: 1, name: 'Octo Org' },
      { id: 3, name: '' },
      { id: 4, name: '' },
      { id: 5, name: '42' }
    ])
    expect(page).toMatchObject({ total: 7, page: 1, size: 100, pages: 1 })
  })

  test('a page without items is malformed; missing counts fall back to what was read', () => {
    malformed(() => parsePage({ organizations: [] }, parseOrganization), 'a page of results')
    malformed(() => parsePage([{ id: 1, name: 'x' }], parseOrganization), 'a page of results')
    malformed(() => parsePage(null, parseOrganization), 'a page of results')
    const page = parsePage({ items: [{ id: 1, name: 'Octo' }], total: 'many', pages: 1.5 }, parseOrganization)
    expect(page).toEqual({ items: [{ id: 1, name: 'Octo' }], sent: 1, total: 1, page: 1, size: 1, pages: 1 })
  })

  test('an item whose parser throws does not hide the others, and still counts as sent (the page was full)', () => {
    const page = parsePage({ items: [{ id: 1 }, { id: 2 }] }, raw => {
      if ((raw as { id: number }).id === 1) throw new Error('unreadable')
      return parseOrganization(raw)
    })
    expect(page.items).toEqual([{ id: 2, name: '' }])
    expect(page.sent).toBe(2)
  })
})

describe('users', () => {
  test('a user: text fields kept, odd ones made text or null', () => {
    expect(
      parseUser({
        id: 7,
        email: 'octocat@example.com',
        github_username: 'octocat',
        full_name: null,
        role: 'ADMIN',
        extra: 'ignored'
      })
    ).toEqual({
      id: 7,
      email: 'octocat@example.com',
      github_username: 'octocat',
      full_name: null,
      role: 'ADMIN'
    })
    expect(parseUser({ id: 8, role: 3 })).toEqual({
      id: 8,
      email: null,
      github_username: null,
      full_name: null,
      role: '3'
    })
  })

  test('a user without an integer id is malformed', () => {
    malformed(() => parseUser({ id: '7', github_username: 'octocat' }), 'a user')
    malformed(() => parseUser({ id: 7.5 }), 'a user')
    malformed(() => parseUser(null), 'a user')
    malformed(() => parseUser('octocat'), 'a user')
    malformed(() => parseUser([{ id: 7 }]), 'a user')
  })
})

describe('integrations', () => {
  test('only a literal true is active; non-objects are dropped', () => {
    expect(
      parseIntegrations({
        organization_id: 1,
        organization_name: 'Octo Org',
        integrations: [
          { integration_type: 'github', active: true },
          { integration_type: 'slack', active: 'true' },
          { integration_type: 'linear' },
          'github',
          null,
          { active: true }
        ]
      })
    ).toEqual({
      organization_id: 1,
      organization_name: 'Octo Org',
      integrations: [
        { integration_type: 'github', active: true },
        { integration_type: 'slack', active: false },
        { integration_type: 'linear', active: false },
        { integration_type: '', active: true }
      ]
    })
  })

  test('missing organization fields fall back; no integrations list is malformed', () => {
    expect(parseIntegrations({ integrations: [] })).toEqual({
      organization_id: 0,
      organization_name: '',
      integrations: []
    })
    malformed(() => parseIntegrations({ integrations: { github: true } }), "the organization's integrations")
    malformed(() => parseIntegrations({ organization_id: 1 }), "the organization's integrations")
    malformed(() => parseIntegrations(undefined), "the organization's integrations")
  })
})

describe('setup commands', () => {
  test('the generating run is read; the rest is optional text', () => {
    expect(parseSetupCommandsAnswer({ agent_run_id: 12, status: 'ACTIVE', url: 'https://x/12' })).toEqual({
      agent_run_id: 12,
      status: 'ACTIVE',
      url: 'https://x/12'
    })
    expect(parseSetupCommandsAnswer({ agent_run_id: 13 })).toEqual({
      agent_run_id: 13,
      status: null,
      url: null
    })
  })

  test('without an integer agent_run_id it is malformed', () => {
    const what = 'the run generating the setup commands'
    malformed(() => parseSetupCommandsAnswer({ id: 12 }), what)
    malformed(() => parseSetupCommandsAnswer({ agent_run_id: '12' }), what)
    malformed(() => parseSetupCommandsAnswer('12'), what)
  })
})

describe('runs, repositories and log pages', () => {
  test('a run: odd fields become null or text, pull requests that are not objects are dropped', () => {
    expect(
      parseRun({
        id: 5,
        organization_id: 'one',
        status: 'COMPLETE',
        result: 12,
        github_pull_requests: [{ url: 'https://github.com/o/r/pull/1' }, 'x', null],
        metadata: ['not', 'an', 'object']
      })
    ).toEqual({
      id: 5,
      organization_id: 0,
      status: 'COMPLETE',
      created_at: null,
      web_url: null,
      result: '12',
      summary: null,
      source_type: null,
      github_pull_requests: [{ url: 'https://github.com/o/r/pull/1' }],
      metadata: null
    })
    expect(parseRun({ id: 6, github_pull_requests: 'none' }).github_pull_requests).toBeNull()
    malformed(() => parseRun({ id: 'x' }), 'an agent run')
  })

  test('a repository needs an integer id and a full name', () => {
    expect(parseRepo({ id: 101, full_name: 'octo-org/octo-repo', name: 'octo-repo' })).toEqual({
      id: 101,
      full_name: 'octo-org/octo-repo',
      name: 'octo-repo'
    })
    expect(parseRepo({ id: 102, full_name: 'octo-org/x' })).toEqual({
      id: 102,
      full_name: 'octo-org/x',
      name: undefined
    })
    expect(parseRepo({ id: 103 })).toBeUndefined()
    expect(parseRepo({ full_name: 'octo-org/x' })).toBeUndefined()
    expect(parseRepo('octo-org/x')).toBeUndefined()
  })

  test('a log page: odd entries are kept as entries; an absent result is unknown, not empty', () => {
    const page = parseLogPage(
      {
        status: 'ACTIVE',
        logs: [{ message_type: 'ACTION', agent_run_id: 'x' }, 'plain text', null],
        total_logs: -1
      },
      9
    )
    expect(page.logs).toHaveLength(3)
    expect(page.logs[0]).toMatchObject({ agent_run_id: 9, message_type: 'ACTION', thought: null })
    expect(page.logs[1]).toEqual({ agent_run_id: 9, message_type: null, observation: 'plain text' })
    expect(page.logs[2]).toEqual({ agent_run_id: 9, message_type: null, observation: null })
    expect(page.totalLogs).toBeNull()
    expect(page.result).toBeUndefined()
    expect(parseLogPage({ logs: [], total_logs: 4, result: null }, 9)).toMatchObject({
      totalLogs: 4,
      result: null,
      status: null
    })
    malformed(() => parseLogPage({ logs: 'none' }, 9), 'a page of the run log')
  })
})
