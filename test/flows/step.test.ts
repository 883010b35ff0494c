/**
 * The flows of one step against the service, in process on the virtual clock against the emulator (and the fake GitHub where GitHub is in the
 * flow). One jest file for them all, so that the action loads once (CONTRIBUTING.md, Tests): a new flow
 * of this kind goes in step/ and is imported here.
 */
import './step/action.js'
import './step/action-errors.js'
import './step/run-edges.js'
import './step/stop-run.js'
import './step/cancelled-create.js'
