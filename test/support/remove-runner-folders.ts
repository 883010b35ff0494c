import { removeRunnerFolders } from '../../scripts/runner-process.js'
import { removeSummaryFile } from './step-summary-file.js'

/**
 * jest's setup of every test file: the runner folders the harness made for a test (workspace,
 * RUNNER_TEMP, outputs, summary; megabytes each) are removed once it is over, and the file's summary
 * of in-process steps once the file is.
 */
afterEach(() => removeRunnerFolders())
afterAll(() => removeSummaryFile())
