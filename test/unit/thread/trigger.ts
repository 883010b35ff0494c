/* eslint-disable @typescript-eslint/no-explicit-any -- a parsed workflow is untyped YAML */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { buildCommentPrompt } from '../../../src/thread/thread-prompt.js'
import type { CommentSummary } from '../../../src/github/api.js'
import { byCreation, markerSignature, verifyMarker } from '../../../src/thread/tracking.js'
import { isAllowedBot, isTriggerEvent, readTrigger, type TriggerRules } from '../../../src/thread/trigger.js'
import {
  assignedEvent,
  issueCommentEvent,
  labeledEvent,
  reviewCommentEvent,
  reviewEvent,
  type StoredReviewComment
} from '../../support/webhooks.js'
import { problemsOf, readInputs, type Inputs } from '../../support/read-inputs.js'

const rules: TriggerRules = {
  phrase: '/codegen',
  labelTrigger: 'codegen',
  assigneeTrigger: 'codegen-agent',
  allowedBots: new Set(['renovate'])
}

const stored: StoredReviewComment = {
  id: 900,
  body: '/codegen use a Map',
  user: { login: 'alice', type: 'User' },
  path: 'src/parser.ts',
  line: 12,
  start_line: 10,
  side: 'RIGHT',
  diff_hunk: '@@ -1 +1 @@\n-a\n+b',
  html_url: 'https://github.com/octo-org/octo-repo/pull/7#discussion_r900'
}

