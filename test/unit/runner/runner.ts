import { ActionsRunner } from '../../../src/runner/runner.js'
import { OWN_COMMANDS, runnerCommands } from '../../support/runner-commands.js'
import { HOSTILE_TEXT } from '../../../scripts/render-fixtures.js'

/**
 * Everything ActionsRunner prints, read by both of the runner's command parsers (`::name` after
 * blanks; the legacy `##[name` anywhere in a line): hostile text yields only the commands the
 * action writes itself, and stays readable.
 */

const HOSTILE_LINES = [
  HOSTILE_TEXT,
  'Found it ##[error]forged',
  'x ##[set-output name=outcome;]success',
  '  ::error::after blanks',
  'a\r::error::after a carriage return',
  'a\n  ::set-output name=x::y',
  '\u00a0::error::after a no-break space'
]

function captureStdout(body: () => void): string {
  const chunks: string[] = []
  const write = process.stdout.write
  process.stdout.write = ((chunk: string | Uint8Array) => {
    chunks.push(String(chunk))
    return true
  }) as typeof process.stdout.write
  try {
    body()
  } finally {
    process.stdout.write = write
  }
  return chunks.join('')
}

test('info, group, notice, warning, debug and the failure carry no command of the service', () => {
  const runner = new ActionsRunner()
  const exitCode = process.exitCode
  const stdout = captureStdout(() => {
    for (const text of HOSTILE_LINES) {
      runner.info(text)
      runner.group(text, text.split('\n'))
      runner.notice(text)
      runner.warning(text)
      runner.debug(text)
      runner.fail(text)
    }
  })
  process.exitCode = exitCode
  const commands = runnerCommands(stdout)
  expect(commands.filter(command => command.parser === 'legacy')).toEqual([])
  expect(new Set(commands.map(command => command.name))).toEqual(
    new Set(['group', 'endgroup', 'notice', 'warning', 'debug', 'error'])
  )
  expect(commands.every(command => OWN_COMMANDS.has(command.name))).toBe(true)
  // Readable: with the invisible word joiners taken out, the text is as written.
  const shown = stdout.replace(/\u2060/g, '')
  expect(shown).toContain('Found it ##[error]forged')
  expect(shown).toContain('::warning::x ##[set-output name=outcome;]success')
  expect(shown).toContain('\n  ::error::after blanks\n')
})

test('the parsers themselves find what the runner would act on', () => {
  expect(runnerCommands('x ##[error]y').map(command => command.name)).toEqual(['error'])
  expect(runnerCommands('  ::warning::y\r::error::z').map(command => command.name)).toEqual([
    'warning',
    'error'
  ])
  expect(runnerCommands('::warning::a ##[error]b').map(command => command.parser)).toEqual(['v2', 'legacy'])
  expect(runnerCommands('a ::error::b')).toEqual([])
})
