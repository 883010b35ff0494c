import { isMap, isSeq, parseDocument } from 'yaml'
import { readWorkspaceFile } from '../workspace-file.js'
import type { RunItem } from './settings.js'

/** A fan-out holds at most this many runs: more belong in a matrix of jobs. */
export const MAX_RUNS = 100
/** `max-parallel`'s bounds: at least one run at a time, never more than a list can hold. */
export const MAX_PARALLEL = 100
/** The list's text (inline or the file's) at most: 100 long prompts fit; a log file by mistake does not. */
export const MAX_RUNS_BYTES = 4 * 1024 * 1024
/** Names show in console lines and table cells: one short line. */
export const MAX_NAME_CHARS = 100
/** Problems of single items listed at most; the rest are counted. */
const ITEM_PROBLEMS_SHOWN = 10

const ITEM_KEYS = ['prompt', 'name', 'repo-id', 'repository', 'model', 'agent-type', 'metadata'] as const
const AGENT_TYPES = ['codegen', 'claude_code']
const REPOSITORY = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/

const EXPECTED =
  'expected a YAML or JSON list of runs (each with a prompt), or the path of such a file in the workspace'

/**
 * The `runs` input: a YAML or JSON list, inline or in a file of the workspace, as validated items;
 * undefined when the input is empty or has a problem. Each problem, pushed into `problems`, names
 * `runs` and, for an item, its position. Nothing is sent before this.
 */
export function readRuns(input: string, workspace: string, problems: string[]): RunItem[] | undefined {
  const text = input.trim()
  if (!text) return undefined
  const source = looksInline(text) ? text : readRunsFile(text, workspace, problems)
  const list = source === undefined ? undefined : parseList(source, problems)
  return list === undefined ? undefined : checkItems(list, problems)
}

/**
 * A list written inline spans lines or opens with `-` or `[` (JSON's and YAML's flow list);
 * anything else on one line is a file's path.
 */
function looksInline(text: string): boolean {
  return text.includes('\n') || /^[-[{]/.test(text)
}

function readRunsFile(path: string, workspace: string, problems: string[]): string | undefined {
  const file = readWorkspaceFile(path, workspace, MAX_RUNS_BYTES)
  if ('bytes' in file) return file.bytes.toString('utf8')
  const shown = path.slice(0, 200)
  problems.push(
    {
      unreadable: `runs: "${shown}" is not a file in the workspace; ${EXPECTED}`,
      outside: `runs: "${shown}" is outside the workspace; only a file inside it is read`,
      'not-a-file': `runs: "${shown}" is not a file`,
      'too-large': `runs: "${shown}" is larger than ${MAX_RUNS_BYTES / 1024 / 1024} MiB`
    }[file.refused]
  )
  return undefined
}

/** YAML 1.2 (JSON is YAML): one document, keys unique, aliases bounded, a list at the top. */
function parseList(text: string, problems: string[]): unknown[] | undefined {
  if (Buffer.byteLength(text) > MAX_RUNS_BYTES) {
    problems.push(`runs: the list is larger than ${MAX_RUNS_BYTES / 1024 / 1024} MiB`)
    return undefined
  }
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false })
  const error = document.errors[0]
  if (error) {
    const where = ` at line ${lineOf(text, error.pos[0])}`
    problems.push(`runs: does not parse as YAML or JSON${where} (${firstLine(error.message)}); ${EXPECTED}`)
    return undefined
  }
  if (!isSeq(document.contents)) {
    const got = isMap(document.contents) ? 'a single mapping' : 'a single value'
    problems.push(`runs: ${EXPECTED}; got ${got} (write each run as a list item starting with "-")`)
    return undefined
  }
  try {
    return document.toJS({ maxAliasCount: 100 }) as unknown[]
  } catch (error) {
    problems.push(`runs: does not parse as YAML or JSON (${firstLine((error as Error).message)})`)
    return undefined
  }
}

/** The 1-based line of an offset. */
function lineOf(text: string, offset: number): number {
  let line = 1
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').slice(0, 200)
}

function checkItems(list: unknown[], problems: string[]): RunItem[] | undefined {
  if (list.length === 0) {
    problems.push(`runs: the list is empty; ${EXPECTED}`)
    return undefined
  }
  if (list.length > MAX_RUNS) {
    problems.push(
      `runs: ${list.length} runs; at most ${MAX_RUNS} are accepted (use a matrix of jobs for more)`
    )
    return undefined
  }
  // The items' own problems, of which the first ITEM_PROBLEMS_SHOWN are listed.
  const found: string[] = []
  const items = list.map((value, index) => checkItem(value, index + 1, found))
  const seen = new Map<string, number>()
  items.forEach((item, index) => {
    const first = seen.get(item.name)
    if (first !== undefined)
      found.push(`runs: item ${index + 1}'s name "${item.name}" is item ${first}'s too; names must differ`)
    else seen.set(item.name, index + 1)
  })
  problems.push(...found.slice(0, ITEM_PROBLEMS_SHOWN))
  if (found.length > ITEM_PROBLEMS_SHOWN)
    problems.push(`runs: and ${found.length - ITEM_PROBLEMS_SHOWN} more problems`)
  return found.length > 0 ? undefined : items
}