describe('readTrigger: labels, assignment, reviews', () => {
  test('a label on an issue, matched without regard to case; the sender asked', () => {
    const { name, payload } = labeledEvent({ label: 'CodeGen', sender: 'bob' })
    expect(readTrigger(name, payload, rules)).toMatchObject({
      kind: 'thread',
      trigger: 'label',
      label: 'CodeGen',
      instruction: '',
      fresh: false,
      author: { login: 'bob', type: 'User' },
      thread: { number: 9, isPullRequest: false, title: 'Add a CSV export' }
    })
  })

  test('a label on a pull request carries its branches from the event', () => {
    const event = labeledEvent({
      label: 'codegen',
      eventName: 'pull_request_target',
      pullRequest: { number: 3, head: 'patch-1', headRepository: 'fork/repo' }
    })
    expect(readTrigger(event.name, event.payload, rules)).toMatchObject({
      trigger: 'label',
      thread: { number: 3, isPullRequest: true },
      pullRequest: { head: 'patch-1', base: 'main', headRepository: 'fork/repo' }
    })
  })

  test('pull request events without label-trigger run from the inputs', () => {
    const event = labeledEvent({ label: 'codegen', pullRequest: {} })
    expect(readTrigger(event.name, event.payload, { phrase: '/codegen' })).toEqual({ kind: 'inputs' })
    expect(readTrigger('pull_request', {}, { phrase: '/codegen' })).toEqual({ kind: 'inputs' })
  })

  test('an assignment to assignee-trigger', () => {
    const { name, payload } = assignedEvent({ assignee: 'Codegen-Agent', sender: 'bob' })
    expect(readTrigger(name, payload, rules)).toMatchObject({
      trigger: 'assignment',
      assignee: 'Codegen-Agent',
      author: { login: 'bob' }
    })
  })

  test('a review comment: its code location, its thread, the pull request', () => {
    const { name, payload } = reviewCommentEvent(stored)
    expect(readTrigger(name, payload, rules)).toMatchObject({
      trigger: 'review-comment',
      instruction: 'use a Map',
      commentId: 900,
      commentUrl: stored.html_url,
      pullRequest: { head: 'feature/parser', base: 'main', headRepository: 'octo-org/octo-repo' },
      code: {
        path: 'src/parser.ts',
        startLine: 10,
        line: 12,
        side: 'RIGHT',
        diffHunk: stored.diff_hunk,
        threadId: 900
      }
    })
  })

  test('a reply is answered in its thread; a single line has one line; an outdated comment keeps its original line', () => {
    const reply = reviewCommentEvent({ ...stored, id: 901, start_line: null, in_reply_to_id: 900 })
    expect(readTrigger(reply.name, reply.payload, rules)).toMatchObject({
      commentId: 901,
      code: { threadId: 900, startLine: 12, line: 12 }
    })
    const outdated = reviewCommentEvent({ ...stored, line: null, start_line: null })
    outdated.payload.comment.original_line = 30
    expect(readTrigger(outdated.name, outdated.payload, rules)).toMatchObject({ code: { line: 30 } })
    const file = reviewCommentEvent({ ...stored, line: null, start_line: null })
    file.payload.comment.original_line = null
    const trigger = readTrigger(file.name, file.payload, rules)
    expect(trigger.kind === 'thread' && trigger.code?.line).toBeUndefined()
  })

  test('the oldest webhook example of a review comment (position only) still reads', () => {
    const { name, payload } = reviewCommentEvent(stored)
    delete payload.comment.line
    delete payload.comment.original_line
    delete payload.comment.side
    expect(readTrigger(name, payload, rules)).toMatchObject({
      code: { side: 'RIGHT', path: 'src/parser.ts' }
    })
  })

  test('a review: its body and state', () => {
    const { name, payload } = reviewEvent({ body: '/codegen new address all of it', state: 'COMMENTED' })
    expect(readTrigger(name, payload, rules)).toMatchObject({
      trigger: 'review',
      fresh: true,
      instruction: 'address all of it',
      reviewState: 'commented'
    })
  })

  test('comments and opened issues say what they are', () => {
    const comment = issueCommentEvent({ body: '/codegen go' })
    expect(readTrigger(comment.name, comment.payload, rules)).toMatchObject({ trigger: 'comment' })
  })

  test.each([
    ['another label', labeledEvent({ label: 'bug' }), /not label-trigger/],
    [
      'a label without label-trigger',
      labeledEvent({ label: 'codegen' }),
      /label-trigger is not set/,
      { phrase: '/codegen' }
    ],
    ['another assignee', assignedEvent({ assignee: 'carol' }), /not to assignee-trigger/],
    [
      'an assignment without assignee-trigger',
      assignedEvent({ assignee: 'x' }),
      /assignee-trigger is not set/,
      { phrase: '/codegen' }
    ],
    ['an unlabeled issue', labeledEvent({ label: 'codegen', action: 'unlabeled' }), /action "unlabeled"/],
    [
      'a pull request opened',
      labeledEvent({ label: 'codegen', pullRequest: {}, action: 'opened' }),
      /only "labeled"/
    ],
    ['an edited review comment', reviewCommentEvent(stored, { action: 'edited' }), /action "edited"/],
    [
      'a review comment without the phrase',
      reviewCommentEvent({ ...stored, body: 'LGTM' }),
      /does not start with/
    ],
    ['a dismissed review', reviewEvent({ body: '/codegen x', action: 'dismissed' }), /action "dismissed"/],
    ['a review with no body', reviewEvent({ body: null }), /review does not start with/],
    [
      'a bot labelling',
      labeledEvent({ label: 'codegen', sender: 'github-actions[bot]', senderType: 'Bot' }),
      /github-actions\[bot\] is a bot/
    ],
    [
      'a bot commenting on code',
      reviewCommentEvent({ ...stored, user: { login: 'dependabot[bot]', type: 'Bot' } }),
      /is a bot/
    ],
    [
      'the action’s own reply, even from an allowed bot',
      reviewCommentEvent({
        ...stored,
        body: '<!-- codegen-agent-run-action -->\n/codegen',
        user: { login: 'renovate[bot]', type: 'Bot' }
      }),
      /one of the action’s own/
    ]
  ])('skips %s', (_what, event, reason, given: TriggerRules = rules) => {
    const trigger = readTrigger(event.name, event.payload, given)
    expect(trigger.kind).toBe('skip')
    expect(trigger.kind === 'skip' && trigger.reason).toMatch(reason)
  })

  test('allowed bots trigger, and are marked so the permission check is skipped', () => {
    const comment = issueCommentEvent({ body: '/codegen bump', login: 'renovate[bot]', userType: 'Bot' })
    expect(readTrigger(comment.name, comment.payload, rules)).toMatchObject({
      kind: 'thread',
      allowedBot: true
    })
    expect(readTrigger(comment.name, comment.payload, { phrase: '/codegen' })).toMatchObject({ kind: 'skip' })
    const person = issueCommentEvent({ body: '/codegen bump' })
    expect(readTrigger(person.name, person.payload, { ...rules, allowedBots: '*' })).not.toHaveProperty(
      'allowedBot'
    )
  })

  test('isAllowedBot: logins with or without [bot], any case; * for all; people are never bots', () => {
    const bot = (login: string) => ({ login, type: 'Bot' })
    expect(isAllowedBot(bot('Renovate[bot]'), new Set(['renovate']))).toBe(true)
    expect(isAllowedBot(bot('renovate'), new Set(['renovate']))).toBe(true)
    expect(isAllowedBot(bot('dependabot[bot]'), new Set(['renovate']))).toBe(false)
    expect(isAllowedBot(bot('anything[bot]'), '*')).toBe(true)
    expect(isAllowedBot({ login: 'renovate', type: 'User' }, '*')).toBe(false)
    expect(isAllowedBot(bot('renovate[bot]'), undefined)).toBe(false)
  })
})

