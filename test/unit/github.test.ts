/**
 * Unit tests of src/github/: triggers, thread and CI-fix prompts, the tracking comment's state, diffs,
 * reviews, the shapes of GitHub's answers.
 * One jest file for them all, so that their modules load once (CONTRIBUTING.md, Tests): a new unit test
 * of this part goes in github/ and is imported here.
 */
import './github/trigger.js'
import './github/thread-prompt.js'
import './github/ci-fix-prompt.js'
import './github/workflow-run.js'
import './github/tracking.js'
import './github/check-run.js'
import './github/diff.js'
import './github/review.js'
import './github/log-tail.js'
import './github/well-formed.js'
import './github/github-shapes.js'
