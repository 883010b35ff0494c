/**
 * Unit tests of src/runner/: the runner's console commands and the log file.
 * One jest file for them all, so that their modules load once (CONTRIBUTING.md, Tests): a new unit test
 * of this part goes in runner/ and is imported here.
 */
import './runner/runner.js'
import './runner/log-file.js'
