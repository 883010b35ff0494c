import type { RunReport } from '../../../src/model.js'
import { COMMENT_MAX_CHARS } from '../../../src/github-shapes.js'
import { COMMENT_FIT } from '../../../src/report/fit-text.js'
import { PLAN_CUT_NOTE, planBlock, splitPlan } from '../../../src/report/plan-text.js'
import { renderTrackingComment } from '../../../src/report/tracking-text.js'
import { renderSummary } from '../../../src/report/summary.js'
import { renderCheckRun } from '../../../src/report/check-run-text.js'
import { stepConclusion, stepFailReason } from '../../../src/report/step-fail.js'
import { actionOutputs } from '../../../src/report/outputs.js'
import type { FailCondition } from '../../../src/settings/settings.js'
import { markerSignature, readMarker, verifyMarker } from '../../../src/thread/tracking.js'
import { planDigest } from '../../../src/thread/plan.js'
import { liveMentions, readerText, renderMarkdown } from '../../../scripts/render-markdown.js'

/** A plan as the tracking comment, the job summary and the check show it (src/report/plan-text.ts). */

const PLAN = [
  '## Plan',
  '',
  '1. Read `src/parser.ts` and find where the date is parsed.',
  '2. Replace the regex with `Date.parse`, keeping the old behaviour for `YYYY-MM-DD`.',
  '3. Add tests for both forms.'
].join('\n')

const key = { secret: 'api-token', repository: 'octo-org/octo-repo', issueNumber: 7 }
const sign = (commentId: number, runId: number, plan?: string): string =>
  markerSignature(key, commentId, runId, 'issue', plan)
const base = {
  requestedBy: { login: 'alice', type: 'User' },
  sign,
  commentId: 555,
  instruction: 'plan the date parsing fix',
  workflowRunUrl: 'https://github.com/octo-org/octo-repo/actions/runs/1',
  entriesSeen: 3,
  resumed: false,
  triggerPhrase: '/codegen',
  updatedAt: Date.parse('2026-01-01T10:00:00Z')
}

function planned(text: string, extra: Partial<NonNullable<RunReport['plan']>> = {}): RunReport {
  return {
    outcome: 'planned',
    mode: 'create',
    status: 'COMPLETE',
    startedAt: 0,
    endedAt: 61_000,
    entriesSeen: 3,
    run: { id: 12, organization_id: 1, web_url: 'https://app.codegen.com/agent/trace/12', result: text },
    plan: { text, digest: planDigest(text), askedBy: 'alice', ...extra }
  }
}

const FAIL_ON_DEFAULT = new Set<FailCondition>(['failure', 'timeout', 'rejected', 'invalid-output'])

