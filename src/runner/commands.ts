/**
 * The runner's two command parsers: `::name` after leading blanks, and the legacy `##[name` anywhere
 * in a line. What breaks each lives here, beside the console that must never carry them.
 */

export const LEGACY_COMMAND = /##\[/g
/** U+2060 WORD JOINER: invisible, and not part of `##[`. */
export const BROKEN_LEGACY_COMMAND = '##\u2060['
/** `::` as the first non-blank characters of a line, whatever the line break before it. */
const V2_COMMAND = /(^|[\r\n\u0085\u2028\u2029])([^\S\r\n\u0085\u2028\u2029]*)::/g

/**
 * Any text made unable to be read as a runner command by either parser, for the last guard before
 * the console: the action's own commands are written elsewhere, never through this.
 */
export function noCommands(text: string): string {
  return text.replace(LEGACY_COMMAND, BROKEN_LEGACY_COMMAND).replace(V2_COMMAND, '$1$2:\u2060:')
}
