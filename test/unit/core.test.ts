/**
 * Unit tests of src/'s top-level files: the clock, the decision, the model, numbers, redaction.
 * One jest file for them all, so that their modules load once (CONTRIBUTING.md, Tests): a new unit test
 * of this part goes in core/ and is imported here.
 */
import './core/clock.js'
import './core/decide.js'
import './core/model.js'
import './core/numbers.js'
import './core/redact.js'
