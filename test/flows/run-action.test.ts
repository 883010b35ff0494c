/**
 * The flows of runAction's path from settings to reports (run-action/: main, the clients, the tracking
 * comment, threads, fault regressions, organization set-up) and of the service's limits (limits/:
 * daily limits read from the runs list, rate windows shared by one token, GitHub's request policy), in
 * process on the virtual clock against the emulator (and the fake GitHub where GitHub is in the flow).
 * Each file makes its world inside a describe of its name. One jest file for both folders, so that the
 * action loads once (CONTRIBUTING.md, Tests): a new flow of these kinds goes in its folder and is
 * imported here.
 */
import './run-action/run-action.js'
import './run-action/main.js'
import './run-action/client.js'
import './run-action/clients.js'
import './run-action/tracking-comment.js'
import './run-action/threads-and-writes.js'
import './run-action/fault-regressions.js'
import './run-action/org-setup.js'
import './limits/daily-limit-pages.js'
import './limits/daily-limit-read.js'
import './limits/daily-limits-usage.js'
import './limits/shared-token.js'
import './limits/request-policy.js'
