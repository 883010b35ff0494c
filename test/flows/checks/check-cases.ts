import { readerText, renderMarkdown } from '../../../scripts/render-markdown.js'
import {
  checkWrites,
  checksOn,
  commentOn,
  emulator,
  github,
  pullRequestEvent,
  step,
  stepsCheck,
  warningsOf
} from '../../support/check-world.js'

/** The check run's cases, in process on the virtual clock (issue #20): the permission, when none is written, inputs, hostile text. */

test('a token without checks: write: one warning naming it, and the run goes on', async () => {
  github.setChecksPermission('read')
  const result = await step(commentOn(7, '/codegen go [emulator:success]'))
  expect(result.exitCode).toBe(0)
  expect(result.outputs).toMatchObject({ outcome: 'success', 'check-run-id': '' })
  expect(warningsOf(result).filter(line => /check/i.test(line))).toEqual([
    expect.stringContaining("add the line `checks: write` under the job's `permissions:`")
  ])
  expect(github.checkRuns()).toEqual([])
  expect(checkWrites()).toHaveLength(1)
})

test('none on a plain issue, none with check-run: false (two steps, one after the other)', async () => {
  const results = [
    await step(commentOn(12, '/codegen go [emulator:success]', false)),
    await step(commentOn(8, '/codegen go [emulator:success]'), { 'check-run': 'false' })
  ]
  expect(results.map(result => [result.outputs['outcome'], result.outputs['check-run-id']])).toEqual([
    ['success', ''],
    ['success', '']
  ])
  expect(checkWrites()).toEqual([])
})

test('check-run: true on a pull_request event run from the inputs: on the pull request’s head', async () => {
  // The event carries the head commit (the one GitHub has): nothing is read.
  const event = pullRequestEvent(7)
  expect(event.payload.pull_request.head.sha).toBe(github.headSha(7))
  const result = await step(event, {
    'check-run': 'true',
    'check-name': 'Agent review',
    prompt: 'Review the pull request [emulator:success]'
  })
  expect(result.outputs['trigger']).toBe('inputs')
  expect(github.requests.filter(request => request.path.endsWith('/pulls/7'))).toEqual([])
  expect(checksOn(7)).toEqual([stepsCheck(result, { name: 'Agent review', conclusion: 'success' })])
})

test('check-run: true with runs: one check for the step, concluded with the runs together', async () => {
  const event = pullRequestEvent(9)
  const result = await step(event, {
    'check-run': 'true',
    runs: '- name: docs\n  prompt: Update the docs [emulator:success]\n- name: sdk\n  prompt: Bump the SDK [emulator:failure]'
  })
  expect(result.outputs['outcome']).toBe('failure')
  expect(JSON.parse(result.outputs['runs'] ?? '[]')).toHaveLength(2)
  expect(checksOn(9)).toEqual([
    stepsCheck(result, { name: 'Codegen', status: 'completed', conclusion: 'failure' })
  ])
})

test('a hostile result: no tag, no live mention, no form of a token in the check', async () => {
  const token = 'emulator-token'
  emulator.queueScript({
    steps: [
      { at: 0, status: 'ACTIVE' },
      {
        at: 50,
        status: 'COMPLETE',
        result: `Done @octocat </details><script>alert(1)</script> ${token} ${Buffer.from(token).toString('base64')}`,
        summary: '<img src=x onerror=alert(1)> cc @github/security'
      }
    ]
  })
  await step(commentOn(7, '/codegen go'))
  const [check] = checksOn(7)
  const sent = JSON.stringify(checkWrites().map(request => request.body))
  expect(sent).toContain('***')
  expect(sent).not.toContain(token)
  expect(sent).not.toContain(Buffer.from(token).toString('base64').slice(0, 16))
  expect(renderMarkdown(check!.output.summary!)).not.toMatch(/<script|<img/)
  const text = readerText(check!.output.summary!)
  expect(text).toContain('</details><script>alert(1)</script>')
  expect(text).toContain('<img src=x onerror=alert(1)>')
  expect(text).not.toMatch(/(^|[^\w\u2060])@(octocat|github)/)
  expect(check!.output.title).toMatch(
    /^Succeeded: Done @\u2060octocat <\/details><script>alert\(1\)<\/script> \*\*\*/
  )
})

test("a verdict of fail: the check fails, its title the agent's reason", async () => {
  const result = await step(commentOn(7, '/codegen review [emulator:verdict-fail]'), { verdict: 'true' })
  expect(result.outputs).toMatchObject({ outcome: 'rejected', verdict: 'fail' })
  const [check] = checksOn(7)
  expect(check).toMatchObject({ status: 'completed', conclusion: 'failure' })
  expect(check!.output.title).toBe(`Rejected: ${result.outputs['verdict-reason']}`)
  expect(readerText(check!.output.summary!).replace(/ {2,}/g, ' ')).toContain(
    `Verdict | fail: ${result.outputs['verdict-reason']}`
  )
})
