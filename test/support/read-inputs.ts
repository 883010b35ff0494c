import { isTriggerEvent } from '../../src/thread/trigger.js'
import { readSettings } from '../../src/settings/read-settings.js'
import { InputError, type InputName, type Settings } from '../../src/settings/settings.js'
import { readWorkflowContext } from '../../src/settings/workflow-context.js'

export type Inputs = Partial<Record<InputName, string>>

/**
 * readSettings as the step calls it: `inputs` (unset ones empty), the process's `env`, and the
 * workflow's context read from `env` over `runner` (GITHUB_WORKSPACE, GITHUB_EVENT_NAME, ...).
 */
export function readInputs(
  inputs: Inputs,
  env: Record<string, string> = {},
  runner: Record<string, string> = {}
): Settings {
  return readSettings(
    name => inputs[name] ?? '',
    env,
    readWorkflowContext({ ...runner, ...env }),
    isTriggerEvent
  )
}

/** Every problem `read` reports (an InputError's list), or none when it reads; any other error is thrown. */
export function problemsOf(read: () => unknown): string[] {
  try {
    read()
  } catch (error) {
    if (error instanceof InputError) return error.problems
    throw error
  }
  return []
}
