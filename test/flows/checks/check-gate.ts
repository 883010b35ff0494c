import { readerText } from '../../../scripts/render-markdown.js'
import {
  checkWrites,
  checksOn,
  clock,
  commentOn,
  emulator,
  github,
  pullRequestEvent,
  step,
  stepsCheck
} from '../../support/check-world.js'

/**
 * A check you can trust (issue #26), in process on the virtual clock: its colour is the step's,
 * GitHub's limits counted as GitHub counts them, well-formed text, the run never held back by the
 * check's create, and the verdict on the commit the prompt names.
 */

/** The prompts of the runs the emulator was asked to create. */
const prompts = (): string[] =>
  emulator.requests
    .filter(request => request.route === 'create')
    .map(request => (request.body as { prompt: string }).prompt)

/** Resolves once `ready()` holds, looked at every 100 virtual ms while the step runs on the clock. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await clock().sleep(100)
}

// A timeout under fail-on: failure (its check passes, saying why) is held on the virtual clock:
// test/flows/deadlines/step-deadlines.ts.
test('the check concludes as the step ends under fail-on (two steps, one after the other)', async () => {
  const noPullRequest = await step(commentOn(7, '/codegen go [emulator:no-pr]'), {
    'fail-on': 'failure,no-pull-request'
  })
  const rejected = await step(commentOn(8, '/codegen review [emulator:verdict-fail]'), {
    'fail-on': 'none',
    verdict: 'true'
  })
  const seen = [noPullRequest, rejected].map((result, i) => {
    const [check, ...others] = checksOn(7 + i)
    expect(others).toEqual([])
    return [
      result.outputs['outcome'],
      result.exitCode === 0 ? 'passes' : 'fails',
      check!.conclusion,
      check!.output.title
    ]
  })
  expect(seen).toEqual([
    ['success', 'fails', 'failure', expect.stringMatching(/^No pull request \(fail-on: no-pull-request\)/)],
    ['rejected', 'passes', 'success', expect.stringMatching(/^Rejected \(fail-on lets it pass\): /)]
  ])
  expect(readerText(checksOn(8)[0]!.output.summary!)).toContain(
    'This check passes as the step does: fail-on: none lets this ending pass.'
  )
})

test('check-run: true with wait: false is refused naming both; with auto, a step that does not wait writes no check', async () => {
  const refused = await step(pullRequestEvent(7), {
    'check-run': 'true',
    wait: 'false',
    prompt: 'Review it [emulator:success]'
  })
  const started = await step(commentOn(8, '/codegen go [emulator:success]'), { wait: 'false' })
  expect(refused.exitCode).toBe(1)
  expect(refused.stdout).toMatch(
    /^::error::.*check-run: true needs wait: true.*set wait to true, or check-run to auto or false/m
  )
  expect(started.exitCode).toBe(0)
  expect(started.outputs).toMatchObject({ outcome: 'started', 'check-run-id': '' })
  // No neutral check, which a required check would count as passed: none at all.
  expect(checkWrites()).toEqual([])
  expect(emulator.runs()).toHaveLength(1)
})

test('GitHub counts bytes: a result of 70,000 CJK characters (210,000 bytes) still concludes the check', async () => {
  emulator.queueScript({
    steps: [
      { at: 0, status: 'ACTIVE' },
      { at: 50, status: 'COMPLETE', result: '漢'.repeat(70_000) }
    ]
  })
  const result = await step(commentOn(7, '/codegen go'))
  expect(result.outputs['outcome']).toBe('success')
  const sizes = checkWrites().map(write =>
    Buffer.byteLength((write.body as { output: { summary: string } }).output.summary)
  )
  expect(Math.max(...sizes)).toBeLessThanOrEqual(65_535)
  expect(Math.max(...sizes)).toBeGreaterThan(60_000)
  expect(
    checkWrites()
      .map(write => write.status)
      .filter(status => status >= 300)
  ).toEqual([])
  expect(checksOn(7)).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'success' })])
  expect(readerText(checksOn(7)[0]!.output.summary!)).toContain('漢漢漢')
})

test('lone surrogates: every body GitHub receives is well-formed, and the check and the comment conclude', async () => {
  emulator.queueScript({
    steps: [
      { at: 0, status: 'ACTIVE' },
      {
        at: 50,
        status: 'COMPLETE',
        // Half of 🙂 in the result, and an escaped half of a pair in the verdict's reason.
        result:
          'Half an emoji \ud83d here.\n\n```json\n{"verdict": "fail", "reason": "Bad \\ud800 reason"}\n```'
      }
    ]
  })
  const result = await step(commentOn(7, '/codegen review'), { verdict: 'true', 'fail-on': 'none' })
  expect(result.outputs).toMatchObject({
    outcome: 'rejected',
    verdict: 'fail',
    'verdict-reason': 'Bad \ufffd reason'
  })
  expect(result.outputs['result']).toContain('Half an emoji \ufffd here.')
  // The fake refuses a body holding a lone surrogate as a strict JSON parser does: none was sent.
  const writes = github.requests.filter(request => request.method !== 'GET')
  expect(writes.filter(request => request.status >= 300)).toEqual([])
  const [check] = checksOn(7)
  expect(check).toMatchObject({ status: 'completed', conclusion: 'success' })
  expect(check!.output.title).toBe('Rejected (fail-on lets it pass): Bad \ufffd reason')
  expect(check!.output.summary).toContain('Half an emoji \ufffd here.')
  const tracking = github.comments(7).at(-1)!.body
  expect(tracking).toContain('\ufffd')
  expect(tracking).not.toMatch(/is working/)
})

test('a check-run create GitHub holds back holds nothing back: the run starts, the check still concludes', async () => {
  const hold = github.injectHold(1, /\/check-runs$/, 'POST')
  // 15 s of virtual time; the step ends when the run does.
  const stepping = step(commentOn(7, '/codegen go [emulator:success]'), { 'timeout-minutes': '0.25' })
  // GitHub answers the create only once the run exists (before issue #26, the run waited for it).
  await Promise.race([until(() => emulator.runs().length > 0), stepping])
  expect(emulator.runs()).toHaveLength(1)
  expect(checkWrites().map(write => write.answeredAt)).toEqual([undefined])
  hold.release()
  const result = await stepping
  expect(result.outputs['outcome']).toBe('success')
  const [create, ...updates] = checkWrites()
  const runCreate = emulator.requests.find(request => request.route === 'create')!
  expect(runCreate.at).toBeLessThan(create!.answeredAt!)
  // Created once; every update sent after GitHub answered the create.
  expect([create!.method, ...new Set(updates.map(update => update.method))]).toEqual(['POST', 'PATCH'])
  expect(updates.every(update => update.at >= create!.answeredAt!)).toBe(true)
  expect(checksOn(7)).toEqual([stepsCheck(result, { status: 'completed', conclusion: 'success' })])
})

test('a check-run create GitHub never answers costs the run nothing (timeout-minutes 0.25)', async () => {
  github.injectHang(4, /\/check-runs$/, 'POST')
  // The run succeeds before the deadline (a run held behind the create would time out); the step
  // then waits for the check's writes until GitHub's 3 s past the deadline, and not a moment longer.
  const result = await step(commentOn(7, '/codegen go [emulator:success]'), { 'timeout-minutes': '0.25' })
  expect(emulator.runs()).toHaveLength(1)
  expect(result.outputs).toMatchObject({ outcome: 'success', 'check-run-id': '' })
  expect(result.exitCode).toBe(0)
  expect(result.durationMs).toBe(15_000 + 3_000)
})

test('the verdict names its commit: each prompt gives the head its check is written on (three steps, one after another)', async () => {
  await step(commentOn(7, '/codegen review it [emulator:success]'))
  await step(pullRequestEvent(8), {
    'check-run': 'true',
    prompt: 'Review the pull request [emulator:success]'
  })
  await step(pullRequestEvent(9), {
    'check-run': 'true',
    runs: '- name: docs\n  prompt: Review the docs [emulator:success]\n- name: sdk\n  prompt: Review the SDK [emulator:success]'
  })
  const named = (text: string): string => /Review commit ([0-9a-f]{40}),/.exec(text)?.[1] ?? ''
  const byRequest = (start: string) =>
    prompts()
      .filter(prompt => prompt.startsWith(start))
      .map(named)
  expect({
    thread: byRequest('review it'),
    inputs: byRequest('Review the pull request'),
    runs: [...byRequest('Review the docs'), ...byRequest('Review the SDK')]
  }).toEqual({
    thread: [github.headSha(7)],
    inputs: [github.headSha(8)],
    runs: [github.headSha(9), github.headSha(9)]
  })
  for (const number of [7, 8, 9]) expect(checksOn(number)).toHaveLength(1)
  // The comment's pull request was read once: the prompt and the check have the same head.
  expect(github.requests.filter(request => request.path.endsWith('/pulls/7'))).toHaveLength(1)
  expect(prompts().find(prompt => prompt.startsWith('review it'))).toContain(
    `Review commit ${github.headSha(7)}, the head of the pull request when this run was asked for: check it out (\`git checkout ${github.headSha(7)}\`)`
  )
})
