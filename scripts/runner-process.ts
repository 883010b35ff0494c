import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Runs the bundled action the way the GitHub runner does: inputs as INPUT_* variables, outputs and
 * job summary through the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, the event as JSON at
 * GITHUB_EVENT_PATH. Used by the integration tests and by `npm start`.
 */

/** The folder holding action.yml, whether this file runs from scripts/ (jest) or build/scripts/ (npm start). */
function projectRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(folder, 'action.yml'))) {
    const parent = dirname(folder)
    if (parent === folder) throw new Error('action.yml not found above the runner harness')
    folder = parent
  }
  return folder
}

export const ACTION_ENTRY = join(projectRoot(), 'dist', 'index.js')

export interface RunnerOptions {
  inputs: Record<string, string>
  /** Extra environment (GITHUB_* values override the defaults below). */
  env?: Record<string, string>
  event?: { name: string; payload: unknown }
  /** Files of the checked-out repository, by path inside the workspace (a schema file, images). */
  files?: Record<string, string>
  /** Node binary: ACTION_NODE (CI points it at Node 24) or this process's. */
  node?: string
  /** Stream the action's console to ours as it runs (npm start). */
  inheritOutput?: boolean
  /** Send SIGTERM (or `terminateSignal`) this long after the start, as a cancelled job does. */
  terminateAfterMs?: number
  /**
   * And not before this holds (looked at every 50 ms): the step has reached the point a test
   * cancels it at (a run created), however slowly a loaded machine started it.
   */
  terminateWhen?: () => boolean
  terminateSignal?: NodeJS.Signals
  /** Kill the action if it runs longer than this (a hang is a failure, not a stuck test). */
  killAfterMs?: number
}

export interface RunnerResult {
  exitCode: number | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  summaryPath: string
  workspace: string
  durationMs: number
  /** The runner's folder for temporary files (RUNNER_TEMP). */
  runnerTemp: string
  /** When SIGTERM was sent, if it was. */
  terminatedAtMs?: number
}

/**
 * A console line as the runner's log viewer shows it: groups as headings, annotations labelled,
 * debug lines hidden unless RUNNER_DEBUG is set, other commands hidden.
 */
export function asRunnerShowsIt(line: string): string | undefined {
  const command = /^::([a-z-]+)(?: [^:]*)?::(.*)$/.exec(line)
  if (!command) return line
  const [, name, data] = command as unknown as [string, string, string]
  const text = data.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%')
  switch (name) {
    case 'group':
      return `▸ ${text}`
    case 'error':
    case 'warning':
    case 'notice':
      return `${name[0]?.toUpperCase()}${name.slice(1)}: ${text}`
    case 'debug':
      return process.env.RUNNER_DEBUG ? `Debug: ${text}` : undefined
    default:
      return undefined
  }
}

export function inputEnvironment(inputs: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(inputs).map(([name, value]) => [`INPUT_${name.replace(/ /g, '_').toUpperCase()}`, value])
  )
}

/** Reads GITHUB_OUTPUT's `name<<delimiter` blocks (and plain `name=value` lines). */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const [, name, delimiter] = heredoc as unknown as [string, string, string]
      const value: string[] = []
      while (++i < lines.length && lines[i] !== delimiter) value.push(lines[i] as string)
      outputs[name] = value.join('\n')
    } else if (line.includes('=')) {
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1)
    }
  }
  return outputs
}

/** The folders, files and environment a runner gives a step: a fresh temporary tree each time. */
export interface RunnerFolder {
  root: string
  workspace: string
  outputPath: string
  summaryPath: string
  env: Record<string, string>
}

/** Every runner folder made here and not yet removed. */
const runnerFolders = new Set<string>()

/** Removes every runner folder made so far (the tests do after each one). */
export function removeRunnerFolders(): void {
  for (const root of runnerFolders) rmSync(root, { recursive: true, force: true })
  runnerFolders.clear()
}

export function prepareRunner(
  options: Pick<RunnerOptions, 'inputs' | 'env' | 'event' | 'files'>
): RunnerFolder {
  const root = mkdtempSync(join(tmpdir(), 'codegen-action-'))
  runnerFolders.add(root)
  const workspace = join(root, 'workspace')
  const runnerTemp = join(root, 'runner-temp')
  mkdirSync(workspace)
  mkdirSync(runnerTemp)
  for (const [path, text] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true })
    writeFileSync(join(workspace, path), text)
  }
  const outputPath = join(root, 'github-output')
  const summaryPath = join(root, 'step-summary.md')
  const eventPath = join(root, 'event.json')
  writeFileSync(outputPath, '')
  writeFileSync(summaryPath, '')
  writeFileSync(eventPath, JSON.stringify(options.event?.payload ?? {}))

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? root,
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_REPOSITORY: 'octo-org/octo-repo',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKFLOW: 'agent',
    GITHUB_EVENT_NAME: options.event?.name ?? 'workflow_dispatch',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_ACTOR: 'octocat',
    GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: runnerTemp,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    // Node (22.1 and later) keeps the bundle's compiled code here: a step starts in 70 ms, not 100.
    NODE_COMPILE_CACHE: join(tmpdir(), 'codegen-action-compile-cache'),
    ...inputEnvironment(options.inputs),
    ...options.env
  }

  return { root, workspace, outputPath, summaryPath, env }
}

export async function runBundledAction(options: RunnerOptions): Promise<RunnerResult> {
  const { workspace, outputPath, summaryPath, env } = prepareRunner(options)
  const runnerTemp = env.RUNNER_TEMP ?? ''
  const started = Date.now()
  const child = spawn(options.node ?? process.env.ACTION_NODE ?? process.execPath, [ACTION_ENTRY], {
    env,
    cwd: workspace,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  let pending = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    if (!options.inheritOutput) return
    const lines = (pending + chunk).split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      const shown = asRunnerShowsIt(line)
      if (shown !== undefined) process.stdout.write(`${shown}\n`)
    }
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
    if (options.inheritOutput) process.stderr.write(chunk)
  })
  let terminatedAtMs: number | undefined
  const timers: NodeJS.Timeout[] = []
  if (options.terminateAfterMs !== undefined) {
    const terminate = (): void => {
      if (child.exitCode !== null || child.signalCode !== null) return
      if (options.terminateWhen && !options.terminateWhen()) {
        timers.push(setTimeout(terminate, 50))
        return
      }
      terminatedAtMs = Date.now() - started
      child.kill(options.terminateSignal ?? 'SIGTERM')
    }
    timers.push(setTimeout(terminate, options.terminateAfterMs))
  }
  timers.push(setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 120_000))
  const exitCode = await new Promise<number | null>(resolve => child.on('close', code => resolve(code)))
  timers.forEach(clearTimeout)

  return {
    exitCode,
    stdout,
    stderr,
    outputs: parseOutputFile(readFileSync(outputPath, 'utf8')),
    summary: readFileSync(summaryPath, 'utf8'),
    summaryPath,
    workspace,
    runnerTemp,
    durationMs: Date.now() - started,
    terminatedAtMs
  }
}
