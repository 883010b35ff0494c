import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The summary file (GITHUB_STEP_SUMMARY) of a test file's in-process steps: one a test file, since
 * @actions/core keeps the path it first wrote to. Apart from flow-step.ts, so that jest's setup of
 * every test file removes it without loading the action (a fifth of a second a file).
 */
let summaryFile: string | undefined

export function stepSummaryFile(): string {
  summaryFile ??= join(mkdtempSync(join(tmpdir(), 'codegen-flow-summary-')), 'step-summary.md')
  return summaryFile
}

/** Removes the test file's summary file (afterAll). */
export function removeSummaryFile(): void {
  if (summaryFile) rmSync(join(summaryFile, '..'), { recursive: true, force: true })
  summaryFile = undefined
}
