import { scenario } from '../../../emulator/index.js'
import { readerText, renderMarkdown, visibleText } from '../../../scripts/render-markdown.js'
import { action, emulator, startEmulatorAsIs } from '../../support/action-world.js'
import { commandTexts } from '../../support/runner-commands.js'

/**
 * Many runs asked for an answer (verdict), cut short by SIGINT or by timeout-minutes, as the runner
 * runs the step, in process on the virtual clock: every run created is reported with its id,
 * status, link and the ending, those being read or repaired when the step was cut too; the step's
 * outcome says which ending it was.
 */

const SPEED = 2

/** The step's error annotations, as the runner shows them. */
const errors = (stdout: string): string[] => commandTexts(stdout, 'error')

const resumed = (): boolean =>
  emulator.requests.some(request => request.route === 'resume' && request.status === 200)

/**
 * Two runs that never end, and one whose answer is missing: its repair (the run resumed) never ends
 * either. The step is cut once that repair was sent, so one run is being repaired and two followed.
 */
describe.each([
  ['SIGINT', 'cancelled', { 'timeout-minutes': '5' }],
  // Runs of 300 s (endless at speed 2) cannot end within 15 s; the repair is sent 1.5 s after the start.
  ['timeout-minutes', 'timeout', { 'timeout-minutes': '0.25' }]
] as const)('verdict on many runs, cut short by %s', (cut, ending, inputs) => {
  test(`every run created reported ${ending} with its id, status and link, the one being repaired too`, async () => {
    await startEmulatorAsIs({
      speed: SPEED,
      // Once the three runs exist, the next script queued is the repair's: it never ends.
      onAnswer: request => {
        const creates = emulator.requests.filter(other => other.route === 'create').length
        if (request.route === 'create' && creates === 3) emulator.queueScript(scenario('endless', SPEED))
      }
    })
    const names = ['api', 'web', 'review']
    const scenarios = ['endless', 'endless', 'verdict-never']
    const result = await action(
      {
        prompt: '',
        'poll-interval': '0.5',
        verdict: 'true',
        runs: JSON.stringify(
          names.map((name, i) => ({ name, prompt: `${name} [emulator:${scenarios[i]}]` }))
        ),
        ...inputs
      },
      cut === 'SIGINT' ? { terminateAfterMs: 500, terminateSignal: 'SIGINT', terminateWhen: resumed } : {}
    )
    expect(result.stderr).toBe('')
    expect(resumed()).toBe(true)
    expect(result.exitCode).toBe(1)
    // Ended at its deadline to the millisecond, or within the 4 s a cancelled step may take.
    if (cut === 'SIGINT') expect(result.durationMs - result.terminatedAtMs!).toBeLessThanOrEqual(4_000)
    else expect(result.durationMs).toBe(15_000)

    // Three runs created, none after: each in `runs` with its id, link and the ending.
    const created = emulator.runs()
    expect(created).toHaveLength(3)
    const byName = (name: string) => created.find(run => run.prompt.startsWith(`${name} `))!
    const output = JSON.parse(result.outputs['runs']!) as Array<Record<string, string>>
    expect(output.map(run => [run.name, run['agent-run-id'], run['web-url'], run.outcome])).toEqual(
      names.map(name => [name, String(byName(name).id), byName(name).web_url, ending])
    )
    // Cancelled, the runs still working are stopped (stop-run-on's default); a timeout leaves them.
    const working = ending === 'cancelled' ? 'STOPPED' : 'ACTIVE'
    expect(output.slice(0, 2).map(run => run.status)).toEqual([working, working])
    // The one being repaired: as last seen, its earlier ending or its repair working (stopped when cancelled).
    expect(['COMPLETE', working]).toContain(output[2]!.status)
    expect(result.outputs['outcome']).toBe(ending)

    // The summary's table: a row per run with its outcome and link; nothing says "never started".
    const html = renderMarkdown(result.summary)
    const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(match => visibleText(match[1] ?? ''))
    names.forEach((name, i) =>
      expect(rows[i + 1]).toMatch(
        new RegExp(`^${name} \\|\\s+[^|]+ ${ending} \\|.*\\|\\s+#${byName(name).id} \\|$`)
      )
    )
    expect(readerText(result.summary)).not.toMatch(/never started|was not started/)

    // The annotation names each run where it is.
    const [annotation, ...more] = errors(result.stdout)
    expect(more).toEqual([])
    expect(annotation).toMatch(/^3 of 3 agent runs failed the step:/)
    for (const name of names) expect(annotation).toContain(`- ${name}: ${ending}, `)
    for (const name of names)
      expect(annotation).toContain(`(agent run ${byName(name).id}: ${byName(name).web_url})`)
  })
})

test('verdict on many runs, a repair the service refuses (resume-paused-only): that run kept as it completed, invalid-output, a warning under its name; nothing else started', async () => {
  await startEmulatorAsIs({ speed: 20, modes: ['resume-paused-only'] })
  const result = await action({
    prompt: '',
    'poll-interval': '0.2',
    'timeout-minutes': '30',
    verdict: 'true',
    runs: JSON.stringify([
      { name: 'pass', prompt: 'Review [emulator:verdict-pass]' },
      { name: 'never', prompt: 'Review [emulator:verdict-never]' }
    ])
  })
  expect(result.stderr).toBe('')
  const never = emulator.runs().find(run => run.prompt.startsWith('Review [emulator:verdict-never]'))!
  expect(emulator.runs()).toHaveLength(2)
  expect(emulator.requests.filter(request => request.route === 'resume').map(r => r.status)).toEqual([422])
  expect(result.exitCode).toBe(1)
  const output = JSON.parse(result.outputs['runs']!) as Array<Record<string, string>>
  expect(output.map(run => [run.name, run.outcome, run.status])).toEqual([
    ['pass', 'success', 'COMPLETE'],
    ['never', 'invalid-output', 'COMPLETE']
  ])
  expect(output[1]).toMatchObject({
    'agent-run-id': String(never.id),
    'web-url': never.web_url,
    result: never.result
  })
  expect(result.outputs['outcome']).toBe('invalid-output')
  expect(result.stdout).toContain(
    `::warning::[never] Agent run ${never.id} completed without a valid answer, and the service would not resume it to ask for one (the service answered 422: `
  )
  const [annotation, ...more] = errors(result.stdout)
  expect(more).toEqual([])
  expect(annotation).toMatch(/^1 of 2 agent runs failed the step:\n- never: invalid-output, /)
  expect(annotation).not.toContain('agent-run-id')
  expect(readerText(result.summary)).toMatch(/never \| +⚠️ invalid-output \| +COMPLETE \|/)
})
