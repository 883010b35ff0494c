import type { LostAnswer } from '../../../scripts/github-fake/index.js'
import { OWN_COMMENT_MARK } from '../../../src/github-shapes.js'
import {
  checksOn,
  commentOn,
  emulator,
  github,
  pullRequestEvent,
  step,
  warningsOf
} from '../../support/check-world.js'

/**
 * GitHub creates the check run and loses its answer (a 502 of its front end, a reset connection, an
 * answer after the client's 30 s), in process on the virtual clock (issue #43): the check run is
 * looked for on its commit by its name and its create's own external_id, and taken; sent again only
 * when it is not there. One check run at the end, concluded.
 */

const LOSSES: LostAnswer[] = ['502', 'reset', 'late']
const CREATE = /\/check-runs$/
const LIST = /\/commits\/[0-9a-f]{40}\/check-runs$/

/** The check-run creates and looks at GitHub: [method, ms after the first create, status, applied]. */
function checkCalls(): Array<[string, number, number, boolean]> {
  const calls = github.requests.filter(request => CREATE.test(request.path) || LIST.test(request.path))
  const first = calls.find(request => request.method === 'POST')?.at ?? 0
  return calls.map(request => [request.method, request.at - first, request.status, !!request.applied])
}

/** After a lost answer the look comes a second later; a late answer is given up at 30 s first. */
const lookAfter = (how: LostAnswer): number => (how === 'late' ? 30_000 : 0) + 1_000

describe('lost answers of check runs', () => {
  test.each(LOSSES)(
    'the check run created, its answer lost (%s): found by its external_id, one check, concluded',
    async how => {
      github.injectLostAnswer(1, how, CREATE, 'POST')
      const result = await step(pullRequestEvent(7), { prompt: 'Review it', 'check-run': 'true' })
      expect(result.exitCode).toBe(0)
      const run = emulator.runs()[0]!
      expect(checksOn(7)).toEqual([
        expect.objectContaining({
          name: 'Codegen',
          status: 'completed',
          conclusion: 'success',
          external_id: String(run.id)
        })
      ])
      expect(result.outputs['check-run-id']).toBe(String(checksOn(7)[0]!.id))
      expect(checkCalls()).toEqual([
        ['POST', 0, how === '502' ? 502 : 0, true],
        ['GET', lookAfter(how), 200, false]
      ])
      // The create's own external_id, 128 random bits, looked for by name on the commit.
      const create = github.requests.find(request => request.method === 'POST' && CREATE.test(request.path))!
      expect(create.body).toMatchObject({ external_id: expect.stringMatching(/^codegen-[0-9a-f]{32}$/) })
      const look = github.requests.find(request => LIST.test(request.path))!
      expect(look.query).toMatchObject({ check_name: 'Codegen', filter: 'all' })
      expect(warningsOf(result)).toEqual([])
    }
  )

  test('the check run created, its answer lost, and GitHub unreadable through every look: looked for once more at the conclusion, concluded', async () => {
    github.injectLostAnswer(1, '502', CREATE, 'POST')
    // Each look is a read retried three times (1, 4, 9 s): twelve failures spend the three looks.
    github.injectServerError(12, LIST, 502, 'GET')
    const result = await step(pullRequestEvent(7), { prompt: 'Review it', 'check-run': 'true' })
    expect(result.exitCode).toBe(0)
    expect(checksOn(7)).toEqual([
      expect.objectContaining({
        status: 'completed',
        conclusion: 'success',
        external_id: String(emulator.runs()[0]!.id)
      })
    ])
    const looks = checkCalls().filter(([method]) => method === 'GET')
    expect(looks.map(([, , status]) => status)).toEqual([...Array<number>(12).fill(502), 200])
    expect(checkCalls().filter(([method]) => method === 'POST')).toHaveLength(1)
  })

  test('a check run GitHub did not create (502): looked for, not there, created again: one check', async () => {
    github.injectServerError(1, CREATE, 502, 'POST')
    const result = await step(pullRequestEvent(7), { prompt: 'Review it', 'check-run': 'true' })
    expect(result.exitCode).toBe(0)
    expect(checksOn(7)).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'success' })])
    expect(checkCalls()).toEqual([
      ['POST', 0, 502, false],
      // Looked for 1, 4 and 9 s after: not there each time, so sent again (once), 14 s after the first.
      ['GET', 1_000, 200, false],
      ['GET', 5_000, 200, false],
      ['GET', 14_000, 200, false],
      ['POST', 14_000, 201, false]
    ])
  })

  test("another step's check run of that name on the commit, in progress, is not taken: ours is created again", async () => {
    // An earlier step's check (a re-run, say): same name, same commit, its own external_id.
    const other = await fetch(`${github.baseUrl}/repos/octo-org/octo-repo/check-runs`, {
      method: 'POST',
      headers: { authorization: 'token github-token', 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Codegen',
        head_sha: github.headSha(7),
        status: 'in_progress',
        external_id: `codegen-${'a'.repeat(32)}`,
        output: { title: 'Working', summary: 'Another step' }
      })
    })
    expect(other.status).toBe(201)
    github.injectServerError(1, CREATE, 502, 'POST')
    const result = await step(pullRequestEvent(7), { prompt: 'Review it', 'check-run': 'true' })
    expect(result.exitCode).toBe(0)
    expect(checksOn(7).map(check => [check.status, check.conclusion])).toEqual([
      ['in_progress', null],
      ['completed', 'success']
    ])
    expect(result.outputs['check-run-id']).toBe(String(checksOn(7)[1]!.id))
  })

  test.each(LOSSES)(
    "every create of a thread's step made and its answer lost (%s): one tracking comment, one reaction, one check, concluded",
    async how => {
      github.injectLostAnswer(1, how, CREATE, 'POST')
      github.injectLostAnswer(1, how, /\/issues\/7\/comments$/, 'POST')
      github.injectLostAnswer(1, how, /\/reactions$/, 'POST')
      // Three answers given up at 30 s each (late): more time than the minute of the others.
      const result = await step(commentOn(7, '/codegen review it [emulator:success]'), {
        'timeout-minutes': '3'
      })
      expect(result.exitCode).toBe(0)
      expect(checksOn(7)).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'success' })])
      expect(github.comments(7).filter(comment => comment.body.startsWith(OWN_COMMENT_MARK))).toHaveLength(1)
      expect(github.reactions).toHaveLength(1)
      expect(
        github.requests.filter(request => request.method === 'POST' && request.applied).map(r => r.path)
      ).toHaveLength(3)
      expect(warningsOf(result)).toEqual([])
    }
  )

  test('the check run created, its answer lost, the job cancelled while the step waits to look: found, concluded cancelled', async () => {
    github.injectLostAnswer(1, '502', CREATE, 'POST')
    const created = () => github.requests.some(request => request.applied)
    const result = await step(
      commentOn(7, '/codegen take your time [emulator:endless]'),
      {},
      // Cancelled as soon as the step waits on time alone after the lost create: the wait before its look.
      { terminateAfterMs: 0, terminateSignal: 'SIGINT', terminateWhen: created }
    )
    expect(result.outputs['outcome']).toBe('cancelled')
    expect(checksOn(7)).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'cancelled' })])
    const create = github.requests.find(request => request.method === 'POST' && CREATE.test(request.path))!
    const look = github.requests.find(request => LIST.test(request.path))!
    expect(result.terminatedAtMs! - (create.at - result.startedAt)).toBeLessThan(1_000)
    expect(look.at - create.at).toBe(1_000)
    expect(checkCalls().filter(([method]) => method === 'POST')).toHaveLength(1)
  })
})
