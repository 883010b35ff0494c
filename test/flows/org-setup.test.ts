import { account, scenario } from '../../emulator/index.js'
import { InProcessWorld } from '../support/in-process-world.js'

/**
 * Organizations, the set-up check, diagnosis of refusals and setup commands, in process: runAction with a fake runner and a virtual clock shared with the emulator, over real HTTP
 * on loopback. What the runner would show: outputs, summary, console lines, the step's failure.
 */

const world = new InProcessWorld()

describe('the organization, when org-id is empty', () => {
  test("the token's only organization is used, with a notice", async () => {
    await world.startEmulator()
    world.emulator.queueScript(scenario('success'))
    const { runner, failure } = await world.step({})
    expect(failure).toBeUndefined()
    expect(runner.lines).toContain(
      "notice: Using organization 1 (Octo Org), the token's only organization; set org-id to choose."
    )
    expect(runner.outputs).toMatchObject({ 'org-id': '1', 'repo-id': '101', outcome: 'success' })
    expect(world.routes('organizations')).toHaveLength(1)
    expect(world.routes('create')[0]!.path).toBe('/v1/organizations/1/agent/run')
  })

  test('several organizations: an error listing them, nothing created', async () => {
    await world.startEmulator(account('several-orgs'))
    const { runner, failure } = await world.step({})
    expect(failure).toBe(
      'The api-token belongs to 3 Codegen organizations; set the org-id input to one of them:\n  1 Octo Org\n  2 Octo Labs\n  3 Octo Archive'
    )
    expect(world.routes('create', 'repos')).toHaveLength(0)
    expect(runner.outputs).toMatchObject({ outcome: 'error', 'org-id': '', 'agent-run-id': '' })
  })

  test('no organization: the token belongs to none', async () => {
    await world.startEmulator(account('no-org'))
    const { failure } = await world.step({})
    expect(failure).toMatch(/^The api-token belongs to no Codegen organization/)
    expect(world.routes('create')).toHaveLength(0)
  })

  test('a rejected token: the token is named, with the service answer', async () => {
    await world.startEmulator()
    const { runner, failure } = await world.step({ 'api-token': 'cg_wrong_token_1234' })
    expect(failure).toMatch(
      /^The service rejected the api-token \(401\): check the api-token input.*\n\(Could not find the organization to act on: Authentication failed \(401\)/
    )
    expect(runner.everything).not.toContain('cg_wrong_token_1234')
  })
})

describe('task: check', () => {
  test('a ready set-up: a table of what was found, the outputs, nothing created', async () => {
    await world.startEmulator()
    const { runner, failure } = await world.step({ task: 'check', prompt: '' })
    expect(failure).toBeUndefined()
    expect(runner.outputs).toMatchObject({
      outcome: 'success',
      'org-id': '1',
      'repo-id': '101',
      user: 'octocat',
      'agent-run-id': ''
    })
    expect(runner.summary).toContain('## ✅ Codegen set-up: ready')
    expect(runner.summary).toContain('| API token | ✅ ok | accepted; user octocat |')
    expect(runner.summary).toContain("| Organization | ✅ ok | 1 Octo Org (the token's only one) |")
    expect(runner.summary).toContain('| Role | ✅ ok | ADMIN |')
    expect(runner.summary).toContain('| GitHub integration | ✅ ok | active |')
    expect(runner.summary).toContain('| Repository | ✅ ok | octo-org/octo-repo (id 101) |')
    expect(world.emulator.requests.map(request => request.route)).toEqual([
      'me',
      'organizations',
      'user',
      'integrations',
      'repos'
    ])
    expect(world.emulator.runs()).toHaveLength(0)
    expect(runner.lines).toContain('Repository: ok (octo-org/octo-repo (id 101))')
    expect(runner.lines).toContain('The set-up is ready: nothing was created.')
  })

  test('an inactive GitHub integration fails the check, naming it', async () => {
    await world.startEmulator(account('inactive-integration'))
    const { runner, failure } = await world.step({ task: 'check', 'org-id': '1' })
    expect(failure).toMatch(
      /^The GitHub integration of organization 1 \(Octo Org\) is inactive: connect GitHub in Codegen's integrations settings/
    )
    expect(runner.summary).toContain('## ❌ Codegen set-up: something to fix')
    expect(runner.summary).toContain('| GitHub integration | ❌ problem | inactive |')
    expect(runner.summary).toContain('| Repository | ➖ not checked |')
    expect(runner.outputs).toMatchObject({ outcome: 'error', 'org-id': '1', 'repo-id': '', user: 'octocat' })
    expect(world.routes('repos')).toHaveLength(0)
    expect(runner.lines).not.toContain('The set-up is ready: nothing was created.')
  })

  test('several organizations and no org-id: the check lists them', async () => {
    await world.startEmulator(account('several-orgs'))
    const { runner, failure } = await world.step({ task: 'check' })
    expect(failure).toMatch(/^The api-token belongs to 3 Codegen organizations/)
    expect(failure).toContain('  2 Octo Labs')
    expect(runner.outputs['outcome']).toBe('error')
    expect(world.routes('integrations', 'repos')).toHaveLength(0)
  })

  test("an org-id that is not the token's lists the token's organizations", async () => {
    await world.startEmulator(account('several-orgs'))
    const { runner, failure } = await world.step({ task: 'check', 'org-id': '9' })
    expect(failure).toBe(
      "org-id 9 is not among the token's organizations; set org-id to one of them:\n  1 Octo Org\n  2 Octo Labs\n  3 Octo Archive"
    )
    expect(runner.summary).toContain('- 2 Octo Labs')
  })

  test('no organization: the check says the token belongs to none', async () => {
    await world.startEmulator(account('no-org'))
    const { runner, failure } = await world.step({ task: 'check' })
    expect(failure).toMatch(/no Codegen organization/)
    expect(runner.outputs).toMatchObject({ outcome: 'error', 'org-id': '' })
  })

  test('a refused token (401): the token row says rejected, the token is not shown', async () => {
    await world.startEmulator()
    const { runner, failure } = await world.step({ task: 'check', 'api-token': 'not-a-token' })
    expect(failure).toMatch(/^The service rejected the api-token \(401\): check the api-token/)
    expect(runner.summary).toContain('| API token | ❌ problem | rejected (401) |')
    expect(runner.summary).not.toContain('not-a-token')
  })

  test('a repository Codegen does not have is named with how to add it', async () => {
    await world.startEmulator()
    const { runner, failure } = await world.step({ task: 'check', repository: 'octo-org/nope' })
    expect(failure).toMatch(
      /^The repository octo-org\/nope is not connected to Codegen organization 1 \(Octo Org\): add it/
    )
    expect(runner.outputs).toMatchObject({ outcome: 'error', 'repo-id': '' })
  })

  test('a service fault cuts the check short: what was found is shown with it', async () => {
    await world.startEmulator({ rateLimits: false })
    world.emulator.injectFaults({
      route: 'integrations',
      times: 100,
      fault: { kind: 'status', status: 500 }
    })
    const { runner, failure } = await world.step({ task: 'check', 'org-id': '1', 'timeout-minutes': '1' })
    expect(failure).toMatch(/^The check could not finish: /)
    expect(runner.summary).toContain('| API token | ✅ ok | accepted; user octocat |')
    expect(runner.outputs['outcome']).toBe('error')
  })
})

describe('diagnosis of a refused create', () => {
  test('an org-id the token may not use: the 403 becomes the list of its organizations', async () => {
    await world.startEmulator()
    const { failure } = await world.step({ 'org-id': '2' })
    expect(failure).toMatch(
      /^org-id 2 is not among the token's organizations; set org-id to one of them:\n {2}1 Octo Org\n/
    )
    expect(failure).toContain('(Permission denied (403) while trying to list the organization repositories')
    expect(world.routes('create')).toHaveLength(0)
  })

  test('an inactive GitHub integration: the 403 on create says so', async () => {
    await world.startEmulator(account('inactive-integration'))
    const { runner, failure } = await world.step({ 'org-id': '1' })
    expect(world.routes('create').map(request => request.status)).toEqual([403])
    expect(failure).toMatch(/^The GitHub integration of organization 1 \(Octo Org\) is inactive/)
    expect(runner.outputs['outcome']).toBe('error')
  })

  test('a repo-id the organization does not have: the 404 says the repository is not connected', async () => {
    await world.startEmulator()
    const { failure } = await world.step({ 'org-id': '1', 'repo-id': '999' })
    expect(world.routes('create').map(request => request.status)).toEqual([404])
    expect(failure).toMatch(/^The repo-id 999 is not connected to Codegen organization 1/)
  })

  test('a 404 whose reads find nothing wrong keeps the service answer', async () => {
    await world.startEmulator()
    world.emulator.injectFaults({ route: 'create', fault: { kind: 'status', status: 404 } })
    const { failure } = await world.step({ 'org-id': '1', 'repo-id': '101' })
    expect(failure).toMatch(/^Not found \(404\) while trying to create the agent run: check org-id/)
    // The reads were made, and found the set-up in order: the service's answer is what is said.
    expect(world.routes('me', 'integrations', 'repos').map(request => request.status)).toEqual([
      200, 200, 200
    ])
  })

  test('a refusal whose explaining reads fail too keeps the service answer', async () => {
    await world.startEmulator({ rateLimits: false })
    world.emulator.injectFaults({ route: 'create', fault: { kind: 'status', status: 403 } })
    world.emulator.injectFaults({
      route: ['me', 'organizations', 'user', 'integrations', 'repos'],
      times: 1_000,
      fault: { kind: 'status', status: 500 }
    })
    const { runner, failure } = await world.step({ 'org-id': '1', 'repo-id': '101', 'timeout-minutes': '1' })
    expect(failure).toMatch(/^Permission denied \(403\) while trying to create the agent run: /)
    expect(world.routes('me').length).toBeGreaterThan(0)
    expect(runner.outputs).toMatchObject({ outcome: 'error', 'agent-run-id': '' })
  })

  test('a named repository Codegen does not have fails before anything is created', async () => {
    await world.startEmulator()
    const { failure } = await world.step({ 'org-id': '1', repository: 'octo-org/elsewhere' })
    expect(failure).toMatch(/^The repository octo-org\/elsewhere is not connected to Codegen/)
    expect(world.routes('create')).toHaveLength(0)
  })
})

describe('task: setup-commands', () => {
  test("generates the repository's setup commands and follows that run to its result", async () => {
    await world.startEmulator()
    const { runner, failure } = await world.step({
      task: 'setup-commands',
      'org-id': '1',
      prompt: 'Include the e2e browsers'
    })
    expect(failure).toBeUndefined()
    const [generate] = world.routes('setup-commands')
    expect(generate!.body).toEqual({ repo_id: 101, prompt: 'Include the e2e browsers' })
    const run = world.emulator.runs()[0]!
    expect(run.source_type).toBe('SETUP_COMMANDS')
    expect(world.routes('create')).toHaveLength(0)
    expect(runner.outputs).toMatchObject({
      'agent-run-id': String(run.id),
      outcome: 'success',
      status: 'COMPLETE',
      result: 'npm ci\nnpm run build\nnpx playwright install --with-deps chromium',
      'repo-id': '101',
      'org-id': '1'
    })
    expect(runner.summary).toContain('## ✅ Agent run succeeded')
    expect(runner.summary).toContain('> npm ci')
  })

  test('a repository Codegen does not have: no generation is sent', async () => {
    await world.startEmulator()
    const { runner, failure } = await world.step({
      task: 'setup-commands',
      'org-id': '1',
      repository: 'octo-org/nope'
    })
    expect(failure).toMatch(/^The repository octo-org\/nope is not connected/)
    expect(world.routes('setup-commands')).toHaveLength(0)
    expect(runner.outputs['outcome']).toBe('error')
  })

  test('no repository at all: the step names the inputs to set, and sends no generation', async () => {
    await world.startEmulator()
    const { runner, failure } = await world.step(
      { task: 'setup-commands', 'org-id': '1' },
      { env: { GITHUB_REPOSITORY: '' } }
    )
    expect(failure).toBe('No repository to act on: set the repo-id or repository input.')
    expect(world.routes('setup-commands', 'create')).toHaveLength(0)
    expect(runner.outputs['outcome']).toBe('error')
  })

  test('a generation the service refuses fails the step with its answer', async () => {
    await world.startEmulator()
    world.emulator.injectFaults({ route: 'setup-commands', fault: { kind: 'status', status: 400 } })
    const { runner, failure } = await world.step({ task: 'setup-commands', 'org-id': '1' })
    expect(failure).toMatch(
      /^Unexpected answer \(400\) while trying to generate the setup commands of repository 101\./
    )
    expect(world.emulator.runs()).toHaveLength(0)
    expect(runner.outputs).toMatchObject({ outcome: 'error', 'agent-run-id': '' })
  })
})
