import type { InputName } from '../../src/settings/settings.js'
import type { Runner } from '../../src/runner/runner.js'

/** The GitHub runner as the action sees it, in memory: inputs in, outputs, summary and console out. */
export class FakeRunner implements Runner {
  readonly outputs: Record<string, string> = {}
  readonly masked: string[] = []
  /** The console, one line per call: `info`, `group` (title), `notice: …`, `warning: …`, `debug: …`. */
  readonly lines: string[] = []
  summary = ''
  failures: string[] = []

  constructor(private readonly inputs: Partial<Record<InputName, string>> = {}) {}

  input(name: InputName): string {
    return this.inputs[name] ?? ''
  }
  mask(secret: string): void {
    this.masked.push(secret)
  }
  info(line: string): void {
    this.lines.push(line)
  }
  group(title: string, lines: string[]): void {
    this.lines.push(title, ...lines.map(line => `  ${line}`))
  }
  notice(message: string): void {
    this.lines.push(`notice: ${message}`)
  }
  warning(message: string): void {
    this.lines.push(`warning: ${message}`)
  }
  debug(message: string): void {
    this.lines.push(`debug: ${message}`)
  }
  setOutput(name: string, value: string): void {
    this.outputs[name] = value
  }
  async appendSummary(markdown: string): Promise<void> {
    this.summary += markdown
  }
  fail(message: string): void {
    this.failures.push(message)
  }
  /** Everything written, as one text: for checks that no form of a secret got out. */
  get everything(): string {
    return [...this.lines, ...Object.values(this.outputs), this.summary].join('\n')
  }
}
