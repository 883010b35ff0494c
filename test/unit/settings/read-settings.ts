import { mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type InputName } from '../../../src/settings/settings.js'
import { checkNow } from '../../../src/answer/check.js'
import { problemsOf as problemsOfReading, readInputs, type Inputs } from '../../support/read-inputs.js'

describe('read-settings', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'settings-'))
  afterAll(() => rmSync(workspace, { recursive: true, force: true }))

  const settingsFrom = (inputs: Inputs, env: Record<string, string> = {}) =>
    readInputs(inputs, env, { GITHUB_WORKSPACE: workspace })
  const problemsOf = (inputs: Inputs, env: Record<string, string> = {}): string[] =>
    problemsOfReading(() => settingsFrom(inputs, env))

  const valid = { 'api-token': 'tok-123456', 'org-id': '7', prompt: 'Fix it' }

  describe('readSettings', () => {
    test('applies the defaults of action.yml', () => {
      const settings = settingsFrom(valid)
      expect(settings).toMatchObject({
        orgId: 7,
        baseUrl: 'https://api.codegen.com',
        wait: true,
        timeoutMs: 30 * 60_000,
        pollIntervalMs: 5_000,
        mirrorToConsole: true,
        mirrorToSummary: true,
        triggerPhrase: '/codegen',
        comment: true
      })
      expect([...settings.failOn]).toEqual(['failure', 'timeout', 'rejected', 'invalid-output'])
      // Nothing asked of the answer: the prompt stays as it is.
      expect(settings.answer).toBeUndefined()
    })

    test('falls back to CODEGEN_API_TOKEN and CODEGEN_ORG_ID', () => {
      const settings = settingsFrom({ prompt: 'x' }, { CODEGEN_API_TOKEN: 'env-token', CODEGEN_ORG_ID: '12' })
      expect(settings.apiToken).toBe('env-token')
      expect(settings.orgId).toBe(12)
    })

    test('accepts fractions for time inputs', () => {
      const settings = settingsFrom({ ...valid, 'timeout-minutes': '0.5', 'poll-interval': '.25' })
      expect(settings.timeoutMs).toBe(30_000)
      expect(settings.pollIntervalMs).toBe(250)
    })

    test.each([
      [{ 'org-id': '1.5' }, 'org-id: expected a positive integer, got "1.5"'],
      [{ 'org-id': '0' }, 'org-id: expected a positive integer, got "0"'],
      [{ 'repo-id': 'abc' }, 'repo-id: expected a positive integer, got "abc"'],
      [{ 'agent-run-id': '-3' }, 'agent-run-id: expected a positive integer, got "-3"'],
      [
        { 'timeout-minutes': '0' },
        'timeout-minutes: expected a positive number (fractions allowed), got "0"'
      ],
      [
        { 'poll-interval': 'soon' },
        'poll-interval: expected a positive number (fractions allowed), got "soon"'
      ],
      [
        { 'timeout-minutes': '40000' },
        'timeout-minutes: expected at most 35000 (what the runner\'s timers can hold), got "40000"'
      ],
      [
        { 'poll-interval': '2147484' },
        'poll-interval: expected at most 86400 (what the runner\'s timers can hold), got "2147484"'
      ],
      [{ wait: 'yes' }, 'wait: expected true or false, got "yes"'],
      [{ 'agent-type': 'gpt' }, 'agent-type: expected one of codegen, claude_code, got "gpt"'],
      [{ metadata: '[1,2]' }, 'metadata: expected a JSON object, such as {"team": "platform"}'],
      [{ metadata: '{oops' }, 'metadata: expected a JSON object, such as {"team": "platform"}'],
      [
        { 'trigger-phrase': '/code gen' },
        'trigger-phrase: expected one word such as /codegen, got "/code gen"'
      ]
    ])('rejects %j', (bad, problem) => {
      expect(problemsOf({ ...valid, ...bad })).toEqual([problem])
    })

    test('timers up to the documented maxima are taken', () => {
      const settings = settingsFrom({ ...valid, 'timeout-minutes': '35000', 'poll-interval': '86400' })
      expect(settings.timeoutMs).toBe(35_000 * 60_000)
      expect(settings.timeoutMs).toBeLessThan(2 ** 31)
      expect(settings.pollIntervalMs).toBe(86_400_000)
    })

    test('fail-on and mirror-logs take known words or none', () => {
      expect([...settingsFrom({ ...valid, 'fail-on': 'none' }).failOn]).toEqual([])
      expect([...settingsFrom({ ...valid, 'fail-on': 'Failure, paused\nno-pull-request' }).failOn]).toEqual([
        'failure',
        'paused',
        'no-pull-request'
      ])
      expect([...settingsFrom({ ...valid, 'fail-on': 'rejected invalid-output' }).failOn]).toEqual([
        'rejected',
        'invalid-output'
      ])
      expect(problemsOf({ ...valid, 'fail-on': 'failure,crash' })).toEqual([
        'fail-on: expected a comma-separated list of failure, timeout, paused, no-pull-request, rejected, invalid-output, limited, planned (or none), got "crash"'
      ])
      expect(problemsOf({ ...valid, 'fail-on': 'none,failure' })[0]).toMatch(/^fail-on: .*got "none"/)
      const quiet = settingsFrom({ ...valid, 'mirror-logs': 'none' })
      expect([quiet.mirrorToConsole, quiet.mirrorToSummary]).toEqual([false, false])
    })

    test('fail-on not written: paused fails too when an answer is asked; written, it is taken as written', () => {
      const failOn = (inputs: Inputs) => [...settingsFrom({ ...valid, ...inputs }).failOn]
      const byDefault = ['failure', 'timeout', 'rejected', 'invalid-output']
      expect(failOn({})).toEqual(byDefault)
      // A question is no answer: a gate that asked for one never goes green without it.
      for (const asked of [
        { verdict: 'true' },
        { 'output-schema': '{"type": "object"}' },
        { findings: 'true' },
        { prompt: '', runs: '- prompt: Review the docs', verdict: 'true' }
      ])
        expect([asked, failOn(asked)]).toEqual([asked, [...byDefault, 'paused']])
      // Blank is not written (the runner gives an unset input as empty).
      expect(failOn({ verdict: 'true', 'fail-on': ' \n' })).toEqual([...byDefault, 'paused'])
      expect(failOn({ verdict: 'true', 'fail-on': 'failure,timeout,rejected,invalid-output' })).toEqual(
        byDefault
      )
      expect(failOn({ verdict: 'true', 'fail-on': 'none' })).toEqual([])
    })

    test('base-url must be https unless it is a loopback address', () => {
      expect(settingsFrom({ ...valid, 'base-url': 'http://127.0.0.1:8080/' }).baseUrl).toBe(
        'http://127.0.0.1:8080'
      )
      expect(settingsFrom({ ...valid, 'base-url': 'http://localhost:9' }).baseUrl).toBe('http://localhost:9')
      expect(settingsFrom({ ...valid, 'base-url': 'http://[::1]:9' }).baseUrl).toBe('http://[::1]:9')
      expect(problemsOf({ ...valid, 'base-url': 'http://10.0.0.5' })[0]).toMatch(
        /^base-url: expected an https URL/
      )
      expect(problemsOf({ ...valid, 'base-url': 'http://localhost.evil.com' })[0]).toMatch(/^base-url/)
      expect(problemsOf({ ...valid, 'base-url': 'https://user:pw@api.codegen.com' })[0]).toMatch(
        /without credentials/
      )
    })

    test('prompt is required outside comment events, and named for resumes', () => {
      expect(problemsOf({ ...valid, prompt: '' })).toEqual([
        'prompt: required; the instruction of the new agent run'
      ])
      expect(problemsOf({ ...valid, prompt: '', 'agent-run-id': '5' })).toEqual([
        'prompt: required; the follow-up instruction that resumes the agent run'
      ])
      expect(
        problemsOf({ ...valid, prompt: '', 'github-token': 'ghs_x' }, { GITHUB_EVENT_NAME: 'issue_comment' })
      ).toEqual([])
    })

    test('task: run by default, check or setup-commands; other words refused', () => {
      expect(settingsFrom(valid).task).toBe('run')
      expect(settingsFrom({ ...valid, task: 'Check' }).task).toBe('check')
      expect(problemsOf({ ...valid, task: 'deploy' })).toEqual([
        'task: expected one of run, check, setup-commands, got "deploy"'
      ])
      // Neither needs a prompt; setup-commands starts its own run, so an agent-run-id is a mistake.
      expect(problemsOf({ ...valid, task: 'check', prompt: '' })).toEqual([])
      expect(problemsOf({ ...valid, task: 'setup-commands', prompt: '' })).toEqual([])
      expect(problemsOf({ ...valid, task: 'setup-commands', 'agent-run-id': '5' })).toEqual([
        'agent-run-id: not used with task setup-commands, which starts its own run; remove it'
      ])
      // Only runs come from comments: no github-token needed for the others there.
      expect(problemsOf({ ...valid, task: 'check' }, { GITHUB_EVENT_NAME: 'issue_comment' })).toEqual([])
    })

    test("org-id may be empty (the token's only organization is looked up)", () => {
      expect(settingsFrom({ 'api-token': 'tok-123456', prompt: 'x' }).orgId).toBeUndefined()
    })

    test("repository: owner/name, else the workflow's repository", () => {
      const own = settingsFrom(valid, { GITHUB_REPOSITORY: 'octo-org/octo-repo' })
      expect([own.repository, own.repositoryNamed]).toEqual(['octo-org/octo-repo', false])
      const named = settingsFrom(
        { ...valid, repository: 'other-org/some.repo_2' },
        { GITHUB_REPOSITORY: 'a/b' }
      )
      expect([named.repository, named.repositoryNamed]).toEqual(['other-org/some.repo_2', true])
      for (const bad of ['octo-repo', 'a/b/c', 'https://github.com/a/b', 'a b/c']) {
        expect(problemsOf({ ...valid, repository: bad })).toEqual([
          `repository: expected owner/name such as octo-org/octo-repo, got "${bad}"`
        ])
      }
    })

    test('github-token is required on comment events only', () => {
      expect(problemsOf({ ...valid }, { GITHUB_EVENT_NAME: 'issues' })).toEqual([
        "github-token: required on issues events (permission check, reaction, tracking comment); leave it unset for the job's GITHUB_TOKEN"
      ])
      expect(problemsOf({ ...valid }, { GITHUB_EVENT_NAME: 'push' })).toEqual([])
    })

    test('reports every problem at once', () => {
      expect(problemsOf({ 'org-id': 'x', wait: 'maybe' })).toHaveLength(4)
      expect(() => settingsFrom({})).toThrow(/^Invalid inputs:\n- api-token: required/)
    })

    test('names every bad input in one list, in the order read: the service, the work, following, threads, reporting', () => {
      const bad: Partial<Record<InputName, string>> = {
        'org-id': 'x',
        'base-url': 'ftp://api.codegen.com',
        task: 'deploy',
        'agent-run-id': 'a',
        'repo-id': '0',
        repository: 'not a repo',
        runs: '[]',
        'max-parallel': '0',
        'agent-type': 'robot',
        metadata: '[1]',
        images: 'missing.png',
        verdict: 'maybe',
        'output-retries': '9',
        'fail-on': 'crash',
        'mirror-logs': 'everywhere',
        wait: 'maybe',
        'timeout-minutes': '0',
        'poll-interval': 'soon',
        'trigger-phrase': 'two words',
        'assignee-trigger': '-bad-',
        'allowed-bots': '*,renovate',
        comment: 'maybe',
        'check-run': 'maybe',
        'check-name': 'a\nb'
      }
      expect(problemsOf(bad).map(problem => problem.split(':')[0])).toEqual([
        'api-token',
        'org-id',
        'base-url',
        'task',
        'agent-run-id',
        'repo-id',
        'repository',
        'runs',
        'runs',
        'max-parallel',
        'agent-type',
        'metadata',
        'images',
        'verdict',
        'output-retries',
        'fail-on',
        'mirror-logs',
        'wait',
        'timeout-minutes',
        'poll-interval',
        'trigger-phrase',
        'assignee-trigger',
        'allowed-bots',
        'comment',
        'check-run',
        'check-name'
      ])
    })

    test('plan, approvers, allow-self-approval: defaults, logins and org/team slugs, one problem each', () => {
      const thread = { ...valid, 'github-token': 'ghs_x' }
      const onComment = { GITHUB_EVENT_NAME: 'issue_comment' }
      expect(settingsFrom(thread, onComment)).toMatchObject({ plan: false, allowSelfApproval: true })
      expect(settingsFrom(thread, onComment).approvers).toBeUndefined()
      const named = settingsFrom(
        {
          ...thread,
          plan: 'true',
          approvers: '@Alice, octo-org/Reviewers\nbob',
          'allow-self-approval': 'false'
        },
        onComment
      )
      expect(named).toMatchObject({ plan: true, allowSelfApproval: false })
      expect(named.approvers).toEqual({
        logins: new Set(['alice', 'bob']),
        teams: [{ org: 'octo-org', slug: 'reviewers' }]
      })
      expect(
        problemsOf(
          { ...thread, approvers: 'alice, a/b/c, -bad-, org/', 'allow-self-approval': 'no' },
          onComment
        )
      ).toEqual([
        'approvers: expected comma-separated GitHub logins and org/team slugs such as alice, octo-org/reviewers, got "a/b/c, -bad-, org/"',
        'allow-self-approval: expected true or false, got "no"'
      ])
    })

    test('plan: true needs an issue or pull request in the event', () => {
      const problem = (env: Record<string, string>, inputs: Inputs = {}) =>
        problemsOf({ ...valid, 'github-token': 'ghs_x', plan: 'true', ...inputs }, env).filter(p =>
          p.startsWith('plan:')
        )
      expect(problem({ GITHUB_EVENT_NAME: 'issue_comment' })).toEqual([])
      expect(problem({ GITHUB_EVENT_NAME: 'issue_comment' }, { comment: 'false' })).toEqual([
        'plan: true needs comment: true (the tracking comment shows the plan, and an approval is pinned to it); set comment to true, or plan to false'
      ])
      expect(problem({ GITHUB_EVENT_NAME: 'issue_comment' }, { wait: 'false' })).toEqual([
        'plan: true needs wait: true (the plan is shown, to be approved, once its run ends, which a step with wait: false never sees); set wait to true, or plan to false'
      ])
      expect(problem({ GITHUB_EVENT_NAME: 'issues' })).toEqual([])
      expect(problem({ GITHUB_EVENT_NAME: 'pull_request' }, { 'label-trigger': 'codegen' })).toEqual([])
      for (const event of ['push', 'workflow_dispatch', 'workflow_run', 'pull_request'])
        expect(problem({ GITHUB_EVENT_NAME: event })).toEqual([
          `plan: true needs an issue or pull request in the event (an issue opened, labelled or assigned, a comment, a review, a pull request with label-trigger); the ${event} event has none: set plan to false, or run on such an event`
        ])
    })

    test('decides once whether the event asks for a run (settings.triggerEvent)', () => {
      expect(settingsFrom({ ...valid }, { GITHUB_EVENT_NAME: 'push' }).triggerEvent).toBe(false)
      expect(settingsFrom({ ...valid }, { GITHUB_EVENT_NAME: 'workflow_dispatch' }).triggerEvent).toBe(false)
      const thread = { ...valid, 'github-token': 'ghs_x' }
      expect(settingsFrom(thread, { GITHUB_EVENT_NAME: 'issue_comment' }).triggerEvent).toBe(true)
      // A label starts a run only when label-trigger names one.
      expect(settingsFrom(thread, { GITHUB_EVENT_NAME: 'pull_request' }).triggerEvent).toBe(false)
      expect(
        settingsFrom({ ...thread, 'label-trigger': 'codegen' }, { GITHUB_EVENT_NAME: 'pull_request' })
          .triggerEvent
      ).toBe(true)
    })
  })

  const outside = mkdtempSync(join(tmpdir(), 'settings-outside-'))
  afterAll(() => rmSync(outside, { recursive: true, force: true }))

  describe('readSettings: verdict, output-schema, output-retries', () => {
    const schema = '{"type": "object", "properties": {"files": {"type": "array"}}, "required": ["files"]}'
    writeFileSync(join(outside, 'schema.json'), schema)

    test('verdict alone: the verdict schema, one repair by default', () => {
      const answer = settingsFrom({ ...valid, verdict: 'true' }).answer
      expect(answer).toMatchObject({ verdict: true, retries: 1, schema: { required: ['verdict', 'reason'] } })
      expect(checkNow(answer!.schema, { verdict: 'fail', reason: 'It breaks parse().' })).toEqual({
        errors: []
      })
    })

    test('an allOf that is not an array: refused with or without verdict, the same way', () => {
      const schema = '{"type": "object", "allOf": {"required": ["files"]}}'
      const alone = problemsOf({ ...valid, 'output-schema': schema })
      expect(alone).toEqual([
        expect.stringMatching(/^output-schema: it is not a valid JSON Schema: .*allOf must be array/)
      ])
      expect(problemsOf({ ...valid, 'output-schema': schema, verdict: 'true' })).toEqual(alone)
    })

    test('output-schema inline (JSON or YAML) or as a workspace file; with verdict, both', () => {
      writeFileSync(join(workspace, 'answer.yml'), 'type: object\nrequired: [files]\n')
      for (const text of [schema, 'type: object\nrequired: [files]', 'answer.yml']) {
        const answer = settingsFrom({ ...valid, 'output-schema': text, 'output-retries': '0' }).answer
        expect(answer).toMatchObject({ verdict: false, retries: 0, schema: { required: ['files'] } })
      }
      const both = settingsFrom({ ...valid, 'output-schema': 'answer.yml', verdict: 'true' }).answer
      expect(checkNow(both!.schema, { files: [] })).toEqual({
        errors: [
          { pointer: '', message: "must have required property 'verdict'" },
          { pointer: '', message: "must have required property 'reason'" }
        ]
      })
    })

    test.each([
      [{ 'output-retries': '4' }, 'output-retries: expected a whole number from 0 to 3, got "4"'],
      [{ 'output-retries': '-1' }, 'output-retries: expected a whole number from 0 to 3, got "-1"'],
      [{ 'output-retries': '1.5' }, 'output-retries: expected a whole number from 0 to 3, got "1.5"'],
      [{ verdict: 'yes' }, 'verdict: expected true or false, got "yes"'],
      [
        { 'output-schema': 'a list of files' },
        'output-schema: it is not a JSON Schema object (such as {"type": "object", ...})'
      ],
      [
        { 'output-schema': '{"type": "objekt"}' },
        expect.stringMatching(
          /^output-schema: it is not a valid JSON Schema: schema is invalid: data\/type must be equal to one of the allowed values/
        )
      ],
      [
        { 'output-schema': 'type: [object' },
        expect.stringMatching(/^output-schema: it is neither JSON nor YAML: /)
      ],
      [
        { 'output-schema': 'missing.json' },
        `output-schema: the file "missing.json" is not in the workspace (${workspace})`
      ],
      [
        { 'output-schema': '/etc/../etc/hostname.json' },
        expect.stringMatching(
          /^output-schema: the file "\/etc\/..\/etc\/hostname.json" is not in the workspace/
        )
      ],
      [
        { 'output-schema': join(outside, 'schema.json') },
        expect.stringMatching(/^output-schema: the file ".*schema.json" is outside the workspace/)
      ],
      [
        { task: 'check', verdict: 'true' },
        'verdict: not used with task check, which starts no run; remove it'
      ],
      [
        { task: 'setup-commands', 'output-schema': schema },
        'output-schema: not used with task setup-commands, whose result is the setup commands; remove it'
      ]
    ])('refuses %j before any request', (bad, problem) => {
      expect(problemsOf({ ...valid, ...bad })).toEqual([problem])
    })

    test('findings: asked alone, with a verdict, or with an output-schema that has them; review-comments with them', () => {
      const alone = settingsFrom({ ...valid, findings: 'true' })
      expect(alone.answer).toMatchObject({
        verdict: false,
        findings: true,
        given: false,
        schema: { required: ['findings'] }
      })
      expect(alone.reviewComments).toBe(false)
      const both = settingsFrom({ ...valid, findings: 'true', verdict: 'true', 'review-comments': 'true' })
      expect(both.answer?.schema).toMatchObject({ required: ['verdict', 'reason', 'findings'] })
      expect(both.reviewComments).toBe(true)
      const shaped = JSON.stringify({
        type: 'object',
        properties: {
          findings: {
            type: 'array',
            items: { properties: { path: {}, line: {}, severity: {}, message: {} } }
          }
        }
      })
      const given = settingsFrom({ ...valid, findings: 'true', 'output-schema': shaped }).answer
      expect(given).toMatchObject({ findings: true, given: true })
      expect(
        checkNow(given!.schema, { findings: [{ path: '/abs', line: 1, severity: 'failure', message: 'm' }] })
      ).toEqual({
        errors: [expect.objectContaining({ pointer: '/findings/0/path' })]
      })
      // Not asked: as before.
      expect(settingsFrom(valid)).toMatchObject({ reviewComments: false, answer: undefined })
    })

    test.each([
      [{ findings: 'yes' }, 'findings: expected true or false, got "yes"'],
      [{ 'review-comments': 'maybe' }, 'review-comments: expected true or false, got "maybe"'],
      [
        { 'review-comments': 'true' },
        'review-comments: needs findings: true (the review is made of the findings); set it, or remove review-comments'
      ],
      [
        { findings: 'true', 'output-schema': schema },
        expect.stringMatching(
          /^output-schema: with findings: true, the schema must have a findings property of the findings’ shape/
        )
      ],
      [
        { task: 'check', findings: 'true' },
        'findings: not used with task check, which starts no run; remove it'
      ],
      [
        { task: 'check', 'review-comments': 'true' },
        'review-comments: not used with task check, which starts no review; remove it'
      ],
      [
        { prompt: '', findings: 'true', runs: '- prompt: a\n- prompt: b' },
        'findings: not used with runs (a step shows one run’s findings on the lines they are about); ask for them in a step of their own'
      ]
    ])('findings inputs: refuses %j before any request', (bad, problem) => {
      expect(problemsOf({ ...valid, ...bad })).toEqual([problem])
    })

    test('thread-images: true unless set to false; anything else is refused naming the input', () => {
      expect(settingsFrom(valid).threadImages).toBe(true)
      expect(settingsFrom({ ...valid, 'thread-images': 'false' }).threadImages).toBe(false)
      expect(problemsOf({ ...valid, 'thread-images': 'sometimes' })).toEqual([
        'thread-images: expected true or false, got "sometimes"'
      ])
    })

    test('every answer problem is reported with the others, at once', () => {
      expect(
        problemsOf({
          ...valid,
          task: 'check',
          verdict: 'true',
          'output-schema': schema,
          'output-retries': '9'
        })
      ).toEqual([
        'output-retries: expected a whole number from 0 to 3, got "9"',
        'verdict: not used with task check, which starts no run; remove it',
        'output-schema: not used with task check, which starts no run; remove it'
      ])
    })
  })
})
