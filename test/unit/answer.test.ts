/**
 * Unit tests of src/answer/: the answer's prompt, extraction, JSON bounds, schema and findings.
 * One jest file for them all, so that their modules load once (CONTRIBUTING.md, Tests): a new unit test
 * of this part goes in answer/ and is imported here.
 */
import './answer/answer-prompt.js'
import './answer/extract.js'
import './answer/bounded-json.js'
import './answer/check.js'
import './answer/schema.js'
import './answer/schema-source.js'
import './answer/findings.js'
