/**
 * The flows of the check run (fail-on, its life, its API, the answer's checker, findings), in process on the virtual clock against the emulator (and the fake GitHub where GitHub is in the
 * flow). One jest file for them all, so that the action loads once (CONTRIBUTING.md, Tests): a new flow
 * of this kind goes in checks/ and is imported here.
 */
import './checks/check-cases.js'
import './checks/check-gate.js'
import './checks/check-life.js'
import './checks/answer-check-overflow.js'
import './checks/check-runs.js'
import './checks/check-worker.js'
import './checks/findings.js'
import './checks/check-lost-answers.js'
import './checks/paused-gate.js'