describe('markers of review comments', () => {
  const key = { secret: 's', repository: 'o/r', issueNumber: 7 }
  test('are signed for their kind: a review comment’s signature does not verify on an issue comment of the same id', () => {
    const sig = markerSignature(key, 100, 5, 'review')
    expect(verifyMarker(key, 100, { runId: 5, sig }, 'review')).toBe(true)
    expect(verifyMarker(key, 100, { runId: 5, sig }, 'issue')).toBe(false)
    // Issue comments keep the signature they always had.
    expect(markerSignature(key, 100, 5)).toBe(markerSignature(key, 100, 5, 'issue'))
  })

  test('byCreation interleaves issue and review comments by time, then id', () => {
    const at = (id: number, createdAt: string): CommentSummary => ({
      id,
      body: '',
      author: { login: 'a', type: 'User' },
      createdAt
    })
    const list = [at(3, '2026-01-01T10:00:05Z'), at(9, '2026-01-01T10:00:01Z'), at(1, '2026-01-01T10:00:05Z')]
    expect(byCreation(list).map(c => c.id)).toEqual([9, 1, 3])
  })
})

describe('prompts of the new triggers', () => {
  const thread = {
    number: 7,
    title: 'Parser',
    body: 'Body',
    url: 'https://github.com/o/r/pull/7',
    isPullRequest: true
  }
  const base = {
    standing: '',
    instruction: 'fix',
    thread,
    author: { login: 'alice', type: 'User' },
    repository: 'o/r'
  }

  test('a range across sides, a whole file, a hunk with backtick fences and invisible characters', () => {
    const code = {
      path: 'a`b.ts',
      startLine: 3,
      line: 5,
      startSide: 'LEFT',
      side: 'RIGHT',
      diffHunk: '@@ -1 +1 @@\n-```\n+````\u200b<!-- visible in a diff -->',
      threadId: 1
    }
    const prompt = buildCommentPrompt({ ...base, trigger: 'review-comment', code })
    expect(prompt).toContain(
      "The comment is on `a'b.ts` from line 3 in the base version (left side of the diff) to line 5 in the pull request’s version (right side of the diff)."
    )
    expect(prompt).toContain('`````diff\n@@ -1 +1 @@\n-```\n+````<!-- visible in a diff -->\n`````')
    expect(prompt).not.toContain('\u200b')
    const file = buildCommentPrompt({
      ...base,
      trigger: 'review-comment',
      code: { ...code, line: undefined, diffHunk: '' }
    })
    expect(file).toContain("The comment is on the file `a'b.ts` as a whole.")
  })

  test('a long hunk keeps its end, where the commented line is', () => {
    const lines = Array.from({ length: 2_000 }, (_, i) => `+line ${i}`)
    const code = {
      path: 'x',
      line: 2000,
      startLine: 2000,
      startSide: 'RIGHT',
      side: 'RIGHT',
      diffHunk: lines.join('\n'),
      threadId: 1
    }
    const prompt = buildCommentPrompt({ ...base, trigger: 'review-comment', code })
    expect(prompt).toContain('+line 1999\n```')
    expect(prompt).not.toContain('+line 0\n')
    expect(prompt).toMatch(/\[… \d+ earlier characters\]/)
  })

  test('who asked and how', () => {
    expect(buildCommentPrompt({ ...base, trigger: 'label', label: 'codegen', instruction: '' })).toContain(
      '@alice added the label "codegen" to pull request #7 in o/r'
    )
    expect(
      buildCommentPrompt({ ...base, trigger: 'review', reviewState: 'approved', requestUrl: 'u' })
    ).toContain('@alice asked for this in a review (approved) of pull request #7 in o/r: u')
  })
})

