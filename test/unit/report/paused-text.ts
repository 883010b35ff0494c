import type { RunReport } from '../../../src/model.js'
import { renderCheckRun, type CheckRunState } from '../../../src/report/check-run-text.js'
import { passingWarnings, stepFailMessage, type FailPolicy } from '../../../src/report/step-fail.js'
import { renderSummary } from '../../../src/report/summary.js'
import { renderTrackingComment } from '../../../src/report/tracking-text.js'
import type { FailCondition } from '../../../src/settings/settings.js'
import { checkState, renderScenarios, trackingState } from '../../../scripts/render-fixtures.js'
import { readerText } from '../../../scripts/render-markdown.js'

/**
 * How to answer a paused run, as each text that says it reads (issue #44: written once): the job
 * summary, the check run and the tracking comment rendered to the text a reader sees; the step's
 * annotations as they are, plain text, where the backticks are quote marks. Every surface gives
 * the same ways with the same words: a step with the run's id and the answer as its prompt, and
 * on a thread a comment with the trigger phrase (not the default one, so it is seen to come through).
 */

const PHRASE = '/helper'
const scenario = renderScenarios().paused!
const STEP = 'a step with agent-run-id: 1000 and the answer as prompt.'
const COMMENT = `${PHRASE} <answer>`

/** The paused run's texts, asked for on a thread or from inputs. */
function texts(onThread: boolean): { markdown: Record<string, string>; plain: Record<string, string> } {
  const report: RunReport = { ...scenario.report, trigger: onThread ? 'comment' : 'inputs' }
  const failOn = (words: FailCondition[]): FailPolicy => ({ failOn: new Set(words), triggerPhrase: PHRASE })
  // The check run knows the phrase only for a run asked for on its pull request's thread.
  const check: CheckRunState = { ...checkState({ ...scenario, report }, true), policy: failOn([]) }
  if (onThread) check.triggerPhrase = PHRASE
  else delete check.triggerPhrase
  const markdown: Record<string, string> = {
    summary: readerText(renderSummary({ report })),
    'check run': readerText(renderCheckRun(check).summary)
  }
  if (onThread)
    markdown['tracking comment'] = readerText(
      renderTrackingComment({ ...trackingState({ ...scenario, report }, true), triggerPhrase: PHRASE })
    )
  const plain = {
    'failure annotation': stepFailMessage(report, failOn(['paused'])) ?? '',
    'warning annotation': passingWarnings(report, failOn([]))[0] ?? ''
  }
  return { markdown, plain }
}

/** A text's lines that say how to answer, the plain text's quote marks dropped as rendering drops a code span's. */
function answerLines(text: string, plain: boolean): string[] {
  return text
    .split('\n')
    .map(line => (plain ? line.replace(/`/g, '') : line).trim())
    .filter(line => /^Answer |reply .*<answer>/.test(line))
}

test('from inputs: every text says the one way, a step, in the same words, and no phrase', () => {
  const { markdown, plain } = texts(false)
  const said = [
    ...Object.values(markdown).map(text => answerLines(text, false)),
    ...Object.values(plain).map(text => answerLines(text, true))
  ]
  expect(said).toEqual(Array(4).fill([`Answer by resuming the run in ${STEP}`]))
  for (const text of [...Object.values(markdown), ...Object.values(plain)]) expect(text).not.toContain(PHRASE)
})

test('asked on a thread: every text says both ways, the step in the same words, the comment with the phrase', () => {
  const { markdown, plain } = texts(true)
  const lines: Record<string, string[]> = {
    ...Object.fromEntries(Object.entries(markdown).map(([name, text]) => [name, answerLines(text, false)])),
    ...Object.fromEntries(Object.entries(plain).map(([name, text]) => [name, answerLines(text, true)]))
  }
  expect(lines).toEqual({
    // The summary does not know the phrase: it sends the reader to the tracking comment, which says it.
    summary: [
      `Answer on the issue or pull request that asked for it (its tracking comment says how), or resume the run in ${STEP}`
    ],
    // A check run is only ever on a pull request's thread.
    'check run': [`Answer with a comment ${COMMENT} on the pull request, or resume the run in ${STEP}`],
    // On the thread itself, a reply is the way.
    'tracking comment': [`⏸️ The agent’s question (reply ${COMMENT} to answer it and continue this run):`],
    'failure annotation': [
      `Answer with a comment ${COMMENT} on the issue or pull request that asked for it, or resume the run in ${STEP}`
    ],
    'warning annotation': [
      `Answer with a comment ${COMMENT} on the issue or pull request that asked for it, or resume the run in ${STEP}`
    ]
  })
})
