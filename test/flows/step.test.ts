/**
 * The flows of one step against the service, in process on the virtual clock against the emulator
 * (action-world.ts, whose hooks serve every test here): the step itself (step/), the agent's answer
 * (answers/: verdict, output-schema, repairs by resume) and many runs from one step (fan-out/: runs,
 * daily limits and usage of a fan-out). One jest file for the three folders, so that the action loads
 * once (CONTRIBUTING.md, Tests): a new flow of these kinds goes in its folder and is imported here.
 */
import './step/action.js'
import './step/action-errors.js'
import './step/run-edges.js'
import './step/stop-run.js'
import './step/cancelled-create.js'
import './answers/answer-repairs.js'
import './answers/structured-answers.js'
import './answers/verdict-repairs.js'
import './answers/hostile-answers.js'
import './answers/refused-resume.js'
import './answers/repair-cannot-start.js'
import './fan-out/fan-out.js'
import './fan-out/fan-out-endings.js'
import './fan-out/daily-limits-and-usage.js'
import './fan-out/many-runs.js'
import './fan-out/runs-huge-list-page.js'
