import { account, scenario, type AgentRunEmulator, type EmulatorOptions } from '../../../emulator/index.js'
import { readerText, renderMarkdown } from '../../../scripts/render-markdown.js'
import { FlowWorld } from '../../support/flow-world.js'
import { visible } from '../../support/step-fixtures.js'

describe('org-setup', () => {
  /**
   * Organizations, the set-up check (task: check), diagnosis of refusals and setup commands (task:
   * setup-commands): steps in process on the virtual clock, as the runner runs them, against the
   * emulator. What the runner shows: outputs, summary, console lines, the step's failure.
   */

  const TOKEN = 'emulator-token'
  const world = new FlowWorld()
  let emulator: AgentRunEmulator

  async function startEmulator(options: EmulatorOptions = {}): Promise<void> {
    emulator = await world.useEmulator({ speed: 20, ...options })
  }

  function action(inputs: Record<string, string>, env: Record<string, string> = {}) {
    return world.step({
      inputs: {
        'api-token': TOKEN,
        'base-url': emulator.baseUrl,
        prompt: 'Fix the failing test',
        'poll-interval': '0.1',
        'timeout-minutes': '1',
        ...inputs
      },
      env
    })
  }

  const routes = (...names: string[]) => emulator.requests.filter(request => names.includes(request.route))
  /** The step's failure as the runner shows it (the ::error:: command's data, unescaped). */
  const errorOf = (stdout: string) =>
    (/^::error::(.*)$/m.exec(stdout)?.[1] ?? '')
      .replace(/%0A/g, '\n')
      .replace(/%0D/g, '\r')
      .replace(/%25/g, '%')
  const READY = 'The set-up is ready: nothing was created.'

  describe('the organization', () => {
    test("no org-id: the token's only organization is used, with a notice; outputs org-id and repo-id", async () => {
      await startEmulator()
      emulator.queueScript(scenario('success'))
      const result = await action({})
      expect(result.exitCode).toBe(0)
      expect(result.stdout).toContain(
        "::notice::Using organization 1 (Octo Org), the token's only organization; set org-id to choose."
      )
      expect(result.outputs).toMatchObject({ 'org-id': '1', 'repo-id': '101', user: '', outcome: 'success' })
      expect(routes('organizations')).toHaveLength(1)
      expect(routes('create')[0]!.path).toBe('/v1/organizations/1/agent/run')
    })

    test('with org-id, the happy path sends no organization, user or integration request', async () => {
      await startEmulator()
      const result = await action({ 'org-id': '1' })
      expect(result.exitCode).toBe(0)
      expect(result.outputs['org-id']).toBe('1')
      expect(routes('organizations', 'me', 'user', 'users', 'integrations')).toHaveLength(0)
    })

    test('several organizations: fails before anything is created, listing them and asking for org-id', async () => {
      await startEmulator(account('several-orgs'))
      const result = await action({})
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toBe(
        'The api-token belongs to 3 Codegen organizations; set the org-id input to one of them:\n  1 Octo Org\n  2 Octo Labs\n  3 Octo Archive'
      )
      expect(routes('create', 'repos')).toHaveLength(0)
      expect(result.outputs).toMatchObject({ outcome: 'error', 'org-id': '', 'agent-run-id': '' })
    })

    test('every page of organizations is read; ten are listed', async () => {
      const ids = Array.from({ length: 120 }, (_, index) => index + 1)
      await startEmulator({ tokens: { [TOKEN]: ids } })
      const result = await action({})
      expect(result.exitCode).toBe(1)
      expect(routes('organizations').map(request => request.query.skip)).toEqual(['0', '100'])
      const error = errorOf(result.stdout)
      expect(error).toMatch(/^The api-token belongs to 120 Codegen organizations/)
      expect(error).toContain('\n  10 Organization 10\n  ... and 110 more')
      expect(error).not.toContain('Organization 11\n')
    })

    test('no organization: says the token belongs to none', async () => {
      await startEmulator(account('no-org'))
      const result = await action({})
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toMatch(/^The api-token belongs to no Codegen organization/)
      expect(routes('create')).toHaveLength(0)
    })

    test('no org-id and a rejected token: the token is named, not the organizations, and not shown', async () => {
      await startEmulator()
      const result = await action({ 'api-token': 'cg_wrong_token_1234' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toMatch(
        /^The service rejected the api-token \(401\): check the api-token input.*\n\(Could not find the organization to act on: Authentication failed \(401\)/
      )
      expect(visible(result)).not.toContain('cg_wrong_token_1234')
    })
  })

  describe('task: check', () => {
    test('a ready set-up: a table of what was found, the outputs, nothing created', async () => {
      await startEmulator()
      const result = await action({ task: 'check', prompt: '' })
      expect(result.stderr).toBe('')
      expect(result.exitCode).toBe(0)
      expect(result.outputs).toMatchObject({
        outcome: 'success',
        'org-id': '1',
        'repo-id': '101',
        user: 'octocat',
        'agent-run-id': ''
      })
      expect(result.summary).toContain('## ✅ Codegen set-up: ready')
      expect(result.summary).toContain('| API token | ✅ ok | accepted; user octocat |')
      expect(result.summary).toContain("| Organization | ✅ ok | 1 Octo Org (the token's only one) |")
      expect(result.summary).toContain('| Role | ✅ ok | ADMIN |')
      expect(result.summary).toContain('| GitHub integration | ✅ ok | active |')
      expect(result.summary).toContain('| Repository | ✅ ok | octo-org/octo-repo (id 101) |')
      // In order, reads only.
      expect(emulator.requests.map(request => request.route)).toEqual([
        'me',
        'organizations',
        'user',
        'integrations',
        'repos'
      ])
      expect(emulator.runs()).toHaveLength(0)
      expect(result.stdout).toContain('Repository: ok (octo-org/octo-repo (id 101))')
      expect(result.stdout).toContain(READY)
    })

    test('an inactive GitHub integration fails the check, naming it and how to fix it', async () => {
      await startEmulator(account('inactive-integration'))
      const result = await action({ task: 'check', 'org-id': '1' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toMatch(
        /^The GitHub integration of organization 1 \(Octo Org\) is inactive: connect GitHub in Codegen's integrations settings/
      )
      expect(result.summary).toContain('## ❌ Codegen set-up: something to fix')
      expect(result.summary).toContain('| GitHub integration | ❌ problem | inactive |')
      expect(result.summary).toContain('| Repository | ➖ not checked |')
      expect(result.summary).toContain('### What to fix')
      expect(result.outputs).toMatchObject({
        outcome: 'error',
        'org-id': '1',
        'repo-id': '',
        user: 'octocat'
      })
      expect(routes('repos')).toHaveLength(0)
      expect(result.stdout).not.toContain(READY)
    })

    test('several organizations and no org-id: the check lists them', async () => {
      await startEmulator(account('several-orgs'))
      const result = await action({ task: 'check' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toMatch(/^The api-token belongs to 3 Codegen organizations/)
      expect(errorOf(result.stdout)).toContain('  2 Octo Labs')
      expect(result.outputs['outcome']).toBe('error')
      expect(routes('integrations', 'repos')).toHaveLength(0)
    })

    test("an org-id that is not the token's lists the token's organizations", async () => {
      await startEmulator(account('several-orgs'))
      const result = await action({ task: 'check', 'org-id': '9' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toBe(
        "org-id 9 is not among the token's organizations; set org-id to one of them:\n  1 Octo Org\n  2 Octo Labs\n  3 Octo Archive"
      )
      expect(result.summary).toContain('- 2 Octo Labs')
    })

    test('a refused token (401): the token row says rejected, the token is not shown', async () => {
      await startEmulator()
      const rejected = await action({ task: 'check', 'api-token': 'not-a-token' })
      expect(rejected.exitCode).toBe(1)
      expect(errorOf(rejected.stdout)).toMatch(
        /^The service rejected the api-token \(401\): check the api-token/
      )
      expect(rejected.summary).toContain('| API token | ❌ problem | rejected (401) |')
      expect(rejected.summary).not.toContain('not-a-token')
    })

    test('a repository Codegen does not have is named with how to add it', async () => {
      await startEmulator()
      const missing = await action({ task: 'check', repository: 'octo-org/nope' })
      expect(missing.exitCode).toBe(1)
      expect(errorOf(missing.stdout)).toMatch(
        /^The repository octo-org\/nope is not connected to Codegen organization 1 \(Octo Org\): add it/
      )
      expect(missing.outputs).toMatchObject({ outcome: 'error', 'repo-id': '' })
    })

    test('no organization: the check says the token belongs to none', async () => {
      await startEmulator(account('no-org'))
      const result = await action({ task: 'check' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toMatch(/no Codegen organization/)
      expect(result.outputs).toMatchObject({ outcome: 'error', 'org-id': '' })
    })

    test('a service fault cuts the check short: what was found is shown with it', async () => {
      await startEmulator({ rateLimits: false })
      emulator.injectFaults({
        route: 'integrations',
        times: 100,
        fault: { kind: 'status', status: 500 }
      })
      const result = await action({ task: 'check', 'org-id': '1', 'timeout-minutes': '1' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toMatch(/^The check could not finish: /)
      expect(result.summary).toContain('| API token | ✅ ok | accepted; user octocat |')
      expect(result.outputs['outcome']).toBe('error')
    })
  })

  test('hostile organization names and an echoed token: no workflow command, no broken table, no secret', async () => {
    const secret = 'cg_secret_abcdef123456'
    const name = '::error::pwned\n::add-mask::x ##[warning]legacy | cell <img src=x onerror=alert(1)>'
    await startEmulator({
      tokens: { [secret]: [1, 2] },
      organizations: [
        { id: 1, name },
        { id: 2, name }
      ]
    })
    emulator.injectFaults({
      route: 'integrations',
      fault: { kind: 'status', status: 403, body: { message: `no access for ${secret}` } }
    })
    const result = await action({ task: 'check', 'api-token': secret, 'org-id': '2' })
    expect(result.exitCode).toBe(1)
    const lines = result.stdout.split('\n')
    // The runner's rules: a command is a line whose first non-blank characters are ::, or ##[ anywhere.
    const commands = lines.filter(line => /^\s*::/.test(line) || line.includes('##['))
    expect(commands.map(line => line.slice(0, line.indexOf('::', 2) + 2))).toEqual(
      expect.arrayContaining(['::add-mask::', '::error::'])
    )
    expect(commands.every(line => /^::(add-mask|error|debug)::/.test(line))).toBe(true)
    expect(commands.filter(line => line.startsWith('::add-mask::'))).toEqual([`::add-mask::${secret}`])
    expect(result.stdout.split('\n').slice(1).join('\n')).not.toContain(secret)
    expect(result.summary).not.toContain(secret)
    expect(result.summary).not.toContain('<img')
    // As a reader sees it: the hostile name stays in its one cell, shown as text.
    const html = renderMarkdown(result.summary)
    expect(html.match(/<tr>/g)).toHaveLength(6)
    expect(readerText(result.summary)).toContain(
      '2 ::error::pwned ::add-mask::x #[warning]legacy | cell <img'
    )
    // The refused read is the problem, after what was found before it.
    expect(result.summary).toContain('| GitHub integration | ❌ problem | refused (403) |')
    expect(errorOf(result.stdout)).toMatch(
      /^Codegen refused to show the integrations of organization 2 \(403\)/
    )
  })

  describe('diagnosis of a refusal', () => {
    test('an org-id the token may not use: the 403 becomes the list of its organizations', async () => {
      await startEmulator()
      const result = await action({ 'org-id': '2' })
      expect(result.exitCode).toBe(1)
      const error = errorOf(result.stdout)
      expect(error).toMatch(
        /^org-id 2 is not among the token's organizations; set org-id to one of them:\n {2}1 Octo Org\n/
      )
      expect(error).toContain('(Permission denied (403) while trying to list the organization repositories')
      expect(routes('create')).toHaveLength(0)
    })

    test('an inactive GitHub integration: the refused create says so', async () => {
      await startEmulator(account('inactive-integration'))
      const result = await action({ 'org-id': '1' })
      expect(result.exitCode).toBe(1)
      expect(routes('create').map(request => request.status)).toEqual([403])
      expect(errorOf(result.stdout)).toMatch(
        /^The GitHub integration of organization 1 \(Octo Org\) is inactive/
      )
      expect(result.outputs['outcome']).toBe('error')
    })

    test('a repo-id the organization does not have: the 404 says the repository is not connected', async () => {
      await startEmulator()
      const result = await action({ 'org-id': '1', 'repo-id': '999' })
      expect(result.exitCode).toBe(1)
      expect(routes('create').map(request => request.status)).toEqual([404])
      expect(errorOf(result.stdout)).toMatch(/^The repo-id 999 is not connected to Codegen organization 1/)
    })

    test('a 404 whose reads find nothing wrong keeps the service answer', async () => {
      await startEmulator()
      emulator.injectFaults({ route: 'create', fault: { kind: 'status', status: 404 } })
      const result = await action({ 'org-id': '1', 'repo-id': '101' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toMatch(
        /^Not found \(404\) while trying to create the agent run: check org-id/
      )
      // The reads were made, and found the set-up in order: the service's answer is what is said.
      expect(routes('me', 'integrations', 'repos').map(request => request.status)).toEqual([200, 200, 200])
    })

    test('a refusal whose explaining reads fail too keeps the service answer', async () => {
      await startEmulator({ rateLimits: false })
      emulator.injectFaults({ route: 'create', fault: { kind: 'status', status: 403 } })
      emulator.injectFaults({
        route: ['me', 'organizations', 'user', 'integrations', 'repos'],
        times: 1_000,
        fault: { kind: 'status', status: 500 }
      })
      const result = await action({ 'org-id': '1', 'repo-id': '101', 'timeout-minutes': '1' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toMatch(
        /^Permission denied \(403\) while trying to create the agent run: /
      )
      expect(routes('me').length).toBeGreaterThan(0)
      expect(result.outputs).toMatchObject({ outcome: 'error', 'agent-run-id': '' })
    })

    test('a resume refused with 404 questions only what a resume uses: not the repository', async () => {
      // The workflow's repository is not Codegen's: a create would go on without it; a resume never uses it.
      await startEmulator()
      const result = await world.step({
        inputs: {
          'api-token': TOKEN,
          'base-url': emulator.baseUrl,
          'org-id': '1',
          'agent-run-id': '4242',
          prompt: 'And the docs',
          'timeout-minutes': '1'
        },
        env: { GITHUB_REPOSITORY: 'octo-org/not-on-codegen' }
      })
      expect(result.exitCode).toBe(1)
      // The set-up reads fine: the run itself is refused, and the error names the input (issue 21).
      expect(errorOf(result.stdout)).toMatch(
        /^agent-run-id 4242: the service refused to resume this run \(404\): "Agent run not found."/
      )
      expect(routes('me', 'organizations', 'integrations')).toHaveLength(3)
      expect(routes('repos')).toHaveLength(0)
    })

    test('a named repository Codegen does not have fails before anything is created', async () => {
      await startEmulator()
      const result = await action({ 'org-id': '1', repository: 'octo-org/elsewhere' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toMatch(
        /^The repository octo-org\/elsewhere is not connected to Codegen/
      )
      expect(routes('create')).toHaveLength(0)
    })
  })

  describe('task: setup-commands', () => {
    test("generates the repository's setup commands and follows that run to its result", async () => {
      await startEmulator()
      const result = await action({
        task: 'setup-commands',
        'org-id': '1',
        prompt: 'Include the e2e browsers'
      })
      expect(result.stderr).toBe('')
      expect(result.exitCode).toBe(0)
      const [generate] = routes('setup-commands')
      expect(generate!.body).toEqual({ repo_id: 101, prompt: 'Include the e2e browsers' })
      const run = emulator.runs()[0]!
      expect(run.source_type).toBe('SETUP_COMMANDS')
      expect(routes('create')).toHaveLength(0)
      expect(result.outputs).toMatchObject({
        'agent-run-id': String(run.id),
        outcome: 'success',
        status: 'COMPLETE',
        result: 'npm ci\nnpm run build\nnpx playwright install --with-deps chromium',
        'repo-id': '101',
        'org-id': '1',
        'log-count': String(run.logs.length)
      })
      expect(result.summary).toContain('## ✅ Agent run succeeded')
      expect(result.summary).toContain('> npm ci')
    })

    test('a repository Codegen does not have: no generation is sent', async () => {
      await startEmulator()
      const result = await action({
        task: 'setup-commands',
        'org-id': '1',
        'repo-id': '',
        repository: 'octo-org/nope'
      })
      expect(result.exitCode).toBe(1)
      expect(routes('setup-commands')).toHaveLength(0)
      expect(errorOf(result.stdout)).toMatch(/^The repository octo-org\/nope is not connected/)
      expect(result.outputs['outcome']).toBe('error')
    })

    test('no repository at all: the step names the inputs to set, and sends no generation', async () => {
      await startEmulator()
      const result = await action({ task: 'setup-commands', 'org-id': '1' }, { GITHUB_REPOSITORY: '' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toBe('No repository to act on: set the repo-id or repository input.')
      expect(routes('setup-commands', 'create')).toHaveLength(0)
      expect(result.outputs['outcome']).toBe('error')
    })

    test('a generation the service refuses fails the step with its answer', async () => {
      await startEmulator()
      emulator.injectFaults({ route: 'setup-commands', fault: { kind: 'status', status: 400 } })
      const result = await action({ task: 'setup-commands', 'org-id': '1' })
      expect(result.exitCode).toBe(1)
      expect(errorOf(result.stdout)).toMatch(
        /^Unexpected answer \(400\) while trying to generate the setup commands of repository 101\./
      )
      expect(emulator.runs()).toHaveLength(0)
      expect(result.outputs).toMatchObject({ outcome: 'error', 'agent-run-id': '' })
    })
  })

  test('task and repository are checked before any request', async () => {
    await startEmulator()
    const result = await action({ task: 'deploy', repository: 'not a repo', 'org-id': '1' })
    expect(result.exitCode).toBe(1)
    expect(errorOf(result.stdout)).toBe(
      'Invalid inputs:\n- task: expected one of run, check, setup-commands, got "deploy"\n- repository: expected owner/name such as octo-org/octo-repo, got "not a repo"'
    )
    expect(emulator.requests).toHaveLength(0)
  })
})
