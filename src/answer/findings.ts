import { isJsonObject } from '../json.js'
import type { JsonSchema, SchemaError } from './schema-types.js'
/**
 * Findings (the `findings` input): the agent's problems with the code, each on the lines it is
 * about, asked for in the answer's `findings` array. What a finding must be is a JSON Schema of
 * ours, checked by the same validator as any answer, and one rule JSON Schema cannot say (an
 * `end_line` before `line`), checked here; then the findings are read into plain data.
 */

export type Severity = 'failure' | 'warning' | 'notice'

/** Most severe first: the order of every count and of the inline comments. */
export const SEVERITIES: readonly Severity[] = ['failure', 'warning', 'notice']

/** A validated finding: `endLine` is `line` when the agent gave no `end_line`. */
export interface Finding {
  path: string
  line: number
  endLine: number
  severity: Severity
  title?: string
  message: string
}

/** GitHub's longest path for an annotation or a review comment is far below this. */
export const MAX_FINDING_PATH_CHARS = 1_024

/** 2³¹−1: GitHub's lines of an annotation or a review comment are 32-bit integers (past it, 422). */
export const MAX_FINDING_LINE = 2_147_483_647

/**
 * A path from the repository's root: not absolute (`/`, `\`, `C:`), no `..` segment, no control
 * character (a NUL among them). Linear: one lookahead from the start, one pass.
 */
const RELATIVE_PATH =
  '^(?![/\\\\])(?![A-Za-z]:)(?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$))[^\\u0000-\\u001f\\u007f]+$'

/** One finding, as the agent is shown it. */
export const FINDING_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    path: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_FINDING_PATH_CHARS,
      pattern: RELATIVE_PATH,
      description: "the file's path from the repository's root, such as src/a.ts (not absolute, no ..)"
    },
    line: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_FINDING_LINE,
      description: 'the line the finding is about (the first, for a range)'
    },
    end_line: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_FINDING_LINE,
      description: 'the last line of a range, at least line'
    },
    severity: { enum: [...SEVERITIES], description: 'failure, warning or notice' },
    title: { type: 'string', description: 'a few words' },
    message: { type: 'string', minLength: 1, description: 'what is wrong there, and how to fix it' }
  },
  required: ['path', 'line', 'severity', 'message']
}

/** The `findings` property: every finding, `[]` when there is none. */
export const FINDINGS_PROPERTY: JsonSchema = {
  type: 'array',
  items: FINDING_SCHEMA,
  description: 'one item a problem found in the code, [] when none'
}

/** What `findings: true` asks for alone, or joined to the verdict's or to output-schema. */
export const FINDINGS_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { findings: FINDINGS_PROPERTY },
  required: ['findings']
}

/** The errors a reader and the agent can act on, as the schema's check gives at most. */
const MAX_ERRORS = 5

/**
 * What the schema cannot say of findings that satisfy it: an `end_line` before its `line`. Linear
 * in the number of findings; [] when all is well (or when `value` holds no array to read).
 */
export function findingsProblems(value: unknown): SchemaError[] {
  const findings = (value as { findings?: unknown } | null)?.findings
  if (!Array.isArray(findings)) return []
  const errors: SchemaError[] = []
  for (const [index, item] of findings.entries()) {
    const { line, end_line: end } = item as { line: number; end_line?: number }
    if (typeof end === 'number' && end < line)
      errors.push({ pointer: `/findings/${index}/end_line`, message: `must be at least line (${line})` })
    if (errors.length >= MAX_ERRORS) break
  }
  return errors
}

/** The findings of an answer the schema and findingsProblems passed, as plain data. */
export function readFindings(value: unknown): Finding[] {
  const findings = (value as { findings?: unknown } | null)?.findings
  if (!Array.isArray(findings)) return []
  return findings.map(item => {
    const { path, line, end_line, severity, title, message } = item as {
      path: string
      line: number
      end_line?: number
      severity: Severity
      title?: string
      message: string
    }
    return { path, line, endLine: end_line ?? line, severity, ...(title ? { title } : {}), message }
  })
}

/** How many findings of each severity. */
export function severityCounts(findings: readonly Finding[]): Record<Severity, number> {
  const counts = { failure: 0, warning: 0, notice: 0 }
  for (const finding of findings) counts[finding.severity]++
  return counts
}

const PLURALS: Record<Severity, string> = { failure: 'failures', warning: 'warnings', notice: 'notices' }

/** "3 findings: 1 failure, 2 warnings"; "1 finding: 1 notice"; "No findings". */
export function findingsCountText(findings: readonly Finding[]): string {
  if (findings.length === 0) return 'No findings'
  const counts = severityCounts(findings)
  const split = SEVERITIES.filter(severity => counts[severity] > 0)
    .map(severity => `${counts[severity]} ${counts[severity] === 1 ? severity : PLURALS[severity]}`)
    .join(', ')
  return `${findings.length} ${findings.length === 1 ? 'finding' : 'findings'}: ${split}`
}

/** The findings, most severe first, each severity in the agent's order. */
export function bySeverity(findings: readonly Finding[]): Finding[] {
  return SEVERITIES.flatMap(severity => findings.filter(finding => finding.severity === severity))
}

/** `src/a.ts:12`, or `src/a.ts:12-14` for a range. */
export function lineRef(finding: Pick<Finding, 'path' | 'line' | 'endLine'>): string {
  return `${finding.path}:${finding.line}${finding.endLine > finding.line ? `-${finding.endLine}` : ''}`
}

/** A local `$ref` (`#/$defs/x`, `#/definitions/x`) followed a few times; anything else as it is. */
function resolved(schema: unknown, root: JsonSchema): unknown {
  let node = schema
  for (let hops = 0; hops < 8 && isJsonObject(node) && typeof node.$ref === 'string'; hops++) {
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(node.$ref)
    const defs = match ? root[match[1] as string] : undefined
    const name = pointerToken(match?.[2] ?? '')
    node = isJsonObject(defs) && name !== undefined ? defs[name] : undefined
  }
  return node
}

/** A JSON Pointer token, percent- and `~`-decoded; undefined when malformed (`%zz`): no such definition. */
function pointerToken(token: string): string | undefined {
  try {
    return decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~')
  } catch {
    return undefined
  }
}

/**
 * Why `output-schema` cannot be asked for findings, or undefined when it can: its root must have a
 * `findings` property of the findings' shape, an array of objects with `path`, `line`, `severity`
 * and `message` (ours is joined to it, so each finding is also checked as ours is).
 */
export function findingsShapeProblem(given: JsonSchema): string | undefined {
  const properties = given.properties
  const findings = resolved(isJsonObject(properties) ? properties.findings : undefined, given)
  const items = isJsonObject(findings) ? resolved(findings.items, given) : undefined
  const fields = isJsonObject(items) ? items.properties : undefined
  const shaped =
    isJsonObject(findings) &&
    (findings.type === 'array' || (Array.isArray(findings.type) && findings.type.includes('array'))) &&
    isJsonObject(fields) &&
    ['path', 'line', 'severity', 'message'].every(name => name in fields)
  return shaped
    ? undefined
    : 'with findings: true, the schema must have a findings property of the findings’ shape (type: array, items with the properties path, line, severity and message; end_line and title optional); add it, or ask for findings without output-schema'
}
