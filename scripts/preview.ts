/**
 * `npm run preview`: the job summary and the tracking comment of a scenario as HTML pages, rendered
 * the way the tests read them (CommonMark + GFM, HTML passed through), for a look in a browser.
 *
 *   npm run preview -- [--scenario NAME] [--out DIR]
 *
 * Scenarios: success, failure, paused, hostile, code-heavy, big. Writes DIR/NAME-summary.html,
 * DIR/NAME-comment-working.html and DIR/NAME-comment-final.html (DIR: preview/ by default).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { renderTrackingComment } from '../src/github/tracking.js'
import { renderSummary } from '../src/report/summary.js'
import { renderScenarios, trackingState } from './render-fixtures.js'
import { renderMarkdown } from './render-markdown.js'

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'code-heavy' },
    out: { type: 'string', default: 'preview' }
  }
})
const scenarios = renderScenarios()
const name = values.scenario as string
const scenario = scenarios[name]
if (!scenario) {
  console.error(`Unknown scenario "${name}": one of ${Object.keys(scenarios).join(', ')}`)
  process.exit(2)
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

const out = resolve(values.out as string)
mkdirSync(out, { recursive: true })
const pages: Array<[string, string]> = [
  [
    'summary',
    renderSummary({ report: scenario.report, entries: scenario.entries, logFile: '/tmp/log.jsonl' })
  ],
  ['comment-working', renderTrackingComment(trackingState(scenario, false))],
  ['comment-final', renderTrackingComment(trackingState(scenario, true))]
]
for (const [kind, markdown] of pages) {
  const file = join(out, `${name}-${kind}.html`)
  writeFileSync(file, page(`${name}: ${kind}`, renderMarkdown(markdown)))
  writeFileSync(join(out, `${name}-${kind}.md`), markdown)
  console.log(file)
}
