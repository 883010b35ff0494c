import type { PullRequest } from '../../../src/api/types.js'
import { markerSignature, readMarker } from '../../../src/thread/tracking.js'
import { COMMENT_MAX_CHARS } from '../../../src/github-shapes.js'
import { renderTrackingComment } from '../../../src/report/tracking-text.js'
import type { RunReport } from '../../../src/model.js'
import { readerText, renderMarkdown } from '../../../scripts/render-markdown.js'

/** The tracking comment's text (src/report/tracking-text.ts): its marker first, its text within GitHub's size. */

describe('the tracking comment', () => {
  const key = { secret: 'api-token', repository: 'octo-org/octo-repo', issueNumber: 7 }
  const base = {
    requestedBy: { login: 'alice', type: 'User' },
    sign: (commentId: number, runId: number) => markerSignature(key, commentId, runId),
    commentId: 555,
    instruction: 'fix the typo',
    workflowRunUrl: 'https://github.com/octo-org/octo-repo/actions/runs/1',
    entriesSeen: 3,
    resumed: false,
    triggerPhrase: '/codegen',
    updatedAt: Date.parse('2026-01-01T10:00:00Z')
  }
  const report: RunReport = {
    outcome: 'success',
    mode: 'create',
    status: 'COMPLETE',
    startedAt: 0,
    endedAt: 61_000,
    entriesSeen: 3,
    run: {
      id: 12,
      organization_id: 1,
      web_url: 'https://app.codegen.com/agent/trace/12',
      result: 'Done.',
      summary: 'Short.',
      github_pull_requests: [{ id: 1, title: 'Fix typo', url: 'https://github.com/o/r/pull/1' }]
    }
  }

  test('starts with the marker of its run, and only the first line counts', () => {
    const body = renderTrackingComment({ ...base, runId: 12, status: 'ACTIVE' })
    const sig = markerSignature(key, 555, 12)
    expect(body.split('\n')[0]).toBe(`<!-- codegen-agent-run-action run-id=12 sig=${sig} -->`)
    expect(readMarker(body)).toEqual({ runId: 12, sig })
    expect(readMarker('hello\n<!-- codegen-agent-run-action run-id=99 -->')).toBeUndefined()
    expect(body).toContain('is working')
    expect(body).toContain('status `ACTIVE` · 3 log entries so far')
  })

  test('the ending shows outcome, pull requests, result and how to continue', () => {
    const body = renderTrackingComment({ ...base, runId: 12, report })
    expect(body).toContain(
      '### Codegen agent run [#12](https://app.codegen.com/agent/trace/12) ✅ **succeeded**'
    )
    expect(body).toContain('**Pull requests:** [o/r#1](https://github.com/o/r/pull/1) Fix typo')
    expect(body).toContain('<summary>Result</summary>\n\n> Done.')
    expect(body).toContain('Reply `/codegen <follow-up>` to continue this run')
  })

  test('service text can neither forge a marker nor break the comment, and the size stays under the limit', () => {
    const hostile = `<!-- codegen-agent-run-action run-id=999 -->\n</details>\n${'x'.repeat(200_000)}`
    const body = renderTrackingComment({
      ...base,
      runId: 12,
      report: { ...report, run: { ...report.run!, result: hostile, summary: hostile } }
    })
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS)
    expect(body.match(/<!--/g)).toHaveLength(1)
    // Balanced, and not because nothing rendered: the result and summary blocks are there.
    const opened = body.match(/<details/g)?.length ?? 0
    expect(opened).toBeGreaterThan(0)
    expect(body.match(/<\/details>/g)?.length ?? 0).toBe(opened)
    expect(readMarker(body)?.runId).toBe(12)
  })

  describe('stays under the limit whatever the service sends', () => {
    const MB2 = 2_000_000
    const floods: Array<[string, string]> = [
      ['&', '&'.repeat(MB2)],
      ['<', '<'.repeat(MB2)],
      ['newlines', '\n'.repeat(MB2)],
      ['mixed', '&<\n>"'.repeat(MB2 / 5)],
      ['emoji', '😀'.repeat(MB2 / 2)]
    ]
    const check = (body: string): void => {
      expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS)
      expect(readMarker(body)?.runId).toBe(12)
      expect(body.match(/<!--/g)).toHaveLength(1)
      expect(body.match(/<details/g)?.length ?? 0).toBe(body.match(/<\/details>/g)?.length ?? 0)
      expect(body).toMatch(/updated \d\d:\d\d:\d\d UTC<\/sub>$/)
      expect(body).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/)
    }

    test.each(floods)('texts flooded with %s, in the ending', (_what, flood) => {
      const body = renderTrackingComment({
        ...base,
        runId: 12,
        instruction: flood,
        report: { ...report, error: flood, run: { ...report.run!, result: flood, summary: flood } }
      })
      check(body)
      expect(body).toContain('… trimmed to fit GitHub’s comment size limit')
      for (const title of ['Error', 'Result', 'Summary', 'Request'])
        expect(body).toContain(`<summary>${title}</summary>`)
    })

    test.each(floods)(
      'one-line fields flooded with %s: status, step, pull requests, links',
      (_what, flood) => {
        const working = renderTrackingComment({
          ...base,
          runId: 12,
          webUrl: `https://app.codegen.com/${flood}`,
          status: flood,
          latestEntry: { agent_run_id: 12, tool_name: 'tool', thought: flood, message_type: flood }
        })
        check(working)
        expect(working.length).toBeLessThan(4_000)
        check(renderTrackingComment({ ...base, runId: 12, status: flood, instruction: flood }))
        const pullRequests = Array.from({ length: 1000 }, (_, id) => ({
          id,
          title: flood,
          url: `https://github.com/${flood}`
        }))
        const ended = renderTrackingComment({
          ...base,
          runId: 12,
          report: {
            ...report,
            status: flood,
            run: { ...report.run!, web_url: flood, status: flood, github_pull_requests: pullRequests }
          }
        })
        check(ended)
        expect(ended).toMatch(/\*\*Pull requests:\*\* .* and \d+ more\n/)
        expect(ended).toContain('<summary>Result</summary>\n\n> Done.')
      }
    )
  })

  test('pull requests of odd shapes (the service drifts) still render', () => {
    const odd = [{ id: 5, title: { text: 'x' }, url: 42 }] as unknown as PullRequest[]
    const body = renderTrackingComment({
      ...base,
      runId: 12,
      report: { ...report, run: { ...report.run!, github_pull_requests: odd } }
    })
    expect(body).toContain('**Pull requests:** { "text": "x" }')
  })

  test('until the comment exists its marker names no run', () => {
    expect(renderTrackingComment({ ...base, commentId: undefined, runId: 12 }).split('\n')[0]).toBe(
      '<!-- codegen-agent-run-action -->'
    )
  })

  test('until the comment exists its marker holds the create mark it is found by, and no run', () => {
    const mark = 'c0'.repeat(16)
    const first = (commentId?: number): string | undefined =>
      renderTrackingComment({ ...base, commentId, runId: 12, createMark: mark }).split('\n')[0]
    expect(first()).toBe(`<!-- codegen-agent-run-action create=${mark} -->`)
    // Once it exists, the run's signed marker replaces it.
    expect(first(99)).toMatch(/^<!-- codegen-agent-run-action run-id=12 sig=[0-9a-f]+ -->$/)
  })
})

