import { parse as parseYaml } from 'yaml'
import { readWorkspaceFile } from '../workspace-file.js'
import type { JsonSchema } from './schema.js'

/** A schema file larger than this is not a schema anyone writes by hand. */
export const MAX_SCHEMA_FILE_BYTES = 1024 * 1024

/** One line naming a .json, .yaml or .yml file: a path, not a schema's text. */
const SCHEMA_PATH = /^[^\n{[]*\.(json|ya?ml)$/i

/**
 * The `output-schema` input as a schema: JSON or YAML text, or the path of a .json/.yaml/.yml file
 * inside the workspace (a workflow input must not read the runner's other files). Returns the
 * schema, or the problem to report (without the input's name).
 */
export function loadSchema(input: string, workspace: string): { schema: JsonSchema } | { problem: string } {
  const text = input.trim()
  if (SCHEMA_PATH.test(text)) {
    const file = readSchemaFile(text, workspace)
    if ('problem' in file) return file
    return parseSchema(file.text, `the file "${text}"`)
  }
  return parseSchema(text, 'it')
}

function parseSchema(text: string, what: string): { schema: JsonSchema } | { problem: string } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    // YAML 1.2 reads JSON too; this reads YAML, and JSON with a slip YAML forgives.
    try {
      value = parseYaml(text)
    } catch (error) {
      const message = error instanceof Error ? (error.message.split('\n', 1)[0] ?? '') : String(error)
      return { problem: `${what} is neither JSON nor YAML: ${message.slice(0, 200)}` }
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return { problem: `${what} is not a JSON Schema object (such as {"type": "object", ...})` }
  }
  return { schema: value as JsonSchema }
}

function readSchemaFile(path: string, workspace: string): { text: string } | { problem: string } {
  const file = readWorkspaceFile(path, workspace, MAX_SCHEMA_FILE_BYTES)
  if ('bytes' in file) return { text: file.bytes.toString('utf8') }
  switch (file.refused) {
    case 'unreadable':
      return { problem: `the file "${path}" is not in the workspace (${workspace})` }
    case 'outside':
      return {
        problem: `the file "${path}" is outside the workspace (${file.root}); only files inside it are read`
      }
    case 'not-a-file':
      return { problem: `"${path}" is not a file` }
    case 'too-large':
      return { problem: `the file "${path}" is larger than 1 MiB` }
  }
}
