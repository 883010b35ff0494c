/**
 * The flows of runAction's path from settings to reports (main, the clients, the tracking comment, threads,
 * fault regressions, organization set-up), in process on the virtual clock against the emulator (and the fake GitHub where GitHub is in the
 * flow). One jest file for them all, so that the action loads once (CONTRIBUTING.md, Tests): a new flow
 * of this kind goes in run-action/ and is imported here.
 */
import './run-action/run-action.js'
import './run-action/main.js'
import './run-action/client.js'
import './run-action/clients.js'
import './run-action/tracking-comment.js'
import './run-action/threads-and-writes.js'
import './run-action/fault-regressions.js'
import './run-action/org-setup.js'
