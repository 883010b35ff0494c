/**
 * Unit tests of src/org/: the organization's daily limits, inspection and organizations.
 * One jest file for them all, so that their modules load once (CONTRIBUTING.md, Tests): a new unit test
 * of this part goes in org/ and is imported here.
 */
import './org/daily-limits.js'
import './org/inspect.js'
import './org/organizations.js'
