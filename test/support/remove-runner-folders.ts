import { removeRunnerFolders } from '../../scripts/runner-process.js'

/**
 * jest's setup of every test file: the runner folders the harness made for a test (workspace,
 * RUNNER_TEMP, outputs, summary; megabytes each) are removed once it is over.
 */
afterEach(() => removeRunnerFolders())
