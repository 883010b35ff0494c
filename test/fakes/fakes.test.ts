/**
 * The fakes' own tests: the emulator of the Agent Run service (emulator/), held to the reference
 * documents, and the fake GitHub (github-fake/), each request it answers held to GitHub's REST
 * description. One jest file for both, so that what they share loads once (CONTRIBUTING.md, Tests):
 * a new test of either goes in its folder and is imported here.
 */
import './emulator/emulator.js'
import './emulator/emulator-runs.js'
import './emulator/emulator-modes.js'
import './emulator/emulator-answers.js'
import './emulator/emulator-organizations.js'
import './github-fake/github-fake.js'
import './github-fake/comments.js'
import './github-fake/check-runs.js'
import './github-fake/findings.js'
import './github-fake/actions.js'
import './github-fake/faults.js'
import './github-fake/rendered-texts.js'
import './github-fake/image-host.js'
