import { AgentRunEmulator, DOCUMENTED_RATE_LIMITS, type RunScript } from '../emulator/index.js'
import { runAction, type RunnerResult } from '../harness/runner-process.js'

/**
 * Several jobs of a matrix on one token, against an emulator that enforces the limits across all
 * of them: every job ends with the right outcome, and the 429s they draw are absorbed.
 */

let emulator: AgentRunEmulator
afterEach(async () => {
  await emulator.stop()
})

/** A run of `seconds` with an entry about every 400 ms: traffic while entries flow and while quiet. */
function run(seconds: number, ending: 'COMPLETE' | 'ERROR'): RunScript {
  const ms = seconds * 1000
  const steps: RunScript['steps'] = [{ at: 0, status: 'ACTIVE' }]
  for (let at = 200; at < ms - 300; at += 400) {
    steps.push({ at, log: { message_type: 'ACTION', tool_name: 'run_command', thought: `step at ${at} ms` } })
  }
  steps.push({ at: ms - 200, log: { message_type: 'FINAL_ANSWER', observation: 'done' } })
  steps.push({ at: ms, status: ending, result: `ended ${ending}` })
  return { steps }
}

async function matrix(jobs: number, pollInterval: string): Promise<RunnerResult[]> {
  return Promise.all(
    Array.from({ length: jobs }, (_, i) =>
      runAction({
        inputs: {
          'api-token': 'emulator-token',
          'org-id': '1',
          'base-url': emulator.baseUrl,
          'repo-id': '101',
          prompt: `job ${i}`,
          'poll-interval': pollInterval,
          'timeout-minutes': '2',
          'fail-on': 'timeout'
        },
        killAfterMs: 120_000
      })
    )
  )
}

function figures(label: string, results: RunnerResult[]): { rateLimited: number; requests: number } {
  const rateLimited = emulator.requests.filter(request => request.status === 429).length
  const requests = emulator.requests.length
  const slowest = Math.max(...results.map(result => result.durationMs))
  console.log(
    `${label}: ${results.length} jobs, ${requests} requests, ${rateLimited} answered 429, slowest job ${slowest} ms`
  )
  return { rateLimited, requests }
}

function expectRightOutcomes(results: RunnerResult[]): void {
  // Each job's outcome is the one its own run ended with (odd jobs fail), and none failed otherwise.
  for (const result of results) {
    const run = emulator.run(Number(result.outputs['agent-run-id']))!
    expect(result.exitCode).toBe(0)
    expect(result.outputs['outcome']).toBe(run.status === 'COMPLETE' ? 'success' : 'failure')
    expect(result.outputs['log-count']).toBe(String(run.logs.length))
  }
  expect(emulator.runs()).toHaveLength(results.length)
}

test('six jobs on one token at the documented limits draw no 429', async () => {
  emulator = new AgentRunEmulator({ rateLimits: DOCUMENTED_RATE_LIMITS })
  await emulator.start()
  for (let i = 0; i < 6; i++) emulator.queueScript(run(4, i % 2 ? 'ERROR' : 'COMPLETE'))
  const results = await matrix(6, '1')
  expectRightOutcomes(results)
  expect(figures('documented limits', results).rateLimited).toBe(0)
})

test('five jobs against limits scaled down 6x collide, back off with jitter, and all finish right', async () => {
  // 10 requests per 5 s and 10 log reads per 10 s, shared: far below what five fast pollers ask for.
  emulator = new AgentRunEmulator({
    rateLimits: {
      general: { limit: 10, windowMs: 5_000 },
      create: { limit: 10, windowMs: 10_000 },
      logs: { limit: 10, windowMs: 10_000 }
    }
  })
  await emulator.start()
  for (let i = 0; i < 5; i++) emulator.queueScript(run(3, i % 2 ? 'ERROR' : 'COMPLETE'))
  const results = await matrix(5, '0.5')
  expectRightOutcomes(results)
  const { rateLimited, requests } = figures('limits scaled down', results)
  expect(rateLimited).toBeGreaterThan(0)
  // Backoff keeps the refused share of the traffic in check instead of hammering the service.
  expect(rateLimited / requests).toBeLessThan(0.5)
})
