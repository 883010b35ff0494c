import * as core from '@actions/core'
import { EOL } from 'node:os'
import { noCommands } from './commands.js'
import type { InputName } from '../settings/settings.js'

/** The job log as the action writes to it. */
export interface Console {
  info(line: string): void
  /** A collapsible block: `title` shows, `lines` fold under it. */
  group(title: string, lines: string[]): void
  notice(message: string): void
  warning(message: string): void
  debug(message: string): void
}

/** Everything the action reads from and writes to the runner. Tests hand in a fake. */
export interface Runner extends Console {
  input(name: InputName): string
  mask(secret: string): void
  setOutput(name: string, value: string): void
  appendSummary(markdown: string): Promise<void>
  /** Marks the step failed: called from one place only, main.ts. */
  fail(message: string): void
}

/** A workflow command's data as the runner reads it back (what @actions/core does to it). */
function escapeCommandData(data: string): string {
  return data.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

/**
 * The runner of GitHub Actions, through @actions/core (INPUT_*, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY).
 * Every message goes through noCommands first: @actions/core escapes a command's data for the `::`
 * parser, but the runner's legacy parser acts on `##[` anywhere in a line, messages included.
 */
export class ActionsRunner implements Runner {
  input(name: InputName): string {
    return core.getInput(name)
  }
  mask(secret: string): void {
    if (secret) core.setSecret(secret)
  }
  info(line: string): void {
    core.info(noCommands(line))
  }
  group(title: string, lines: string[]): void {
    // One write, not one a line: a 3,000-entry backlog is tens of thousands of lines. The same
    // commands core.startGroup and core.endGroup write, title escaped the same way.
    process.stdout.write(
      `::group::${escapeCommandData(noCommands(title))}${EOL}${lines.map(line => noCommands(line) + EOL).join('')}::endgroup::${EOL}`
    )
  }
  notice(message: string): void {
    core.notice(noCommands(message))
  }
  warning(message: string): void {
    core.warning(noCommands(message))
  }
  debug(message: string): void {
    core.debug(noCommands(message))
  }
  setOutput(name: string, value: string): void {
    core.setOutput(name, value)
  }
  async appendSummary(markdown: string): Promise<void> {
    if (!process.env.GITHUB_STEP_SUMMARY) {
      core.debug('GITHUB_STEP_SUMMARY is not set: no job summary written')
      return
    }
    await core.summary.addRaw(markdown, true).write()
  }
  fail(message: string): void {
    core.setFailed(noCommands(message))
  }
}
