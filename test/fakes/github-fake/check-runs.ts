import { responseProblems } from '../../../scripts/github-openapi.js'
import { call, DOCS, fake, octokit, REPO, startFake, statusOf } from '../../support/github-fake-world.js'

/** Check runs on the fake GitHub, held to GitHub's published REST description. */

describe('check runs', () => {
  const CHECK_RUNS = '/repos/{owner}/{repo}/check-runs'
  const CHECK_RUN = '/repos/{owner}/{repo}/check-runs/{check_run_id}'
  const CHECK_RUNS_FOR_REF = '/repos/{owner}/{repo}/commits/{ref}/check-runs'
  const PR = { number: 7, title: 'Fix it', body: '', head: 'fix-it', base: 'main' }

  test('created in progress on a pull request head, concluded, read back: in GitHub shape', async () => {
    await startFake()
    fake.addPullRequest({ ...PR, headSha: 'A'.repeat(40) })
    const sha = (await octokit.rest.pulls.get({ ...REPO, pull_number: 7 })).data.head.sha
    expect(sha).toBe('a'.repeat(40))
    expect(fake.headSha(7)).toBe(sha)
    const created = await octokit.rest.checks.create({
      ...REPO,
      name: 'Codegen',
      head_sha: sha,
      status: 'in_progress',
      details_url: 'https://codegen.com/runs/41',
      external_id: '41',
      output: { title: 'Working', summary: 'Agent run **#41** is working' }
    })
    expect(created.status).toBe(201)
    expect(responseProblems('POST', CHECK_RUNS, 201, created.data)).toEqual([])
    expect(created.data).toMatchObject({
      name: 'Codegen',
      head_sha: sha,
      status: 'in_progress',
      conclusion: null,
      completed_at: null,
      external_id: '41',
      details_url: 'https://codegen.com/runs/41',
      html_url: `https://github.com/octo-org/octo-repo/runs/${created.data.id}`,
      app: { slug: 'github-actions' },
      pull_requests: [{ number: 7, head: { sha } }]
    })

    const updated = await octokit.rest.checks.update({
      ...REPO,
      check_run_id: created.data.id,
      conclusion: 'success',
      output: { title: 'Succeeded', summary: 'Done' }
    })
    expect(responseProblems('PATCH', CHECK_RUN, 200, updated.data)).toEqual([])
    expect(updated.data).toMatchObject({ status: 'completed', conclusion: 'success' })
    expect(updated.data.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    const read = await octokit.rest.checks.get({ ...REPO, check_run_id: created.data.id })
    expect(responseProblems('GET', CHECK_RUN, 200, read.data)).toEqual([])
    expect(read.data.output).toMatchObject({ title: 'Succeeded', summary: 'Done', text: null })

    expect(fake.checkRuns()).toEqual([
      expect.objectContaining({
        id: created.data.id,
        name: 'Codegen',
        head_sha: sha,
        status: 'completed',
        conclusion: 'success',
        external_id: '41',
        output: { title: 'Succeeded', summary: 'Done', text: null },
        writes: 2
      })
    ])
    expect(fake.invalidCheckRunRequests).toEqual([])
  })

  test('a token without checks: write is 403 as GitHub answers it; without checks: read, reads too', async () => {
    await startFake({ checks: 'read' })
    fake.addPullRequest(PR)
    const body = { name: 'Codegen', head_sha: fake.headSha(7), status: 'in_progress' }
    const refused = await call('POST', '/repos/octo-org/octo-repo/check-runs', { body })
    expect(refused).toMatchObject({
      status: 403,
      body: {
        message: 'Resource not accessible by integration',
        documentation_url: `${DOCS}/checks/runs#create-a-check-run`,
        status: '403'
      }
    })
    expect(refused.headers.get('x-accepted-github-permissions')).toBe('checks=write')
    await expect(
      octokit.rest.checks.update({ ...REPO, check_run_id: 1, status: 'completed', conclusion: 'success' })
    ).rejects.toMatchObject({
      status: 403,
      response: { data: { message: 'Resource not accessible by integration' } }
    })
    expect(await statusOf(octokit.rest.checks.get({ ...REPO, check_run_id: 1 }))).toBe(404)
    expect(fake.checkRuns()).toEqual([])
    await fake.stop()

    await startFake({ checks: 'none' })
    const read = await call('GET', '/repos/octo-org/octo-repo/check-runs/1')
    expect(read.status).toBe(403)
    expect(read.headers.get('x-accepted-github-permissions')).toBe('checks=read')
    fake.setChecksPermission('write')
    expect((await call('GET', '/repos/octo-org/octo-repo/check-runs/1')).status).toBe(404)
  })

  test("bodies GitHub's REST description refuses are 422 and recorded; GitHub's own rules too", async () => {
    await startFake()
    fake.addPullRequest(PR)
    const sha = fake.headSha(7)
    const path = '/repos/octo-org/octo-repo/check-runs'
    const invalid = [
      { name: 'Codegen', head_sha: sha, status: 'running' },
      { name: 'Codegen' },
      { name: 'Codegen', head_sha: sha, output: { title: 'T', summary: 'x'.repeat(65_536) } },
      { name: 'Codegen', head_sha: sha, output: { summary: 'no title' } },
      { name: 42, head_sha: sha }
    ]
    for (const body of invalid) {
      const answer = await call('POST', path, { body })
      expect(answer.status).toBe(422)
      expect(answer.body.message).toMatch(/^Invalid request\.\n\n/)
    }
    const problems = fake.invalidCheckRunRequests.map(request => request.problems.join('; '))
    expect(problems).toEqual([
      expect.stringMatching(/\/status: must be equal to one of the allowed values/),
      expect.stringMatching(/must have required property 'head_sha'/),
      expect.stringMatching(/\/output\/summary: must NOT have more than 65535 characters/),
      expect.stringMatching(/\/output: must have required property 'title'/),
      expect.stringMatching(/\/name: must be string/)
    ])
    // Exactly 65,535 characters is within GitHub's limit.
    const longest = { name: 'Codegen', head_sha: sha, output: { title: 'T', summary: 'x'.repeat(65_535) } }
    const created = await call('POST', path, { body: longest })
    expect(created.status).toBe(201)
    // An update that completes the run must conclude it (the schema's anyOf).
    const patch = await call('PATCH', `${path}/${created.body.id}`, { body: { status: 'completed' } })
    expect(patch.status).toBe(422)
    expect(fake.invalidCheckRunRequests).toHaveLength(6)

    // Past the schema: an unknown commit, a completed create without a conclusion, an unknown run.
    const unknown = 'b'.repeat(40)
    expect(await call('POST', path, { body: { name: 'C', head_sha: unknown } })).toMatchObject({
      status: 422,
      body: { message: `No commit found for SHA: ${unknown}` }
    })
    fake.addCommit(unknown)
    expect((await call('POST', path, { body: { name: 'C', head_sha: unknown } })).status).toBe(201)
    expect(
      (await call('POST', path, { body: { name: 'C', head_sha: sha, status: 'completed' } })).status
    ).toBe(422)
    expect((await call('PATCH', `${path}/999`, { body: { conclusion: 'success' } })).status).toBe(404)
    expect(fake.checkRuns().map(run => [run.head_sha, run.status])).toEqual([
      [sha, 'queued'],
      [unknown, 'queued']
    ])
  })

  test("a commit's check runs, listed by name (newest first; latest keeps the newest of each name), as GitHub describes them", async () => {
    await startFake()
    fake.addPullRequest(PR)
    const sha = fake.headSha(7)
    const create = (name: string, externalId: string) =>
      octokit.rest.checks.create({
        ...REPO,
        name,
        head_sha: sha,
        external_id: externalId,
        status: 'in_progress'
      })
    const first = await create('Codegen', 'one')
    const second = await create('Codegen', 'two')
    await create('Lint', 'three')
    const all = await octokit.rest.checks.listForRef({
      ...REPO,
      ref: sha,
      check_name: 'Codegen',
      filter: 'all'
    })
    expect(responseProblems('GET', CHECK_RUNS_FOR_REF, 200, all.data)).toEqual([])
    expect(all.data.total_count).toBe(2)
    expect(all.data.check_runs.map(run => [run.id, run.external_id])).toEqual([
      [second.data.id, 'two'],
      [first.data.id, 'one']
    ])
    const latest = await octokit.rest.checks.listForRef({ ...REPO, ref: sha })
    expect(latest.data.check_runs.map(run => run.external_id)).toEqual(['three', 'two'])
    const paged = await octokit.rest.checks.listForRef({
      ...REPO,
      ref: sha,
      filter: 'all',
      per_page: 2,
      page: 2
    })
    expect(paged.data).toMatchObject({ total_count: 3, check_runs: [{ external_id: 'one' }] })
    fake.setChecksPermission('none')
    expect(await statusOf(octokit.rest.checks.listForRef({ ...REPO, ref: sha }))).toBe(403)
  })
})
