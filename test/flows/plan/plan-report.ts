import type { RunScript } from '../../../emulator/index.js'
import { readerText, renderMarkdown } from '../../../scripts/render-markdown.js'
import { asRunnerShowsIt, type RunnerResult } from '../../../scripts/runner-process.js'
import { COMMENT_MAX_CHARS } from '../../../src/github-shapes.js'
import { markerSignature, readMarker } from '../../../src/thread/tracking.js'
import { planDigest } from '../../../src/thread/plan.js'
import {
  addParserPullRequest,
  clock,
  comment,
  creates,
  edits,
  emulator,
  github,
  onEvent,
  trackingComments
} from '../../support/comment-world.js'

/**
 * Plan, then approve, as the reports show it (issue 46): a plan's run ends `planned`, its plan in the
 * tracking comment (whole, folded, cut only at GitHub's size), the `plan` output, the summary and the
 * check (`action_required` while it waits); a revision shows the earlier plan folded; an approved
 * plan's run names who asked and who approved.
 */

const PLAN = [
  '## Plan',
  '',
  '1. Read `src/parser.ts` and find where quoted fields are split.',
  '2. Keep the quote open across commas; close it at the next unescaped quote.',
  '3. Add tests for `"a,b",c` and for an escaped quote.'
].join('\n')

/** A run that works a little, then completes with `result` (and pull requests, if any). */
function completesWith(
  result: string,
  pullRequests: RunScript['steps'][number]['pullRequests'] = []
): RunScript {
  return {
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 400, log: { message_type: 'ACTION', thought: 'Reading the parser' } },
      { at: 800, status: 'COMPLETE', result, pullRequests }
    ]
  }
}

const KEY = { secret: 'emulator-token', repository: 'octo-org/octo-repo', issueNumber: 7 }
const shown = (result: RunnerResult): string[] =>
  result.stdout.split('\n').flatMap(line => asRunnerShowsIt(line) ?? [])
const commentText = (): string => readerText(renderMarkdown(trackingComments()[0]!.body))
const APPROVE_LINE =
  'Reply /codegen approve to carry out this plan, or /codegen plan <what to change> to revise it.'

/** `login`'s comment on thread 7 (a pull request when `pullRequest`), written now, and its event dated as GitHub dates it. */
function commentNow(body: string, login = 'alice', pullRequest = false): ReturnType<typeof comment> {
  const event = comment({ body, login, pullRequest })
  const stored = github.comments(7).find(c => c.id === event.payload.comment.id)
  event.payload.comment.created_at = stored?.created_at
  return event
}

/**
 * alice asks for a plan on thread 7 (a pull request when `check-run` is set) and its run completes
 * with `plan` (its resumes then go as `followUps`); then two seconds pass: GitHub's times are to the
 * second, and an approval is pinned to the plan shown before it.
 */
async function askForPlan(
  plan: string,
  inputs: Record<string, string> = {},
  pullRequests: RunScript['steps'][number]['pullRequests'] = [],
  followUps: RunScript[] = []
): Promise<RunnerResult> {
  emulator.queueScript({ ...completesWith(plan, pullRequests), followUps })
  const event = commentNow('/codegen plan fix the quoted fields', 'alice', 'check-run' in inputs)
  const result = await onEvent(event, inputs)
  await clock().run(() => clock().advance(2_000))
  return result
}