/** The name an item without one gets: its position in the list. */
export function positionName(position: number): string {
  return `run ${position}`
}

function checkItem(value: unknown, position: number, problems: string[]): RunItem {
  const at = `runs: item ${position}`
  const item: RunItem = { name: positionName(position), prompt: '' }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${at}: expected a mapping with a prompt, such as {prompt: "Fix the tests"}`)
    return item
  }
  const fields = value as Record<string, unknown>
  const unknown = Object.keys(fields).filter(key => !(ITEM_KEYS as readonly string[]).includes(key))
  if (unknown.length > 0)
    problems.push(
      `${at}: unknown key ${unknown.map(key => `"${key.slice(0, 50)}"`).join(', ')}; expected ${ITEM_KEYS.join(', ')}`
    )
  const text = (key: string): string | undefined => {
    const field = fields[key]
    if (field === undefined || field === null) return undefined
    if (typeof field === 'string') return field.trim() || undefined
    problems.push(`${at}: ${key}: expected text, got ${describe(field)}`)
    return undefined
  }
  const prompt = text('prompt')
  if (prompt === undefined && !problems.some(problem => problem.startsWith(`${at}: prompt:`)))
    problems.push(`${at}: prompt: required; the instruction of that run`)
  item.prompt = prompt ?? ''
  item.name = itemName(fields.name, at, problems) ?? item.name
  const repoId = repoIdOf(fields['repo-id'], at, problems)
  if (repoId !== undefined) item.repoId = repoId
  const repository = text('repository')
  if (repository !== undefined && !REPOSITORY.test(repository))
    problems.push(
      `${at}: repository: expected owner/name such as octo-org/octo-repo, got "${repository.slice(0, 100)}"`
    )
  else if (repository !== undefined) item.repository = repository
  const model = text('model')
  if (model !== undefined) item.model = model
  const agentType = text('agent-type')
  if (agentType !== undefined && !AGENT_TYPES.includes(agentType))
    problems.push(
      `${at}: agent-type: expected one of ${AGENT_TYPES.join(', ')}, got "${agentType.slice(0, 50)}"`
    )
  else if (agentType !== undefined) item.agentType = agentType
  const metadata = fields.metadata
  if (metadata !== undefined && metadata !== null) {
    if (typeof metadata === 'object' && !Array.isArray(metadata))
      item.metadata = metadata as Record<string, unknown>
    else problems.push(`${at}: metadata: expected a mapping (a JSON object), got ${describe(metadata)}`)
  }
  return item
}

/**
 * What a name may not hold: line breaks (with U+2028 and U+2029), the C0 and C1 controls (ESC, NUL,
 * tab, vertical tab…) and the bidirectional marks, embeddings, overrides and isolates, which would
 * reach the console, the summary's table and the `runs` output as they are, or turn them around.
 */
const UNSHOWABLE = /[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

/** A name as text on one line: numbers are taken as written (`name: 2024`). */
function itemName(value: unknown, at: string, problems: string[]): string | undefined {
  if (value === undefined || value === null) return undefined
  const name = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : undefined
  const expected = `${at}: name: expected one line of text of at most ${MAX_NAME_CHARS} characters`
  if (name === undefined || !name || name.length > MAX_NAME_CHARS) {
    problems.push(expected)
    return undefined
  }
  const unshowable = UNSHOWABLE.exec(name)
  if (unshowable) {
    const code = (unshowable[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')
    problems.push(
      `${expected}, without control or bidirectional characters; got U+${code} at character ${unshowable.index + 1}`
    )
    return undefined
  }
  return name
}

function repoIdOf(value: unknown, at: string, problems: string[]): number | undefined {
  if (value === undefined || value === null) return undefined
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value
  if (typeof number === 'number' && Number.isSafeInteger(number) && number > 0) return number
  problems.push(`${at}: repo-id: expected a positive integer, got ${describe(value)}`)
  return undefined
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object' && value !== null) return 'a mapping'
  if (typeof value === 'string') return `"${value.slice(0, 50)}"`
  return String(value)
}

/** `max-parallel`: a whole number from 1 to MAX_PARALLEL. */
export function readMaxParallel(text: string, problems: string[]): number {
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < 1 || value > MAX_PARALLEL) {
    problems.push(
      `max-parallel: expected a whole number from 1 to ${MAX_PARALLEL}, got "${text.slice(0, 50)}"`
    )
    return 1
  }
  return value
}