describe('settings of the new inputs', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'settings-'))
  const valid = { 'api-token': 'tok', 'org-id': '7', prompt: 'x' }
  const read = (inputs: Inputs, event = 'workflow_dispatch') =>
    readInputs(inputs, {}, { GITHUB_WORKSPACE: workspace, GITHUB_EVENT_NAME: event })
  const problems = (inputs: Inputs): string[] => problemsOf(() => read(inputs))

  test('defaults: no label, no assignee, no bots', () => {
    expect(read(valid)).toMatchObject({ labelTrigger: '', assigneeTrigger: '', allowedBots: new Set() })
  })

  test('allowed-bots: logins without [bot], lower case; or *', () => {
    expect([
      ...(read({ ...valid, 'allowed-bots': 'Renovate[bot], dependabot\n@my-app' }).allowedBots as Set<string>)
    ]).toEqual(['renovate', 'dependabot', 'my-app'])
    expect(read({ ...valid, 'allowed-bots': ' * ' }).allowedBots).toBe('*')
    expect(problems({ ...valid, 'allowed-bots': '*, renovate' })).toEqual([
      'allowed-bots: expected either * or a list of bot logins, not both'
    ])
    expect(problems({ ...valid, 'allowed-bots': 'renovate, not a/login' })[0]).toMatch(
      /^allowed-bots: expected comma-separated bot logins .* got "a\/login"/
    )
  })

  test('assignee-trigger: one login, @ allowed', () => {
    expect(read({ ...valid, 'assignee-trigger': '@codegen-agent' }).assigneeTrigger).toBe('codegen-agent')
    expect(problems({ ...valid, 'assignee-trigger': 'two people' })).toEqual([
      'assignee-trigger: expected a GitHub login such as codegen-agent, got "two people"'
    ])
  })

  test('review events and, with label-trigger, pull request events need no prompt but a github-token', () => {
    expect(isTriggerEvent('pull_request_review_comment', '')).toBe(true)
    expect(isTriggerEvent('pull_request_review', '')).toBe(true)
    expect(isTriggerEvent('pull_request_target', '')).toBe(false)
    expect(isTriggerEvent('pull_request_target', 'codegen')).toBe(true)
    expect(() =>
      read({ 'api-token': 't', 'org-id': '1', 'github-token': 'g' }, 'pull_request_review')
    ).not.toThrow()
    expect(() => read({ 'api-token': 't', 'org-id': '1', 'github-token': 'g' }, 'pull_request')).toThrow(
      /prompt: required/
    )
    expect(() =>
      read(
        { 'api-token': 't', 'org-id': '1', 'github-token': 'g', 'label-trigger': 'codegen' },
        'pull_request'
      )
    ).not.toThrow()
  })
})

describe('the recipe of docs/triggers.md that wires every trigger', () => {
  const page = readFileSync(new URL('../../../docs/triggers.md', import.meta.url), 'utf8')
  const recipe = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map(match => parse(match[1]!) as Record<string, any>)
    .find(workflow => workflow?.jobs?.agent?.steps?.[0]?.with?.['label-trigger'])!

  test('listens to every event the action reads, with the actions it handles', () => {
    expect(recipe.on).toEqual({
      issue_comment: { types: ['created'] },
      issues: { types: ['opened', 'labeled', 'assigned'] },
      pull_request_target: { types: ['labeled'] },
      pull_request_review_comment: { types: ['created'] },
      pull_request_review: { types: ['submitted'] }
    })
    for (const event of Object.keys(recipe.on)) expect(isTriggerEvent(event, 'codegen')).toBe(true)
  })

  test('asks for the permissions the action uses, and filters events with a job-level if', () => {
    expect(recipe.permissions).toEqual({
      issues: 'write',
      'pull-requests': 'write',
      checks: 'write'
    })
    const condition = recipe.jobs.agent.if as string
    const step = recipe.jobs.agent.steps[0].with
    expect(condition).toContain(`github.event.label.name == '${step['label-trigger']}'`)
    expect(condition).toContain(`github.event.assignee.login == '${step['assignee-trigger']}'`)
    for (const field of ['comment.body', 'issue.title', 'issue.body', 'review.body'])
      expect(condition).toContain(`contains(github.event.${field}, '/codegen')`)
  })
})

