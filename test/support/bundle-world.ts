import { spawn, spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseDocument } from 'yaml'
import { systemServerClock, type AgentRunEmulator, type EmulatorOptions } from '../../emulator/index.js'
import type { FakeGitHub, FakeGitHubOptions } from '../../scripts/github-fake/index.js'
import {
  ACTION_ENTRY,
  parseOutputFile,
  prepareRunner,
  type RunnerOptions,
  type RunnerResult
} from '../../scripts/runner-process.js'
import { FlowWorld } from './flow-world.js'

/**
 * The world of the bundle's tests (test/bundle and the long suites that need a real process):
 * dist/index.js spawned as the runner spawns it, against the emulator and (when asked) the fake
 * GitHub on loopback, both on the system's clock. What differs from scripts/runner-process.ts is
 * what the runner does and a test looks at: every input of action.yml at its default unless the
 * step gives it, a summary file that earlier steps already wrote to, the output file as written,
 * a signal sent once the step has reached a point the test names (never after a time alone), and
 * whether the step ended on its own or had to be killed.
 */

/** The Node the bundle runs under: ACTION_NODE (CI points it at Node 24), else this process's. */
export const ACTION_NODE = process.env.ACTION_NODE ?? process.execPath

/** The job's GITHUB_TOKEN, which github-token's default `${{ github.token }}` gives the step. */
export const JOB_TOKEN = 'ghs_job0token1of2the3step'
export const TOKEN = 'emulator-token'

const root = join(ACTION_ENTRY, '..', '..')
const actionYaml = parseDocument(readFileSync(join(root, 'action.yml'), 'utf8')).toJS() as {
  inputs: Record<string, { default?: string }>
  outputs: Record<string, unknown>
  runs: { using: string }
}
/** action.yml's output names. */
export const ACTION_OUTPUTS = Object.keys(actionYaml.outputs)
/** action.yml's runtime, as the major version of Node: 24 for `node24`. */
export const RUNTIME_MAJOR = Number(/^node(\d+)$/.exec(actionYaml.runs.using)?.[1])

/** The major version of the Node that runs the bundle. */
export function actionNodeMajor(): number {
  const version = spawnSync(ACTION_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim()
  return Number(/^v(\d+)\./.exec(version)?.[1])
}

/** Every input at action.yml's default, as the runner sets them, `${{ github.token }}` evaluated. */
export function defaultInputs(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(actionYaml.inputs).map(([name, input]) => {
      const value = String(input.default ?? '')
      if (value === '${{ github.token }}') return [name, JOB_TOKEN]
      if (value.includes('${{')) throw new Error(`action.yml's default of ${name} is an expression: ${value}`)
      return [name, value]
    })
  )
}

export interface BundleOptions extends Pick<RunnerOptions, 'env' | 'event' | 'files'> {
  /** The step's `with:`, over action.yml's defaults. */
  inputs: Record<string, string>
  /** What the job's earlier steps wrote to GITHUB_STEP_SUMMARY. */
  summaryBefore?: string
  /**
   * Cancel the job with `signal` once `when` holds (looked at every 20 ms), and not before
   * `notBeforeMs` after the start (a step given time to get into work that a test cannot see).
   */
  cancel?: { signal: NodeJS.Signals; when: () => boolean; notBeforeMs?: number }
  /** The runner's last resort: SIGKILL past this (default 60 s). A step that needs it hung. */
  killAfterMs?: number
}

export interface BundleResult extends RunnerResult {
  /** GITHUB_OUTPUT as the step left it. */
  outputFile: string
  /** Every input the step was given, defaults included. */
  inputs: Record<string, string>
  /** Whether the step had to be killed: it did not end on its own. */
  killed: boolean
  /** When the cancellation was sent (ms after the start), if it was. */
  cancelledAtMs?: number
}

/** dist/index.js as the runner runs it (see above). */
export async function runBundle(options: BundleOptions): Promise<BundleResult> {
  const inputs = { ...defaultInputs(), ...options.inputs }
  const folder = prepareRunner({ ...options, inputs })
  if (options.summaryBefore) writeFileSync(folder.summaryPath, options.summaryBefore)
  const started = Date.now()
  const child = spawn(ACTION_NODE, [ACTION_ENTRY], {
    env: folder.env,
    cwd: folder.workspace,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const ended = new Promise<number | null>(resolve => child.on('close', code => resolve(code)))
  let killed = false
  let cancelledAtMs: number | undefined
  const watch = options.cancel
    ? setInterval(() => {
        const cancel = options.cancel
        if (!cancel || Date.now() - started < (cancel.notBeforeMs ?? 0) || !cancel.when()) return
        clearInterval(watch)
        cancelledAtMs = Date.now() - started
        child.kill(cancel.signal)
      }, 20)
    : undefined
  const deadline = setTimeout(() => {
    killed = true
    child.kill('SIGKILL')
  }, options.killAfterMs ?? 60_000)
  const exitCode = await ended
  clearInterval(watch)
  clearTimeout(deadline)
  const outputFile = readFileSync(folder.outputPath, 'utf8')
  return {
    exitCode,
    stdout,
    stderr,
    outputs: parseOutputFile(outputFile),
    outputFile,
    summary: readFileSync(folder.summaryPath, 'utf8'),
    summaryPath: folder.summaryPath,
    workspace: folder.workspace,
    runnerTemp: folder.env.RUNNER_TEMP ?? '',
    durationMs: Date.now() - started,
    inputs,
    killed,
    ...(cancelledAtMs === undefined ? {} : { cancelledAtMs })
  }
}

/**
 * A test file's world: before each test the emulator (and, when `github` is given, the fake GitHub)
 * on the system's clock; after it, both stopped. Made at a file's top level, it registers its hooks
 * (a FlowWorld's, its servers on the system's clock: the bundle keeps that one).
 */
export class BundleWorld {
  private readonly servers: FlowWorld

  constructor(private readonly options: { emulator?: EmulatorOptions; github?: FakeGitHubOptions } = {}) {
    const clock = systemServerClock()
    this.servers = new FlowWorld({
      emulator: { clock, ...options.emulator },
      ...(options.github ? { github: { token: JOB_TOKEN, clock, ...options.github } } : {})
    })
  }

  get emulator(): AgentRunEmulator {
    return this.servers.emulator
  }

  get github(): FakeGitHub {
    return this.servers.github
  }

  /** The emulator's requests on `route`. */
  routes(route: string) {
    return this.emulator.requests.filter(request => request.route === route)
  }

  /** Whether the step has read its run (so it knows the run, past its create). */
  readItsRun(): boolean {
    return this.emulator.requests.some(
      request => ['get', 'logs', 'logs-alpha'].includes(request.route) && request.status === 200
    )
  }

  /** The bundle against this world: token, organization and address given, a quick pace. */
  step(options: Partial<BundleOptions> = {}): Promise<BundleResult> {
    return runBundle({
      ...options,
      inputs: {
        'api-token': TOKEN,
        'org-id': '1',
        'base-url': this.emulator.baseUrl,
        prompt: 'Fix the failing test',
        'poll-interval': '0.1',
        'timeout-minutes': '1',
        ...options.inputs
      },
      env: {
        ...(this.options.github ? { GITHUB_API_URL: this.github.baseUrl } : {}),
        ...options.env
      }
    })
  }
}

/** The step ended on its own (not killed), its process gone, nothing on stderr. */
export function expectEndedOnItsOwn(result: BundleResult): void {
  expect({ killed: result.killed, exited: result.exitCode !== null, stderr: result.stderr }).toEqual({
    killed: false,
    exited: true,
    stderr: ''
  })
}
