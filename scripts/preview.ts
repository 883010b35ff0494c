/**
 * `npm run preview`: the job summary, the tracking comment and the check run of a scenario as HTML
 * pages, rendered the way the tests read them (CommonMark + GFM, HTML passed through), for a look in
 * a browser.
 *
 *   npm run preview -- [--scenario NAME|all] [--out DIR]
 *
 * Scenarios: success, failure, paused, hostile, code-heavy, big, verdict (a review whose verdict is
 * fail), many-runs (the runs input: three runs of one step). Writes DIR/NAME-summary.html,
 * DIR/NAME-comment-working.html, DIR/NAME-comment-final.html, DIR/NAME-check-working.html and
 * DIR/NAME-check-final.html, each beside its Markdown (DIR: preview/ by default); many-runs has no
 * tracking comment (a fan-out runs from the inputs, never on a comment).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { renderTrackingComment } from '../src/report/tracking-text.js'
import { renderCheckRun, type CheckRunText } from '../src/report/check-run-text.js'
import { renderRunsSummary } from '../src/report/runs-report.js'
import { renderSummary } from '../src/report/summary.js'
import { checkState, renderScenarios, trackingState, type RenderScenario } from './render-fixtures.js'
import { renderMarkdown } from './render-markdown.js'

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'code-heavy' },
    out: { type: 'string', default: 'preview' }
  }
})
const scenarios = renderScenarios()
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

/** The pages of one scenario, as Markdown. */
function pagesOf(scenario: RenderScenario): Array<[string, string]> {
  const { report, entries } = scenario
  const summary = report.runs
    ? renderRunsSummary({ items: report.runs })
    : renderSummary({ report, entries, logFile: '/tmp/log.jsonl' })
  return [
    ['summary', summary],
    ...(report.runs
      ? []
      : ([
          ['comment-working', renderTrackingComment(trackingState(scenario, false))],
          ['comment-final', renderTrackingComment(trackingState(scenario, true))]
        ] as Array<[string, string]>)),
    ['check-working', checkPage(renderCheckRun(checkState(scenario, false)))],
    ['check-final', checkPage(renderCheckRun(checkState(scenario, true)))]
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