describe('the table of event readers', () => {
  const reason = (name: string, payload: unknown, given: TriggerRules = rules): string | undefined => {
    const trigger = readTrigger(name, payload, given)
    return trigger.kind === 'skip' ? trigger.reason : undefined
  }

  test('an action the table does not list is skipped, naming the event and the action', () => {
    const { payload } = issueCommentEvent({ body: '/codegen fix', action: 'edited' })
    expect(reason('issue_comment', payload)).toBe(
      'issue_comment events with action "edited" never trigger a run.'
    )
    expect(reason('issues', { ...payload, action: 'closed' })).toBe(
      'issues events with action "closed" never trigger a run.'
    )
    expect(reason('pull_request_target', { action: 'opened' })).toBe(
      'pull_request_target events with action "opened" never trigger a run; only "labeled" does.'
    )
    expect(reason('pull_request_review', { action: 'edited' })).toBe(
      'pull_request_review events with action "edited" never trigger a run.'
    )
    expect(reason('pull_request_review_comment', { action: 'toString' })).toBe(
      'pull_request_review_comment events with action "toString" never trigger a run.'
    )
    expect(readTrigger('constructor', {}, rules)).toEqual({ kind: 'inputs' })
    expect(isTriggerEvent('constructor', 'codegen')).toBe(false)
  })

  test('one builder: the thread, the action’s own text and the phrase, each said the same way', () => {
    const own = issueCommentEvent({ body: '<!-- codegen-agent-run-action -->\n/codegen fix' })
    expect(reason(own.name, own.payload)).toBe('The comment is one of the action’s own.')
    const noThread = issueCommentEvent({ body: '/codegen fix', issueNumber: 0 })
    expect(reason(noThread.name, noThread.payload)).toBe('The event names no issue or pull request.')
    const review = reviewEvent({ body: 'looks good' })
    expect(reason(review.name, review.payload)).toBe('The review does not start with /codegen.')
    const ownReview = reviewEvent({ body: '<!-- codegen-agent-run-action -->' })
    expect(reason(ownReview.name, ownReview.payload)).toBe('The review is one of the action’s own.')
    const label = labeledEvent({ label: 'codegen', number: 0 })
    expect(reason(label.name, label.payload)).toBe('The event names no issue or pull request.')
    const renew = issueCommentEvent({ body: '/codegen NEW  start over' })
    expect(readTrigger(renew.name, renew.payload, rules)).toMatchObject({
      fresh: true,
      instruction: 'start over',
      commentId: 5001
    })
  })
})

describe('plan, then approve: the word after the phrase', () => {
  const read = (body: string, plan = false) => {
    const trigger = readTrigger('issue_comment', issueCommentEvent({ body }).payload, { ...rules, plan })
    if (trigger.kind !== 'thread') throw new Error(`not a thread trigger: ${JSON.stringify(trigger)}`)
    return { ask: trigger.ask, instruction: trigger.instruction, fresh: trigger.fresh }
  }

  test('`plan <task>` asks for a plan, `approve [extra]` approves; any case, the rest is the instruction', () => {
    expect(read('/codegen plan fix the parser')).toEqual({
      ask: 'plan',
      instruction: 'fix the parser',
      fresh: false
    })
    expect(read('/codegen PLAN\n  fix it')).toEqual({ ask: 'plan', instruction: 'fix it', fresh: false })
    expect(read('/codegen approve')).toEqual({ ask: 'approve', instruction: '', fresh: false })
    expect(read('/codegen Approve and add a test')).toEqual({
      ask: 'approve',
      instruction: 'and add a test',
      fresh: false
    })
  })

  test('a word that only starts so is an instruction; `new` starts afresh as before', () => {
    expect(read('/codegen planning is hard')).toEqual({ instruction: 'planning is hard', fresh: false })
    expect(read('/codegen approved? fix it')).toEqual({ instruction: 'approved? fix it', fresh: false })
    expect(read('/codegen new fix it')).toEqual({ instruction: 'fix it', fresh: true })
  })

  test('with the plan input, every request but an approval asks for a plan; a label too', () => {
    expect(read('/codegen fix it', true)).toEqual({ ask: 'plan', instruction: 'fix it', fresh: false })
    expect(read('/codegen new fix it', true)).toEqual({ ask: 'plan', instruction: 'fix it', fresh: true })
    expect(read('/codegen approve', true)).toEqual({ ask: 'approve', instruction: '', fresh: false })
    const label = readTrigger('issues', labeledEvent({ label: 'codegen' }).payload, { ...rules, plan: true })
    expect(label).toMatchObject({ kind: 'thread', trigger: 'label', ask: 'plan', instruction: '' })
  })

  test('a comment is dated as the event dates it: an approval is pinned to the plan shown then', () => {
    const event = issueCommentEvent({ body: '/codegen approve' })
    event.payload.comment.created_at = '2026-12-07T10:00:02Z'
    expect(readTrigger('issue_comment', event.payload, rules)).toMatchObject({
      writtenAt: '2026-12-07T10:00:02Z'
    })
  })
})
