import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { problemsOf as problemsOfReading, readInputs, type Inputs } from '../../support/read-inputs.js'

describe('runs', () => {
  const root = mkdtempSync(join(tmpdir(), 'runs-test-'))
  const workspace = join(root, 'workspace')
  mkdirSync(workspace)
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  const base = { 'api-token': 'tok-123456', 'org-id': '7' }

  const settingsFrom = (inputs: Inputs, env: Record<string, string> = {}) =>
    readInputs({ ...base, ...inputs }, env, { GITHUB_WORKSPACE: workspace })
  const problemsOf = (inputs: Inputs, env: Record<string, string> = {}): string[] =>
    problemsOfReading(() => settingsFrom(inputs, env))

  describe('the runs input', () => {
    test('reads an inline YAML list: every key, unnamed items named by their position', () => {
      const settings = settingsFrom({
        runs: [
          '- name: api',
          '  prompt: Upgrade lodash in the API',
          '  repository: octo-org/api',
          '  model: claude-sonnet',
          '  agent-type: claude_code',
          '  metadata: { team: platform }',
          '- prompt: |',
          '    Upgrade lodash in the web app',
          '    and run its tests',
          "  repo-id: '42'",
          '- { prompt: Third, repo-id: 7, name: 2024 }'
        ].join('\n')
      })
      expect(settings.runs).toEqual([
        {
          name: 'api',
          prompt: 'Upgrade lodash in the API',
          repository: 'octo-org/api',
          model: 'claude-sonnet',
          agentType: 'claude_code',
          metadata: { team: 'platform' }
        },
        { name: 'run 2', prompt: 'Upgrade lodash in the web app\nand run its tests', repoId: 42 },
        { name: '2024', prompt: 'Third', repoId: 7 }
      ])
      expect(settings.maxParallel).toBe(10)
      expect(settings.prompt).toBe('')
    })

    test('reads a JSON list, as a previous step writes it', () => {
      const list = [
        { name: 'issue #12', prompt: 'Fix issue 12' },
        { name: 'issue #13', prompt: 'Fix "issue" 13: {}', repository: 'octo-org/octo-repo' }
      ]
      const settings = settingsFrom({ runs: JSON.stringify(list) })
      expect(settings.runs?.map(item => [item.name, item.prompt])).toEqual([
        ['issue #12', 'Fix issue 12'],
        ['issue #13', 'Fix "issue" 13: {}']
      ])
    })

    test('reads the list from a file of the workspace, YAML or JSON', () => {
      mkdirSync(join(workspace, '.github'), { recursive: true })
      writeFileSync(join(workspace, '.github/runs.yml'), '- prompt: From a file\n  name: filed\n')
      writeFileSync(join(workspace, 'runs.json'), '[{"prompt": "From JSON"}]')
      expect(settingsFrom({ runs: '.github/runs.yml' }).runs).toEqual([
        { name: 'filed', prompt: 'From a file' }
      ])
      expect(settingsFrom({ runs: 'runs.json' }).runs).toEqual([{ name: 'run 1', prompt: 'From JSON' }])
    })

    test.each([
      ['missing.yml', 'runs: "missing.yml" is not a file in the workspace'],
      ['../outside.yml', 'runs: "../outside.yml" is outside the workspace'],
      ['link.yml', 'runs: "link.yml" is outside the workspace'],
      ['.github', 'runs: ".github" is not a file']
    ])('a path %s that is not a file of the workspace is an error naming runs', (path, problem) => {
      writeFileSync(join(root, 'outside.yml'), '- prompt: secret')
      try {
        symlinkSync(join(root, 'outside.yml'), join(workspace, 'link.yml'))
      } catch {
        // made by an earlier case
      }
      mkdirSync(join(workspace, '.github'), { recursive: true })
      const problems = problemsOf({ runs: path })
      expect(problems).toHaveLength(1)
      expect(problems[0]).toContain(problem)
    })

    const many = (n: number): string =>
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ prompt: `p${i}` })))

    test.each([
      [
        'an unknown key',
        '- prompt: x\n  repo: octo-org/api',
        'runs: item 1: unknown key "repo"; expected prompt, name'
      ],
      ['no prompt', '- prompt: x\n- name: second', 'runs: item 2: prompt: required'],
      ['an empty prompt', '- prompt: "  "', 'runs: item 1: prompt: required'],
      ['a prompt that is not text', '- prompt: [a, b]', 'runs: item 1: prompt: expected text, got a list'],
      ['a list that does not parse', '- prompt: x\n  - y: [', 'runs: does not parse as YAML or JSON at line'],
      ['broken JSON', '[{"prompt": "x"', 'runs: does not parse as YAML or JSON'],
      ['a duplicate key', '- prompt: x\n  prompt: y', 'runs: does not parse as YAML or JSON'],
      ['a single mapping', '{"prompt": "x"}', 'runs: expected a YAML or JSON list of runs'],
      ['an empty list', '[]', 'runs: the list is empty'],
      ['an item that is text', '- just a prompt', 'runs: item 1: expected a mapping with a prompt'],
      ['more than 100 items', many(101), 'runs: 101 runs; at most 100 are accepted'],
      [
        'a bad repo-id',
        '- {prompt: x, repo-id: -3}',
        'runs: item 1: repo-id: expected a positive integer, got -3'
      ],
      [
        'a bad repository',
        '- {prompt: x, repository: nope}',
        'runs: item 1: repository: expected owner/name'
      ],
      [
        'a bad agent-type',
        '- {prompt: x, agent-type: gpt}',
        'runs: item 1: agent-type: expected one of codegen'
      ],
      [
        'metadata that is a list',
        '- {prompt: x, metadata: [1]}',
        'runs: item 1: metadata: expected a mapping'
      ],
      ['a name on two lines', '- {prompt: x, name: "a\\nb"}', 'runs: item 1: name: expected one line'],
      [
        'two items of one name',
        '- {prompt: x, name: a}\n- {prompt: y, name: a}',
        `runs: item 2's name "a" is item 1's too`
      ],
      [
        'an alias bomb',
        `- &a [x, x, x, x, x, x, x, x, x, x]\n- &b [${'*a, '.repeat(60)}*a]\n- [${'*b, '.repeat(60)}*b]`,
        'runs: does not parse as YAML or JSON'
      ]
    ])('%s is one error naming runs, and no other input is blamed', (_, runs, problem) => {
      const problems = problemsOf({ runs })
      expect(problems).toHaveLength(1)
      expect(problems[0]).toContain(problem)
    })

    // Each would reach the console, the summary's table and the `runs` output as it is.
    test.each([
      ['ESC', '\u001b', '001B'],
      ['NUL', '\u0000', '0000'],
      ['a vertical tab', '\u000b', '000B'],
      ['a tab', '\t', '0009'],
      ['DEL', '\u007f', '007F'],
      ['a C1 control (CSI)', '\u009b', '009B'],
      ['a right-to-left override', '\u202e', '202E'],
      ['a left-to-right embedding', '\u202a', '202A'],
      ['a first-strong isolate', '\u2068', '2068'],
      ['a pop directional isolate', '\u2069', '2069'],
      ['a right-to-left mark', '\u200f', '200F'],
      ['an Arabic letter mark', '\u061c', '061C'],
      ['a line separator', '\u2028', '2028']
    ])('a name with %s is refused naming the item and the character', (_, char, code) => {
      const runs = JSON.stringify([{ prompt: 'x' }, { prompt: 'y', name: `ab${char}cd` }])
      expect(problemsOf({ runs })).toEqual([
        `runs: item 2: name: expected one line of text of at most 100 characters, without control or bidirectional characters; got U+${code} at character 3`
      ])
    })

    test('names in any script, emoji sequences with joiners, and inner spaces are kept', () => {
      const names = ['api · v2', 'مرحبا', '日本語のテスト', '👩\u200d💻 review', 'a b']
      const runs = JSON.stringify(names.map(name => ({ prompt: 'x', name })))
      expect(settingsFrom({ runs }).runs?.map(item => item.name)).toEqual(names)
    })

    test('100 items are accepted; many bad items are listed up to ten, then counted', () => {
      expect(settingsFrom({ runs: many(100) }).runs).toHaveLength(100)
      const problems = problemsOf({ runs: JSON.stringify(Array.from({ length: 15 }, () => ({ name: 'x' }))) })
      expect(problems).toHaveLength(11)
      expect(problems[10]).toMatch(/^runs: and \d+ more problems$/)
    })

    test.each([
      [{ prompt: 'One run' }, 'runs: replaces prompt'],
      [{ 'agent-run-id': '12' }, 'runs: starts new runs and cannot be given with agent-run-id'],
      [{ task: 'check' }, 'runs: only with task run, not check']
    ])('with %p it is an error naming runs', (inputs, problem) => {
      expect(problemsOf({ runs: '- prompt: x', ...inputs })).toEqual([expect.stringContaining(problem)])
    })

    test.each(['issue_comment', 'issues', 'pull_request_review_comment', 'pull_request_review'])(
      "on a thread trigger's event (%s) it is an error naming runs",
      eventName => {
        const problems = problemsOf(
          { runs: '- prompt: x', 'github-token': 'ghs_x' },
          { GITHUB_EVENT_NAME: eventName }
        )
        expect(problems).toEqual([expect.stringContaining(`runs: not used on ${eventName} events`)])
      }
    )

    test('pull_request runs from the inputs unless label-trigger is set', () => {
      const env = { GITHUB_EVENT_NAME: 'pull_request' }
      expect(settingsFrom({ runs: '- prompt: x' }, env).runs).toHaveLength(1)
      expect(
        problemsOf({ runs: '- prompt: x', 'label-trigger': 'codegen', 'github-token': 't' }, env)
      ).toEqual([expect.stringContaining('runs: not used on pull_request events')])
    })

    test.each(['0', '101', '2.5', 'ten', '-1'])('max-parallel %s is an error naming it', text => {
      expect(problemsOf({ runs: '- prompt: x', 'max-parallel': text })).toEqual([
        `max-parallel: expected a whole number from 1 to 100, got "${text}"`
      ])
    })

    test('max-parallel from 1 to 100', () => {
      expect(settingsFrom({ runs: '- prompt: x', 'max-parallel': '1' }).maxParallel).toBe(1)
      expect(settingsFrom({ runs: '- prompt: x', 'max-parallel': '100' }).maxParallel).toBe(100)
    })

    test('without runs, prompt is still required and runs is undefined', () => {
      expect(problemsOf({})).toEqual(['prompt: required; the instruction of the new agent run'])
      expect(settingsFrom({ prompt: 'x' }).runs).toBeUndefined()
    })
  })
})
