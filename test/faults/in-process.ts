import { readFileSync } from 'node:fs'
import { EOL } from 'node:os'
import { runAction, type ActionEnvironment } from '../../src/action.js'
import { checkInThread } from '../../src/answer/check.js'
import { systemClock } from '../../src/clock.js'
import type { ServiceLimits } from '../../src/org/clients.js'
import { noCommands } from '../../src/runner/commands.js'
import { openLogFile } from '../../src/runner/log-file.js'
import type { Runner } from '../../src/runner/runner.js'
import type { InputName } from '../../src/settings/settings.js'
import { prepareRunner, type RunnerResult } from '../../scripts/runner-process.js'

/**
 * A fault schedule's step in process instead of through the bundle: runAction on the system's clock,
 * in the runner's folders, with a console written as @actions/core writes it, so that the suite
 * judges it exactly as it judges the bundle's. For the schedules whose answers outlive a request
 * time limit shorter than the client's own 30 s: a test hands that limit in through
 * ActionEnvironment.serviceLimits, which the bundle, rightly, has no way to take.
 */

/** A workflow command's data as @actions/core escapes it. */
const escapeData = (data: string): string =>
  data.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')

/** The runner in memory, its console as the bundle's stdout would read (ActionsRunner's commands). */
class CommandRunner implements Runner {
  readonly outputs: Record<string, string> = {}
  stdout = ''
  summary = ''
  failed = false

  constructor(private readonly inputs: Record<string, string>) {}

  private write(line: string): void {
    this.stdout += line + EOL
  }
  private command(name: string, data: string): void {
    this.write(`::${name}::${escapeData(data)}`)
  }
  input(name: InputName): string {
    return this.inputs[name]?.trim() ?? ''
  }
  mask(secret: string): void {
    if (secret) this.command('add-mask', secret)
  }
  info(line: string): void {
    this.write(noCommands(line))
  }
  group(title: string, lines: string[]): void {
    this.command('group', noCommands(title))
    lines.forEach(line => this.write(noCommands(line)))
    this.write('::endgroup::')
  }
  notice(message: string): void {
    this.command('notice', noCommands(message))
  }
  warning(message: string): void {
    this.command('warning', noCommands(message))
  }
  debug(message: string): void {
    this.command('debug', noCommands(message))
  }
  setOutput(name: string, value: string): void {
    this.outputs[name] = value
  }
  async appendSummary(markdown: string): Promise<void> {
    this.summary += markdown
  }
  fail(message: string): void {
    this.failed = true
    this.command('error', noCommands(message))
  }
}

export interface InProcessOptions {
  inputs: Record<string, string>
  serviceLimits: ServiceLimits
  /** Past this the job is cancelled, and the step counts as killed (a hang). */
  killAfterMs: number
}

/** Runs one step as main.ts does (one failure, an unexpected error named), in the runner's folders. */
export async function runActionInProcess(options: InProcessOptions): Promise<RunnerResult> {
  const folder = prepareRunner({ inputs: options.inputs })
  const runner = new CommandRunner(options.inputs)
  const cancellation = new AbortController()
  const environment: ActionEnvironment = {
    runner,
    env: folder.env,
    clock: systemClock,
    signal: cancellation.signal,
    openLogFile,
    readEventPayload: path => (path ? JSON.parse(readFileSync(path, 'utf8')) : {}),
    checkAnswer: checkInThread,
    serviceLimits: options.serviceLimits
  }
  const started = Date.now()
  const step = runAction(environment).catch(
    (error: unknown) =>
      `Unexpected error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`
  )
  let timer: NodeJS.Timeout | undefined
  const killed = new Promise<'killed'>(resolve => {
    timer = setTimeout(() => {
      cancellation.abort()
      resolve('killed')
    }, options.killAfterMs)
  })
  const ending = await Promise.race([step, killed])
  clearTimeout(timer)
  if (ending !== 'killed' && ending) runner.fail(ending)
  return {
    exitCode: ending === 'killed' ? null : runner.failed ? 1 : 0,
    stdout: runner.stdout,
    stderr: '',
    outputs: runner.outputs,
    summary: runner.summary,
    summaryPath: folder.summaryPath,
    workspace: folder.workspace,
    runnerTemp: folder.env.RUNNER_TEMP ?? '',
    durationMs: Date.now() - started
  }
}
