/**
 * The flows of many runs from one step (runs, daily limits and usage of a fan-out), in process on the virtual clock against the emulator (and the fake GitHub where GitHub is in the
 * flow). One jest file for them all, so that the action loads once (CONTRIBUTING.md, Tests): a new flow
 * of this kind goes in fan-out/ and is imported here.
 */
import './fan-out/fan-out.js'
import './fan-out/fan-out-endings.js'
import './fan-out/daily-limits-and-usage.js'
import './fan-out/many-runs.js'
import './fan-out/runs-huge-list-page.js'
