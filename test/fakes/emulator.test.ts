/**
 * The emulator of the Agent Run service, held to the reference documents: runs, modes, answers,
 * organizations. One jest file for them all, so that the emulator loads once (CONTRIBUTING.md, Tests): a
 * new test of the emulator goes in emulator/ and is imported here.
 */
import './emulator/emulator.js'
import './emulator/emulator-runs.js'
import './emulator/emulator-modes.js'
import './emulator/emulator-answers.js'
import './emulator/emulator-organizations.js'
