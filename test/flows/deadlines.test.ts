/**
 * The flows of time: timeout-minutes, GitHub stalls, the watcher and the follow, stops, in process on the virtual clock against the emulator (and the fake GitHub where GitHub is in the
 * flow). One jest file for them all, so that the action loads once (CONTRIBUTING.md, Tests): a new flow
 * of this kind goes in deadlines/ and is imported here.
 */
import './deadlines/deadlines.js'
import './deadlines/step-deadlines.js'
import './deadlines/watcher.js'
import './deadlines/follow.js'
import './deadlines/github-stalls.js'
import './deadlines/stop.js'
import './deadlines/stop-failures.js'
import './deadlines/client-stop.js'