describe('plan, then approve: the reports', () => {
  test('a plan’s run ends planned: the step passes, the plan output, the comment shows the plan and how to approve it, its marker the digest signed', async () => {
    const result = await askForPlan(PLAN)
    expect(result.exitCode).toBe(0)
    expect(result.outputs).toMatchObject({ outcome: 'planned', plan: PLAN, result: PLAN })
    const [tracking] = trackingComments()
    const runId = emulator.runs()[0]!.id
    const digest = planDigest(PLAN)
    expect(readMarker(tracking!.body)).toEqual({
      runId,
      plan: digest,
      sig: markerSignature(KEY, tracking!.id, runId, 'issue', digest)
    })
    // While the run worked, its marker said so, signed.
    const working = edits().map(edit => readMarker((edit.body as { body: string }).body))
    expect(working).toContainEqual({
      runId,
      plan: 'working',
      sig: markerSignature(KEY, tracking!.id, runId, 'issue', 'working')
    })
    const text = commentText()
    expect(text).toContain(`Codegen agent run #${runId} 📋 wrote a plan, which awaits approval`)
    expect(text).toContain('Keep the quote open across commas; close it at the next unescaped quote.')
    expect(text).toContain(APPROVE_LINE)
    expect(text).not.toContain('to continue this run')
    const summary = readerText(renderMarkdown(result.summary))
    expect(summary).toContain('📋 Agent run wrote a plan, which awaits approval')
    expect(summary).toContain('Keep the quote open across commas')
    expect(summary).toContain(APPROVE_LINE)
  })

  test('fail-on: planned fails the step on a plan that awaits approval', async () => {
    const result = await askForPlan(PLAN, { 'fail-on': 'failure,timeout,planned' })
    expect(result.exitCode).toBe(1)
    expect(result.outputs['outcome']).toBe('planned')
    expect(shown(result)).toContainEqual(
      expect.stringContaining('The agent run wrote a plan, which awaits approval (fail-on: planned).')
    )
  })

  test('on a pull request the check concludes action_required while the plan waits, and says how to approve it', async () => {
    addParserPullRequest()
    const result = await askForPlan(PLAN, { 'check-run': 'auto' })
    expect(result.exitCode).toBe(0)
    const [check] = github.checkRuns()
    expect(check).toMatchObject({ status: 'completed', conclusion: 'action_required' })
    expect(check!.details_url).toEqual(expect.stringMatching(/^https?:\/\//))
    expect(check!.output.title).toBe('Plan awaits approval: Plan')
    // While the plan was written, the check said so: nothing is changed yet.
    const written = github.requests
      .filter(r => r.path.includes('/check-runs'))
      .map(
        r => (r.body as { status?: string; output?: { title: string; summary: string } } | undefined) ?? {}
      )
      .filter(body => body.status === 'in_progress')
    expect(written.length).toBeGreaterThan(0)
    for (const body of written) {
      expect(body.output?.title).toMatch(/^Writing a plan: /)
      expect(readerText(renderMarkdown(body.output?.summary ?? ''))).toContain(
        '📋 Writing a plan: nothing is changed until a plan is approved.'
      )
    }
    const summary = readerText(renderMarkdown(check!.output.summary!))
    expect(summary).toContain(`This plan awaits approval. ${APPROVE_LINE}`)
    expect(summary).toContain('Keep the quote open across commas')
  })

  test('a plan of 70,000 characters is shown up to the comment’s size, with a note; the output holds it whole', async () => {
    const long = `Outline first.\n\n${Array.from({ length: 2_000 }, (_, i) => `- step ${i}: ${'z'.repeat(25)}`).join('\n')}`
    expect(long.length).toBeGreaterThan(70_000)
    const result = await askForPlan(long)
    expect(result.outputs['plan']).toBe(long)
    const body = trackingComments()[0]!.body
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS)
    expect(body.length).toBeGreaterThan(COMMENT_MAX_CHARS * 0.97)
    expect(readMarker(body)?.plan).toBe(planDigest(long))
    const text = commentText()
    expect(text).toContain('Outline first.')
    expect(text).toContain('This plan is longer than GitHub shows here')
    expect(text).toContain(APPROVE_LINE)
  })

  test('a plan’s run that opened a pull request anyway is reported plainly: a warning, the comment and the summary', async () => {
    const pr = {
      id: 9,
      title: 'Fix quoted fields',
      url: 'https://github.com/octo-org/octo-repo/pull/9',
      head_branch_name: 'codegen/quoted-fields',
      state: 'open'
    }
    const result = await askForPlan(PLAN, {}, [pr])
    expect(result.outputs['outcome']).toBe('planned')
    const runId = emulator.runs()[0]!.id
    expect(shown(result)).toContain(
      `Warning: Agent run ${runId} was asked for a plan only, yet opened a pull request: look at it before approving the plan.`
    )
    const said =
      'This run was asked for a plan only, yet opened a pull request: look at it before approving the plan.'
    expect(commentText()).toContain(said)
    expect(readerText(renderMarkdown(result.summary))).toContain(said)
  })

  test('a revision shows the new plan, the earlier one folded below it', async () => {
    await askForPlan('Old plan: rewrite the parser.', {}, [], [completesWith(PLAN)])
    const revised = await onEvent(commentNow('/codegen plan keep the parser, fix the split', 'carol'))
    expect(revised.outputs['outcome']).toBe('planned')
    // Who asked first (the plan's run's metadata), and who asked for the revision.
    const people = `📋 Plan ${planDigest(PLAN)}, asked by @\u2060alice, revised as @\u2060carol asked.`
    expect(readerText(renderMarkdown(trackingComments().at(-1)!.body))).toContain(people)
    expect(readerText(renderMarkdown(revised.summary))).toContain(people)
    expect(revised.outputs['plan']).toBe(PLAN)
    const body = trackingComments().at(-1)!.body
    expect(body).toContain('<details><summary>The earlier plan</summary>')
    const text = commentText()
    expect(text.indexOf('Keep the quote open')).toBeLessThan(text.indexOf('The earlier plan'))
    expect(text).toContain('Old plan: rewrite the parser.')
    expect(readMarker(body)?.plan).toBe(planDigest(PLAN))
  })

  test('an approved plan’s run names who asked, who approved and the digest, in the comment and the summary', async () => {
    await askForPlan(PLAN, {}, [], [completesWith('Done: the quoted fields parse.')])
    const approved = await onEvent(commentNow('/codegen approve', 'bob'))
    expect(approved.outputs['outcome']).toBe('success')
    expect(approved.outputs['plan']).toBe('')
    const line = `📋 The approved plan ${planDigest(PLAN)}: asked by @\u2060alice, approved by @\u2060bob.`
    expect(readerText(renderMarkdown(trackingComments().at(-1)!.body))).toContain(line)
    expect(readerText(renderMarkdown(approved.summary))).toContain(line)
    expect(creates().length + emulator.requests.filter(r => r.route === 'resume').length).toBe(2)
  })
})