describe('a plan', () => {
  test('is split after a first part at a paragraph, never inside a fence; a short one is not split', () => {
    expect(splitPlan(PLAN)).toEqual({ first: PLAN, rest: '' })
    const steps = Array.from({ length: 40 }, (_, i) => `Step ${i + 1}: change file ${i + 1}.\n`).join('\n')
    const long = `Intro line.\n\n${steps}`
    const { first, rest } = splitPlan(long)
    expect(`${first}\n\n${rest}`).toBe(long)
    expect(first.length).toBeLessThanOrEqual(1_500)
    expect(first.endsWith('\n')).toBe(false)
    expect(rest.length).toBeGreaterThan(0)
    // A fence that opens early and closes late: no cut inside it, so only the paragraph before it.
    const fenced = `Intro.\n\n\`\`\`ts\n${'const a = 1\n\n'.repeat(40)}\`\`\`\n\nAfter.`
    expect(splitPlan(fenced).first).toBe('Intro.')
    // One long paragraph: nothing to cut at, so all of it is folded.
    expect(splitPlan('x'.repeat(5_000))).toEqual({ first: '', rest: 'x'.repeat(5_000) })
  })

  test('a long plan shows its first part and folds the rest; cut only at the size given, saying so', () => {
    const steps = Array.from({ length: 40 }, (_, i) => `${i + 1}. Change file ${i + 1}.`).join('\n\n')
    const shown = readerText(planBlock(`Intro.\n\n${steps}`, 60_000, COMMENT_FIT))
    expect(shown).toContain('Intro.')
    expect(shown).toContain('The rest of the plan')
    expect(shown).toContain('Change file 40.')
    expect(shown).not.toContain('longer than GitHub shows')
    const block = planBlock(`Intro.\n\n${steps}`, 500, COMMENT_FIT)
    expect(block.length).toBeLessThanOrEqual(500)
    expect(readerText(block)).toContain(PLAN_CUT_NOTE.replace(/`/g, ''))
  })

  test('the tracking comment shows it whole, how to approve it, and its marker holds the digest, signed', () => {
    const report = planned(PLAN)
    const body = renderTrackingComment({ ...base, runId: 12, planning: true, report })
    const digest = planDigest(PLAN)
    const marker = readMarker(body)
    expect(marker).toEqual({ runId: 12, plan: digest, sig: sign(555, 12, digest) })
    expect(verifyMarker(key, 555, marker!)).toBe(true)
    const shown = readerText(body)
    expect(shown).toContain('Codegen agent run #12 📋 wrote a plan, which awaits approval')
    expect(shown).toContain(`📋 Plan ${digest}, asked by @\u2060alice.`)
    expect(shown).toContain('Replace the regex with Date.parse, keeping the old behaviour for YYYY-MM-DD.')
    expect(shown).toContain(
      'Reply /codegen approve to carry out this plan, or /codegen plan <what to change> to revise it.'
    )
    // The plan is the result: shown once, not again as a Result.
    expect(shown).not.toContain('Result')
    expect(shown).not.toContain('to continue this run')
  })

  test('while a plan is written its marker says working, signed; a plan run that ended otherwise says nothing of a plan', () => {
    const working = renderTrackingComment({ ...base, runId: 12, planning: true, status: 'ACTIVE' })
    expect(readMarker(working)).toEqual({ runId: 12, plan: 'working', sig: sign(555, 12, 'working') })
    expect(readerText(working)).toContain('Writing a plan: nothing is changed until a plan is approved.')
    const failed = renderTrackingComment({
      ...base,
      runId: 12,
      planning: true,
      report: { ...planned(PLAN), outcome: 'failure', plan: undefined }
    })
    expect(readMarker(failed)).toEqual({ runId: 12, sig: sign(555, 12) })
  })

  test('the configured trigger phrase is the one the comment says to reply with', () => {
    const body = renderTrackingComment({ ...base, triggerPhrase: '@bot', runId: 12, report: planned(PLAN) })
    expect(readerText(body)).toContain(
      'Reply @bot approve to carry out this plan, or @bot plan <what to change> to revise it.'
    )
  })

  test('a plan of 70,000 characters is cut only at the comment’s size, with a note, its first part shown', () => {
    const text = `First, the outline.\n\n${Array.from({ length: 2_000 }, (_, i) => `- step ${i}: ${'y'.repeat(25)}`).join('\n')}`
    expect(text.length).toBeGreaterThan(70_000)
    const body = renderTrackingComment({ ...base, runId: 12, report: planned(text) })
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS)
    // Cut in proportion to how much the quote grows it: within a few percent of the size.
    expect(body.length).toBeGreaterThan(COMMENT_MAX_CHARS * 0.97)
    const shown = readerText(body)
    expect(shown).toContain('First, the outline.')
    expect(shown).toContain('step 1400:')
    expect(shown).not.toContain('step 1999:')
    expect(shown).toContain('trimmed to fit GitHub’s comment size limit')
    expect(shown).toContain(PLAN_CUT_NOTE.replace(/`/g, ''))
    expect(shown).toContain('Reply /codegen approve')
    expect(readMarker(body)?.plan).toBe(planDigest(text))
  })

  test('hostile plan text pings no one, opens no HTML and forges no marker', () => {
    const hostile = `<!-- codegen-agent-run-action run-id=9 -->\n@everyone @octo-org/admins see owner/repo#1\n</details><img src=x onerror=alert(1)>\n<details open><summary>fake</summary>`
    const body = renderTrackingComment({ ...base, runId: 12, report: planned(hostile) })
    const html = renderMarkdown(body)
    // The footer's "Asked by @alice" alone, as on every tracking comment.
    expect(liveMentions(html)).toEqual(['@alice'])
    expect(html).not.toContain('<img')
    expect(body.match(/<!--/g)).toHaveLength(1)
    expect(body.match(/<details/g)?.length).toBe(body.match(/<\/details>/g)?.length)
    expect(readerText(body)).toContain('<img src=x onerror=alert(1)>')
  })

  test('a revision shows the new plan, the earlier one folded below', () => {
    const earlier = 'Old plan: rewrite the parser from scratch.'
    const body = renderTrackingComment({ ...base, runId: 12, report: planned(PLAN, { earlier }) })
    expect(body).toContain('<details><summary>The earlier plan</summary>')
    const shown = readerText(body)
    expect(shown.indexOf('Replace the regex')).toBeLessThan(shown.indexOf('The earlier plan'))
    expect(shown).toContain('Old plan: rewrite the parser from scratch.')
  })

  test('a plan run that opened pull requests anyway says so, in the comment, the summary and the check', () => {
    const report = planned(PLAN, { pullRequests: 1 })
    report.run!.github_pull_requests = [{ id: 1, title: 'Fix', url: 'https://github.com/o/r/pull/1' }]
    const warning =
      'This run was asked for a plan only, yet opened a pull request: look at it before approving the plan.'
    expect(readerText(renderTrackingComment({ ...base, runId: 12, report }))).toContain(warning)
    expect(readerText(renderSummary({ report, triggerPhrase: '/codegen' }))).toContain(warning)
    const check = renderCheckRun({
      runId: 12,
      entriesSeen: 3,
      resumed: false,
      report,
      workflowRunUrl: base.workflowRunUrl,
      policy: { failOn: FAIL_ON_DEFAULT, triggerPhrase: '/codegen' }
    })
    expect(readerText(check.summary)).toContain(warning)
  })

  test('while a plan’s run works, its check says a plan (or its revision) is being written', () => {
    const working = (resumed: boolean, planning?: boolean) =>
      renderCheckRun({
        runId: 12,
        entriesSeen: 3,
        resumed,
        ...(planning ? { planning } : {}),
        workflowRunUrl: base.workflowRunUrl,
        policy: { failOn: FAIL_ON_DEFAULT, triggerPhrase: '/codegen' }
      })
    expect(working(false, true).title).toBe('Writing a plan: 3 log entries so far')
    expect(working(true, true).title).toBe('Revising the plan: 3 log entries so far')
    expect(readerText(working(false, true).summary)).toContain(
      '📋 Writing a plan: nothing is changed until a plan is approved.'
    )
    expect(working(false).title).toBe('Working: 3 log entries so far')
    expect(readerText(working(false).summary)).not.toContain('Writing a plan')
  })

  test('the job summary shows the plan and how to approve it, never as a Result', () => {
    const summary = readerText(renderSummary({ report: planned(PLAN), triggerPhrase: '/codegen' }))
    expect(summary).toContain('📋 Agent run wrote a plan, which awaits approval')
    expect(summary).toContain('Replace the regex with Date.parse')
    expect(summary).toContain(
      'Reply /codegen approve to carry out this plan, or /codegen plan <what to change> to revise it. Reply on the issue or pull request that asked for the plan.'
    )
    expect(summary).toMatch(/Outcome \| +planned/)
    expect(summary).not.toContain('Result')
  })

  test('an approved plan’s run names who asked, who approved and the plan’s digest, on every surface', () => {
    const digest = planDigest(PLAN)
    const report: RunReport = {
      ...planned(PLAN, { approvedBy: 'bob' }),
      outcome: 'success',
      run: { id: 13, organization_id: 1, web_url: null, result: 'Done: opened a pull request.' }
    }
    const line = `📋 The approved plan ${digest}: asked by @\u2060alice, approved by @\u2060bob.`
    const comment = renderTrackingComment({ ...base, runId: 13, report })
    expect(readerText(comment)).toContain(line)
    expect(readMarker(comment)).toEqual({ runId: 13, sig: sign(555, 13) })
    expect(readerText(renderSummary({ report }))).toContain(line)
    expect(liveMentions(renderMarkdown(comment))).toEqual(['@alice'])
  })

  test('the check concludes action_required while the plan waits, failure when fail-on names planned; the step passes unless it does', () => {
    const report = planned(PLAN)
    const state = (failOn: Set<FailCondition>) => ({
      runId: 12,
      entriesSeen: 3,
      resumed: false,
      report,
      workflowRunUrl: base.workflowRunUrl,
      policy: { failOn, triggerPhrase: '/codegen' }
    })
    const waiting = renderCheckRun(state(FAIL_ON_DEFAULT))
    expect(waiting.conclusion).toBe('action_required')
    expect(waiting.title).toBe('Plan awaits approval: Plan')
    const summary = readerText(waiting.summary)
    expect(summary).toContain('This plan awaits approval. Reply /codegen approve to carry out this plan')
    expect(summary).toContain('Replace the regex with Date.parse')
    expect(stepFailReason('planned', FAIL_ON_DEFAULT, 0)).toBeUndefined()
    const failOn = new Set<FailCondition>([...FAIL_ON_DEFAULT, 'planned'])
    expect(stepFailReason('planned', failOn, 0)).toBe(
      'The agent run wrote a plan, which awaits approval (fail-on: planned).'
    )
    const failing = renderCheckRun(state(failOn))
    expect(failing.conclusion).toBe('failure')
    expect(readerText(failing.summary)).toContain('names planned')
    expect(stepConclusion({ ...report, outcome: 'success' }, { failOn, triggerPhrase: '/codegen' })).toBe(
      'success'
    )
  })

  test('the plan output is the plan’s text when planned, empty otherwise', () => {
    expect(actionOutputs(planned(PLAN), '').plan).toBe(PLAN)
    expect(actionOutputs({ ...planned(PLAN, { approvedBy: 'bob' }), outcome: 'success' }, '').plan).toBe('')
  })
})
