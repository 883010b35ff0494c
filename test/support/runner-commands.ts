/**
 * The GitHub runner's two workflow-command parsers (actions/runner, ActionCommand.TryParseV2 and
 * TryParse), applied to stdout as the runner reads it: line by line, split at \n and at \r.
 * Stricter than the runner: any command name counts, registered or not (`::stop-commands::TOKEN`
 * makes any token a command).
 */

export interface FoundCommand {
  parser: 'v2' | 'legacy'
  name: string
  line: string
}

/** `::name args::data` after leading whitespace (the runner trims any whitespace first). */
function parseV2(line: string): FoundCommand | undefined {
  const trimmed = line.trimStart()
  if (!trimmed.startsWith('::')) return undefined
  const end = trimmed.indexOf('::', 2)
  if (end < 0) return undefined
  const info = trimmed.slice(2, end)
  const name = info.split(' ', 1)[0] ?? ''
  return name ? { parser: 'v2', name, line } : undefined
}

/** `##[name args]data` anywhere in the line: the first `##[` and the `]` after it. */
function parseLegacy(line: string): FoundCommand | undefined {
  const prefix = line.indexOf('##[')
  if (prefix < 0) return undefined
  const close = line.indexOf(']', prefix)
  // Even without its `]` a `##[` is a near miss worth failing on.
  const info = close < 0 ? line.slice(prefix + 3) : line.slice(prefix + 3, close)
  return { parser: 'legacy', name: info.split(' ', 1)[0] ?? '', line }
}

/** Every command the runner would act on in `stdout`, by either parser (v2 first, as the runner). */
export function runnerCommands(stdout: string): FoundCommand[] {
  const found: FoundCommand[] = []
  for (const line of stdout.split(/\r\n|\r|\n/)) {
    const command = parseV2(line) ?? parseLegacy(line)
    if (command) found.push(command)
    // The runner tries legacy only when v2 fails; a line the v2 parser took is still checked for
    // `##[`, in case a runner version tries both.
    if (command?.parser === 'v2') {
      const legacy = parseLegacy(line)
      if (legacy) found.push(legacy)
    }
  }
  return found
}

/** The commands the action itself writes. */
export const OWN_COMMANDS = new Set(['add-mask', 'group', 'endgroup', 'debug', 'notice', 'warning', 'error'])

/** The data of each `name` command (`error`, `warning`) in `stdout`, its escapes undone: the text the runner shows. */
export function commandTexts(stdout: string, name: string): string[] {
  return runnerCommands(stdout)
    .filter(command => command.name === name)
    .map(command =>
      command.line
        .slice(command.line.indexOf('::', 2) + 2)
        .replace(/%0D/g, '\r')
        .replace(/%0A/g, '\n')
        .replace(/%25/g, '%')
    )
}
