/**
 * Unit tests of src/agent-run/ and src/runs/: a run's status, pacing, stop, carry-on, the watch of a
 * step, the schedule of many runs.
 * One jest file for them all, so that their modules load once (CONTRIBUTING.md, Tests): a new unit test
 * of this part goes in agent-run/ and is imported here.
 */
import './agent-run/status.js'
import './agent-run/pacing.js'
import './agent-run/stop.js'
import './agent-run/carry-on.js'
import './agent-run/watch-step.js'
import './agent-run/schedule.js'
