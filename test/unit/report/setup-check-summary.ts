import { renderSetupCheckSummary } from '../../../src/report/setup-check-summary.js'

test('the check summary: a table row per item, the problem with its list, service text escaped', () => {
  const markdown = renderSetupCheckSummary({
    rows: [
      { item: 'API token', state: 'ok', found: 'accepted; user a|b <img src=x>' },
      { item: 'Organization', state: 'problem', found: "9 not among the token's" },
      { item: 'Repository', state: 'not checked', found: '' }
    ],
    problem:
      "org-id 9 is not among the token's organizations; set org-id to one of them:\n  1 <b>Octo</b> | Org"
  })
  expect(markdown.split('\n')).toEqual([
    '## ❌ Codegen set-up: something to fix',
    '',
    '| Item | State | Found |',
    '|---|---|---|',
    '| API token | ✅ ok | accepted; user a\\|b &lt;img src=x&gt; |',
    "| Organization | ❌ problem | 9 not among the token's |",
    '| Repository | ➖ not checked |   |',
    '',
    '### What to fix',
    '',
    "org-id 9 is not among the token's organizations; set org-id to one of them:",
    '',
    '- 1 &lt;b&gt;Octo&lt;/b&gt; \\| Org',
    ''
  ])
  expect(renderSetupCheckSummary({ rows: [] })).toContain('## ✅ Codegen set-up: ready')
})
