/**
 * Unit tests of src/report/: what the step writes (console, summary, outputs, check run, tracking
 * comment) and the limits each is held to.
 * One jest file for them all, so that their modules load once (CONTRIBUTING.md, Tests): a new unit test
 * of this part goes in report/ and is imported here.
 */
import './report/answer-text.js'
import './report/check-run-text.js'
import './report/console-text.js'
import './report/entry-text.js'
import './report/findings-text.js'
import './report/fit-text.js'
import './report/headlines.js'
import './report/log-mirror.js'
import './report/markdown.js'
import './report/outputs.js'
import './report/reporters.js'
import './report/runs-report.js'
import './report/setup-check-summary.js'
import './report/step-fail.js'
import './report/stop-text.js'
import './report/stop-wording.js'
import './report/summary.js'
import './report/summary-limits.js'
import './report/tracking-text.js'
import './report/usage.js'
import './report/limited-usage-texts.js'
