/**
 * Unit tests of src/settings/: the inputs read and validated into one settings object.
 * One jest file for them all, so that their modules load once (CONTRIBUTING.md, Tests): a new unit test
 * of this part goes in settings/ and is imported here.
 */
import './settings/read-settings.js'
import './settings/settings.js'
import './settings/check-inputs.js'
import './settings/run-limits.js'
import './settings/runs.js'
import './settings/images.js'
import './settings/words.js'
import './settings/workspace-file.js'
