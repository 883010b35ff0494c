/**
 * `npm run preview`: the job summary, the tracking comment and the check run of a scenario as HTML
 * pages, rendered the way the tests read them (CommonMark + GFM, HTML passed through), for a look in
 * a browser.
 *
 *   npm run preview -- [--scenario NAME|all] [--out DIR]
 *
 * Scenarios: success, failure, paused, hostile, code-heavy, big, verdict (a review whose verdict is
 * fail), findings (that review with the findings of the emulator's `findings` scenario), many-runs
 * (the runs input: three runs of one step). Writes DIR/NAME-summary.html,
 * DIR/NAME-comment-working.html, DIR/NAME-comment-final.html, DIR/NAME-check-working.html and
 * DIR/NAME-check-final.html, each beside its Markdown (DIR: preview/ by default); many-runs has no
 * tracking comment (a fan-out runs from the inputs, never on a comment); findings also writes
 * DIR/findings-annotations.html (the check's annotations, as the Files changed tab shows them) and
 * DIR/findings-review.html (the review of the pull request: its comments on the lines of the diff,
 * and its body).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { FINDINGS, findingsDiff } from '../emulator/index.js'
import { readFindings, type Finding } from '../src/answer/findings.js'
import { rightSideHunks } from '../src/report/diff.js'
import { placeFindings } from '../src/report/review.js'
import { renderTrackingComment } from '../src/report/tracking-text.js'
import { renderCheckRun, type CheckRunText } from '../src/report/check-run-text.js'
import {
  annotationOf,
  inlineCommentBody,
  reviewBody,
  type FindingsPlace
} from '../src/report/findings-text.js'
import { codeSpan, link, plainInline } from '../src/report/markdown.js'
import { renderRunsSummary } from '../src/report/runs-report.js'
import { renderSummary } from '../src/report/summary.js'
import type { RunReport } from '../src/model.js'
import { checkState, renderScenarios, trackingState, type RenderScenario } from './render-fixtures.js'
import { renderMarkdown } from './render-markdown.js'

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'code-heavy' },
    out: { type: 'string', default: 'preview' }
  }
})
/** Where the preview's findings are: a pull request's head commit in a sample repository. */
const FINDINGS_PLACE: FindingsPlace = {
  serverUrl: 'https://github.com',
  repository: 'octo-org/octo-repo',
  sha: 'f'.repeat(40)
}

/** The verdict's review with the emulator's findings scenario's answer (a verdict of fail and four findings). */
function withFindings(verdict: RenderScenario): RenderScenario {
  const answer = verdict.report.answer!
  if (!answer.answer.valid) throw new Error('The verdict scenario has no valid answer')
  const value = { ...(answer.answer.value as object), findings: FINDINGS }
  return {
    ...verdict,
    report: {
      ...verdict.report,
      answer: { ...answer, answer: { ...answer.answer, value, findings: readFindings(value) } }
    }
  }
}

const scenarios: Record<string, RenderScenario> = { ...renderScenarios() }
scenarios['findings'] = withFindings(scenarios['verdict']!)
const names = values.scenario === 'all' ? Object.keys(scenarios) : [values.scenario as string]
for (const name of names) {
  if (!scenarios[name]) {
    console.error(`Unknown scenario "${name}": one of ${Object.keys(scenarios).join(', ')}, or all`)
    process.exit(2)
  }
}

/** A page close to GitHub's look: its fonts, code and table styles, and a column of its width. */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>
body { font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; color: #1f2328; max-width: 880px; margin: 24px auto; padding: 0 16px; }
code, pre { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f6f8fa; border-radius: 6px; }
code { padding: .2em .4em; }
pre { padding: 16px; overflow: auto; }
pre code { padding: 0; background: none; }
blockquote { margin: 0; padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
table { border-collapse: collapse; } th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
details { margin: 4px 0; } summary { cursor: pointer; }
</style></head><body>
${body}
</body></html>
`
}

/** A check run as its page on GitHub shows it: the conclusion and title above the summary. */
function checkPage(check: CheckRunText): string {
  const state = check.conclusion ? `${check.status}, ${check.conclusion}` : check.status
  const head = `**Check run** (${state}): ${check.title.replace(/[\\`*_[\]<>&|#~]/g, '\\$&')}`
  return `${head}\n\n---\n\n${check.summary}`
}

/** The check's annotations, as the Files changed tab shows them beside the lines. */
function annotationsPage(findings: readonly Finding[]): string {
  return findings
    .map(annotationOf)
    .map(
      one =>
        // GitHub shows an annotation's title and message as plain text.
        `**${one.annotation_level}** ${codeSpan(one.path)} line ${one.start_line}` +
        `${one.end_line > one.start_line ? ` to ${one.end_line}` : ''}: **${plainInline(one.title ?? '')}**\n\n${plainInline(one.message)}`
    )
    .join('\n\n---\n\n')
}

/** The review of the pull request of findingsDiff(): its comments on the lines of the diff, then its body. */
function reviewPage(report: RunReport, findings: Finding[]): string {
  const hunks = new Map(findingsDiff().map(file => [file.filename, rightSideHunks(file.patch)]))
  const { inline, listed } = placeFindings(findings, hunks)
  const run = report.run
    ? `Codegen agent run ${link(`#${report.run.id}`, report.run.web_url)}`
    : 'Codegen agent run'
  const body = reviewBody({
    marker: '<!-- codegen-agent-run-action review (preview) -->',
    run,
    findings,
    inline: inline.length,
    listed,
    footer: `<sub>Posted by the ${link('workflow run', 'https://github.com/o/r/actions/runs/1')} · commit ${FINDINGS_PLACE.sha.slice(0, 7)}</sub>`
  })
  const comments = inline.map(
    finding =>
      `**On \`${finding.path}\` line ${finding.endLine > finding.line ? `${finding.line} to ${finding.endLine}` : finding.line}:**\n\n${inlineCommentBody(finding)}`
  )
  return `${body}\n\n---\n\n${comments.join('\n\n---\n\n')}`
}

/** The pages of one scenario, as Markdown. */
function pagesOf(scenario: RenderScenario): Array<[string, string]> {
  const { report, entries } = scenario
  const answer = report.answer?.answer
  const findings = answer?.valid ? answer.findings : undefined
  const summary = report.runs
    ? renderRunsSummary({ items: report.runs })
    : renderSummary({
        report,
        entries,
        logFile: '/tmp/log.jsonl',
        ...(findings ? { findingsPlace: FINDINGS_PLACE } : {})
      })
  return [
    ['summary', summary],
    ...(report.runs
      ? []
      : ([
          ['comment-working', renderTrackingComment(trackingState(scenario, false))],
          ['comment-final', renderTrackingComment(trackingState(scenario, true))]
        ] as Array<[string, string]>)),
    ['check-working', checkPage(renderCheckRun(checkState(scenario, false)))],
    ['check-final', checkPage(renderCheckRun(checkState(scenario, true)))],
    ...(findings
      ? ([
          ['annotations', annotationsPage(findings)],
          ['review', reviewPage(report, findings)]
        ] as Array<[string, string]>)
      : [])
  ]
}

const out = resolve(values.out as string)
mkdirSync(out, { recursive: true })
for (const name of names) {
  for (const [kind, markdown] of pagesOf(scenarios[name]!)) {
    const file = join(out, `${name}-${kind}.html`)
    writeFileSync(file, page(`${name}: ${kind}`, renderMarkdown(markdown)))
    writeFileSync(join(out, `${name}-${kind}.md`), markdown)
    console.log(file)
  }
}
