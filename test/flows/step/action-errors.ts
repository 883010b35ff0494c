import { readFileSync } from 'node:fs'
import { scenario } from '../../../emulator/index.js'
import { renderMarkdown, visibleText } from '../../../scripts/render-markdown.js'
import { OWN_COMMANDS, runnerCommands } from '../../support/runner-commands.js'
import { emulator, startEmulator, action, consoleLines, fast, routes } from '../../support/action-world.js'

/**
 * The action as the runner runs it, in process on the virtual clock against the emulator (as in
 * action.ts), when things go wrong: bad inputs, a rejected token, service errors and rate
 * limits, hostile text, a huge log, a cancelled job.
 */

describe('the action when things go wrong', () => {
  test('bad inputs fail with one message naming them, before any request', async () => {
    await startEmulator()
    const result = await action({ 'org-id': 'acme', 'timeout-minutes': '-5' })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toContain(
      '::error::Invalid inputs:%0A- org-id: expected a positive integer, got "acme"%0A- timeout-minutes: expected a positive number'
    )
    expect(emulator.requests).toHaveLength(0)
  })

  test('an org-id the token does not have: the error printed alone, no outcome line before it', async () => {
    await startEmulator()
    const result = await action({ 'org-id': '99' })
    expect(result.exitCode).toBe(1)
    expect(consoleLines(result).filter(line => line.trim())).toEqual([])
    expect(result.stdout).toMatch(/^::error::org-id 99 is not among the token's organizations/m)
    expect(routes('create')).toHaveLength(0)
  })

  test('a rejected token says to check api-token, and the token never shows', async () => {
    await startEmulator()
    const secret = 'cg_live_0123456789abcdef'
    const result = await action({ 'api-token': secret })
    expect(result.exitCode).toBe(1)
    expect(result.outputs['outcome']).toBe('error')
    // The check's reads say why, in place of the bare 401; the service's answer follows.
    expect(result.stdout).toMatch(
      /::error::The service rejected the api-token \(401\): check the api-token input.*%0A\(Authentication failed \(401\) while trying to/
    )
    expect(routes('create')).toHaveLength(0)
    // Masked first: the only line that holds it is the one that tells the runner to hide it.
    expect(result.stdout.split('\n')[0]).toBe(`::add-mask::${secret}`)
    const shown = `${result.stdout.split('\n').slice(1).join('\n')}${result.summary}${JSON.stringify(result.outputs)}`
    expect(shown).not.toContain(secret)
  })

  test('an error body that echoes the token past the length cap leaks no part of it', async () => {
    const secret = 'cg_secret_0123456789'
    await startEmulator({ tokens: { [secret]: [1] } })
    // The cap on the service's message (1,000 characters) falls inside the echoed token.
    emulator.injectFaults({
      route: 'repos',
      fault: { kind: 'status', status: 403, body: { message: `${'x'.repeat(990)}${secret}` } }
    })
    const result = await action({ 'api-token': secret })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/::error::Permission denied \(403\)/)
    const shown = `${result.stdout.split('\n').slice(1).join('\n')}${result.summary}${JSON.stringify(result.outputs)}`
    expect(shown).not.toContain('cg_secret')
  })

  test('survives 5xx, 429 and resets, creating the run exactly once', async () => {
    await startEmulator()
    emulator.queueScript(fast('success'))
    emulator.injectFaults(
      { route: 'repos', fault: { kind: 'status', status: 503 } },
      { route: 'create', fault: { kind: 'reset-after' } },
      { route: 'list-runs', fault: { kind: 'status', status: 429 } },
      { route: 'logs', times: 2, fault: { kind: 'status', status: 502 } },
      { route: 'logs', after: 3, fault: { kind: 'malformed' } },
      { route: 'logs', after: 5, fault: { kind: 'reset-before' } }
    )
    const result = await action({})
    expect(result.exitCode).toBe(0)
    expect(emulator.runs()).toHaveLength(1)
    expect(routes('create')).toHaveLength(1)
    expect(result.outputs).toMatchObject({
      outcome: 'success',
      'log-count': String(emulator.runs()[0]!.logs.length)
    })
    expect(result.stdout).toContain('the create had reached the service; it is not sent again')
  })

  test('a create refused with 429 is sent again; a 402 is explained', async () => {
    await startEmulator({ runAllowance: 1 })
    emulator.queueScript(fast('success'))
    emulator.injectFaults({ route: 'create', fault: { kind: 'status', status: 429 } })
    expect((await action({})).exitCode).toBe(0)
    expect(routes('create').map(request => request.status)).toEqual([429, 200])
    const refused = await action({})
    expect(refused.exitCode).toBe(1)
    expect(refused.stdout).toMatch(/::error::The organization's agent run allowance is used up \(402\)/)
  })

  test('service text cannot issue workflow commands', async () => {
    await startEmulator()
    emulator.queueScript(fast('hostile'))
    const result = await action({})
    expect(result.outputs['outcome']).toBe('success')
    // Read by both of the runner's parsers (`::` after blanks, `##[` anywhere): only our own commands.
    const commands = runnerCommands(result.stdout)
    expect(commands.filter(command => command.parser === 'legacy')).toEqual([])
    expect(commands.filter(command => !OWN_COMMANDS.has(command.name))).toEqual([])
    // Our commands only. Its one warning is ours too: the unknown hostile status, quoted, commanding
    // nothing (on the virtual clock no look comes late, so no pace notice).
    const names = new Set(commands.map(command => command.name))
    names.delete('warning')
    expect(names).toEqual(new Set(['add-mask', 'group', 'endgroup', 'debug']))
    expect(commands.filter(c => c.name === 'warning').map(c => c.line)).toEqual([
      '::warning::Unknown run status "WORKING ##\u2060[error]status": treating it as still working.'
    ])
    expect(result.stdout).not.toMatch(/^\s*::(set-output|stop-commands|add-mask::x|error::pwned)/m)
    // The hostile text stays readable: `##[` shows as written (a word joiner hides in it).
    expect(result.stdout.replace(/\u2060/g, '')).toContain('Found it ##[error]forged')

    // Nor break the summary: as rendered, its raw HTML is text, and only our <details> are elements.
    const html = renderMarkdown(result.summary)
    expect(html).not.toMatch(/<script|<img|<!--/)
    // Balanced, and not because nothing rendered: the entries' blocks are there.
    expect(html.match(/<details>/g)?.length ?? 0).toBeGreaterThan(0)
    expect(html.match(/<details>/g)?.length).toBe(html.match(/<\/details>/g)?.length)
    const text = visibleText(html)
    expect(text).toContain('</details></summary><script>alert(1)</script>')
    expect(text).toContain('::error::pwned ##[error]title')
    expect(Buffer.byteLength(result.summary)).toBeLessThan(1024 * 1024)
  })

  test('a run of 3,000 entries of 2 KB: the summary stays under 1 MiB and says what it left out; the log file has all', async () => {
    await startEmulator()
    emulator.queueScript(fast('big'))
    const result = await action({ 'poll-interval': '0.5' })
    expect(result.exitCode).toBe(0)
    const run = emulator.runs()[0]!
    expect(run.logs).toHaveLength(3_000)
    expect(result.outputs['log-count']).toBe('3000')
    const logFile = readFileSync(result.outputs['log-file']!, 'utf8').trim().split('\n')
    expect(logFile).toHaveLength(3_000)
    expect(Buffer.byteLength(result.summary)).toBeLessThanOrEqual(1_000_000)
    // What it says adds up (that each shown entry renders as a <details> of its own, with the summary
    // read as GitHub reads it: unit/report/rendering.ts, the same 3,000 entries).
    const leftOut = Number(/\*\*(\d+) log entries left out here\*\*/.exec(result.summary)?.[1])
    const shown = Number(
      /\| Log entries \| 3000, (\d+) shown below \(all in the `log-file` output/.exec(result.summary)?.[1]
    )
    expect(shown).toBeGreaterThan(0)
    expect(leftOut + shown).toBe(3_000)
    // Catching up reads full pages back to back: 30 pages, within the documented 60 log reads a minute.
    expect(emulator.requests.filter(request => request.route === 'logs').length).toBeLessThanOrEqual(35)
  })

  test.each(['SIGTERM', 'SIGINT'] as const)(
    'a job cancelled by %s writes its summary and outputs',
    async signal => {
      await startEmulator()
      emulator.queueScript(scenario('endless'))
      const result = await action(
        { 'poll-interval': '2' },
        // While the run works: it exists by then.
        { terminateAfterMs: 1_500, terminateSignal: signal, terminateWhen: () => emulator.runs().length > 0 }
      )
      expect(result.terminatedAtMs).toBe(1_500)
      // Ended on its own after the signal, within the 4 s a cancelled step may take.
      expect(result.durationMs - result.terminatedAtMs!).toBeLessThanOrEqual(4_000)
      expect(result.exitCode).toBe(1)
      expect(result.outputs).toMatchObject({
        outcome: 'cancelled',
        'agent-run-id': String(emulator.runs()[0]!.id)
      })
      expect(result.summary).toContain('Job cancelled while following the agent run')
      // The last read after the cancellation is still made: the outputs show the run as it stands.
      expect(routes('get').at(-1)?.at).toBeGreaterThanOrEqual(emulator.requests.at(-1)!.at)
      expect(routes('get').at(-1)?.status).toBe(200)
    }
  )
})