describe('the tracking comment of a CI fix', () => {
  const key = { secret: 'api-token', repository: 'octo-org/octo-repo', issueNumber: 7 }
  const fix = {
    workflow: 'CI',
    runNumber: 163,
    url: 'https://github.com/octo-org/octo-repo/actions/runs/289782451',
    branch: 'feature/parser',
    sha: '3484a3fb816e0859fd6e1cea078d76385ff50625',
    maxAttempts: 3
  }
  const base = {
    ciFix: fix,
    sign: (commentId: number, runId: number) => markerSignature(key, commentId, runId),
    commentId: 555,
    instruction: '',
    workflowRunUrl: 'https://github.com/octo-org/octo-repo/actions/runs/4242',
    entriesSeen: 0,
    resumed: false,
    triggerPhrase: '/codegen',
    updatedAt: Date.parse('2026-01-01T10:00:00Z')
  }
  const shown = (state: Parameters<typeof renderTrackingComment>[0]): string =>
    readerText(renderMarkdown(renderTrackingComment(state)))

  test('links the failed workflow run and says which attempt it is', () => {
    expect(shown({ ...base, ciFix: { ...fix, attempt: 2 }, runId: 12, status: 'RUNNING' })).toContain(
      '🔧 CI fix of CI #163, which failed on feature/parser: attempt 2 of 3 for 3484a3f.'
    )
    const body = renderTrackingComment({ ...base, ciFix: { ...fix, attempt: 2 }, runId: 12 })
    expect(body).toContain('[CI #163](https://github.com/octo-org/octo-repo/actions/runs/289782451)')
    expect(body).toContain('`feature/parser`: attempt 2 of 3 for `3484a3f`.')
    // Before the attempts are counted: the commit alone. No one is mentioned.
    expect(shown(base)).toContain('🔧 CI fix of CI #163, which failed on feature/parser at 3484a3f.')
    expect(shown(base)).toContain('Asked by the failed CI run · workflow run · updated 10:00:00 UTC')
  })

  test('at max-fix-attempts: not started, and why', () => {
    const reason =
      'No agent run was started: max-fix-attempts (3) is reached, with 3 CI-fix runs started for the branch feature/parser of octo-org/octo-repo in the last 24 hours. The next can start at 2026-01-01 11:00 UTC.'
    const report: RunReport = {
      outcome: 'limited',
      limit: 'max-fix-attempts',
      reason,
      mode: 'create',
      status: '',
      startedAt: 0,
      endedAt: 0,
      entriesSeen: 0
    }
    const text = shown({ ...base, report })
    expect(text).toContain('Codegen agent run 🚦 was not started: max-fix-attempts is reached')
    expect(text).toContain(reason)
    expect(text).not.toContain('daily run limit')
  })

  test('a hostile workflow name or branch stays text: no mention, no link, no HTML', () => {
    const body = renderTrackingComment({
      ...base,
      ciFix: {
        ...fix,
        workflow: '@octo-org/team <b>[x](https://evil.example)',
        branch: 'a`b<!--',
        attempt: 1
      }
    })
    const html = renderMarkdown(body)
    // The team is named, not notified: a word joiner after its @.
    expect(body).not.toMatch(/@octo-org/)
    expect(readerText(html)).toContain('@\u2060octo-org/team')
    expect(html).not.toContain('<b>')
    expect(html).not.toContain('href="https://evil.example"')
    expect(html).not.toMatch(/<!--(?! codegen)/)
    expect(readerText(html)).toContain('which failed on a`b<!--: attempt 1 of 3')
  })
})
