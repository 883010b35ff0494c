/**
 * The flows of time and of a hostile service, in process on the virtual clock against the emulator
 * (and the fake GitHub where GitHub is in the flow): timeout-minutes, GitHub stalls, the watcher and
 * the follow, stops, a job cancelled at any moment (deadlines/); endless lying logs and tokens echoed
 * back (hostile/). Each file makes its world inside a describe of its name. One jest file for both
 * folders, so that the action loads once (CONTRIBUTING.md, Tests): a new flow of these kinds goes in
 * its folder and is imported here.
 */
import './deadlines/deadlines.js'
import './deadlines/step-deadlines.js'
import './deadlines/watcher.js'
import './deadlines/follow.js'
import './deadlines/github-stalls.js'
import './deadlines/stop.js'
import './deadlines/stop-failures.js'
import './deadlines/client-stop.js'
import './deadlines/cancel-any-moment.js'
import './hostile/hostile.js'
import './hostile/secrecy.js'
import './hostile/image-download.js'
